import { once } from "node:events";
import { Agent, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express, Request } from "express";
import { isWarmUpMessage, WARM_UP_HEADER, WARM_UP_SECRET } from "./warm-up-marker";
import { untraced } from "../tracing/tracing";
import { markupSanitizer } from "../text/kses";
import { zoneAbbreviation } from "../dates/date-input";
import { mountedPath, type SpecOperation } from "../openapi/spec";

/**
 * A process's first request of each operation compiles its validators and prepares its
 * statements: behind a proxy, a restarted instance that took traffic at once answered its first
 * requests a second late or more (docs/performance.md, start-up under load). So as soon as it
 * listens, the service sends itself one request of each operation, on loopback, through the whole
 * app: every read, and every write's validation (a write goes no further, openapi/validation.ts).
 * Until they are all answered, `/readyz` says the process is not ready, so that a proxy sends
 * traffic to it only once it is warm; a client that reaches it meanwhile (a newcomer's first
 * request after `npm start`) is answered at once, not after the warm-up. Those requests carry a
 * header with a secret of this process, by which the request log, the metrics and tracing leave
 * them out.
 */

/** Whether the request is one of this process's own warm-up requests. */
export function isWarmUpRequest(req: Request): boolean {
  return isWarmUpMessage(req.headers);
}

interface WarmUpRequest {
  method: string;
  path: string;
}

const REQUESTS = new WeakMap<Express, WarmUpRequest[]>();

/**
 * Remembers what warms `app`: a request of each operation, its path parameters given an
 * impossible value; a read asks for as little as it may: one item of a list, and of the feed (which
 * has no page size) a day of 1970. What is warmed is the work every request does (validators,
 * statements); the feed of a calendar's next thousand events took half the warm-up at 10,000 events.
 */
export function rememberWarmUp(app: Express, operations: SpecOperation[], basePath: string): void {
  REQUESTS.set(
    app,
    operations.map((operation) => ({
      method: operation.method.toUpperCase(),
      path:
        mountedPath(basePath, operation.path, () => "0") +
        (operation.method === "get" ? smallestAnswer(operation) : ""),
    })),
  );
}

function smallestAnswer({ parameters }: SpecOperation): string {
  const takes = (name: string) => parameters.some((parameter) => parameter.in === "query" && parameter.name === name);
  if (takes("per_page")) return "?per_page=1";
  if (takes("start_date") && takes("end_date")) return "?start_date=1970-01-01&end_date=1970-01-01";
  return "";
}

/** Writes are sent with an empty JSON object: validation is as far as they go (openapi/validation.ts). */
function send(agent: Agent, port: number, { method, path }: WarmUpRequest): Promise<void> {
  const body = method === "GET" || method === "DELETE" ? null : "{}";
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: {
          [WARM_UP_HEADER]: WARM_UP_SECRET,
          "Accept-Encoding": "gzip",
          ...(body === null ? {} : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }),
        },
      },
      (res) => {
        res.resume();
        res.on("end", resolve);
        res.on("error", () => resolve());
      },
    );
    // A warm-up request that fails warms nothing, and stops nothing.
    req.on("error", () => resolve());
    req.end(body ?? undefined);
  });
}

const WARMING_UP = new WeakSet<object>();

/** Whether `app`'s warm-up is under way (see warmUp); a request's `req.app` says which app. */
export function isWarmingUp(app: object): boolean {
  return WARMING_UP.has(app);
}

/**
 * Sends the warm-up requests through `app`, one after another, on a server of its own (`serve`) on
 * a loopback port; `app` is warming up from the call until they are answered.
 */
export async function warmUp(app: Express, serve: (app: Express) => Server): Promise<{ requests: number }> {
  WARMING_UP.add(app);
  try {
    const sent = await sendWarmUpRequests(app, serve);
    // Loaded when first needed, which the warm-up's writes (validated only) and an empty
    // calendar's reads never reach. After the requests: the process takes its stop signals only
    // once its start's synchronous steps are done.
    markupSanitizer();
    zoneAbbreviation("UTC", new Date());
    return sent;
  } finally {
    WARMING_UP.delete(app);
  }
}

async function sendWarmUpRequests(app: Express, serve: (app: Express) => Server): Promise<{ requests: number }> {
  const requests = REQUESTS.get(app) ?? [];
  // Exclusive: in a cluster, workers' listen(0) would otherwise share one port, and a worker would
  // warm (and count) another's requests.
  const server = serve(app).listen({ port: 0, host: "127.0.0.1", exclusive: true });
  try {
    await once(server, "listening");
  } catch {
    // No loopback to listen on: the service starts cold rather than not at all.
    return { requests: 0 };
  }
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // Sent with tracing suppressed: they are no one's requests.
  await untraced(async () => {
    for (const warmUpRequest of requests) await send(agent, port, warmUpRequest);
  });
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  return { requests: requests.length };
}
