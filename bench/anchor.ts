// The benchmark's anchors (bench/framework-server.ts, bench/commit-anchor-server.ts,
// bench/statement-anchor-server.ts): Express answering every request with a body made before the
// run (the service's own answer to the scenario: same status, same bytes), after `before` has run
// for it (nothing, one commit, or the service's own statements for that write).
//   PUT /__body?status=N sets the body and status to answer; GET /__ready answers once `ready` has.
import express from "express";

export interface AnchorOptions {
  /** What is done for each request before it is answered; given the request (its body as text when `readsBody`). */
  before?: (request: express.Request) => Promise<void>;
  ready?: () => Promise<void>;
  /** Whether the request's body is read (as text) before `before`: the service reads every write's. */
  readsBody?: boolean;
  /** Routes of the anchor's own, set before a run. */
  routes?: (app: express.Express) => void;
  defaultPort?: number;
}

export function startAnchor({
  before = async () => undefined,
  ready = async () => undefined,
  readsBody = false,
  routes,
  defaultPort = 8090,
}: AnchorOptions = {}): void {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  let body = "{}";
  let status = 200;

  app.put("/__body", express.text({ type: "*/*", limit: "64mb" }), (req, res) => {
    body = req.body as string;
    status = Number(req.query.status ?? 200);
    res.status(204).end();
  });

  app.get("/__ready", (_req, res, next) => void ready().then(() => res.status(204).end(), next));
  routes?.(app);
  if (readsBody) app.use(express.text({ type: "*/*", limit: "1mb" }));

  app.use((req, res, next) => {
    before(req).then(() => res.status(status).type("json").send(body), next);
  });

  app.listen(Number(process.env.PORT ?? defaultPort), process.env.HOST ?? "127.0.0.1");
}
