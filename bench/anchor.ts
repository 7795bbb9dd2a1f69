// The benchmark's anchors (bench/framework-server.ts, bench/commit-anchor-server.ts): Express
// answering every request with a body made before the run (the service's own answer to the
// scenario: same status, same bytes), after `before` has run (nothing, or one commit).
//   PUT /__body?status=N sets the body and status to answer.
import express from "express";

export function startAnchor(before: () => Promise<void> = async () => undefined, defaultPort = 8090): void {
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

  app.get("/__ready", (_req, res, next) => void before().then(() => res.status(204).end(), next));

  app.use((_req, res, next) => {
    before().then(() => res.status(status).type("json").send(body), next);
  });

  app.listen(Number(process.env.PORT ?? defaultPort), process.env.HOST ?? "127.0.0.1");
}
