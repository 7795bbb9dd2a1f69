import { once } from "node:events";
import { Agent, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import type { Express, Request } from "express";
import { isWarmUpMessage, WARM_UP_HEADER, WARM_UP_SECRET } from "./warm-up-marker";
import { mountedPath, type SpecOperation } from "../openapi/spec";

/**
 * A process's first request of each operation compiles its validators and prepares its
 * statements: behind a proxy, a restarted instance that took traffic at once answered its first
 * requests a second late or more (docs/performance.md, start-up under load). So before it listens,
 * the service sends itself one GET of each read operation, on loopback, through the whole app:
 * every read is warm when the first client's arrives. Those requests carry a header with a secret
 * of this process, by which the request log, the metrics and tracing leave them out.
 */

/** Whether the request is one of this process's own warm-up requests. */
export function isWarmUpRequest(req: Request): boolean {
  return isWarmUpMessage(req.headers);
}

const PATHS = new WeakMap<Express, string[]>();

/** Remembers what warms `app`: a GET of each read operation, its path parameters given an impossible value. */
export function rememberWarmUp(app: Express, operations: SpecOperation[], basePath: string): void {
  PATHS.set(
    app,
    operations
      .filter((operation) => operation.method === "get")
      .map((operation) => mountedPath(basePath, operation.path, () => "0")),
  );
}

function get(agent: Agent, port: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        agent,
        headers: { [WARM_UP_HEADER]: WARM_UP_SECRET, "Accept-Encoding": "gzip" },
      },
      (res) => {
        res.resume();
        res.on("end", resolve);
        res.on("error", () => resolve());
      },
    );
    // A warm-up request that fails warms nothing, and stops nothing.
    req.on("error", () => resolve());
    req.end();
  });
}

/** Sends the warm-up requests through `app`, one after another, on a server of its own (`serve`) on a loopback port. */
export async function warmUp(app: Express, serve: (app: Express) => Server): Promise<{ requests: number }> {
  const paths = PATHS.get(app) ?? [];
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
  await context.with(suppressTracing(context.active()), async () => {
    for (const path of paths) await get(agent, port, path);
  });
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  return { requests: paths.length };
}
