import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Database } from "./database";
import { driverCause } from "./transaction";

/**
 * Whether an error says the database cannot be reached or cannot take the query now (refused or
 * dropped connections, a server restarting or shutting down, no connection free in time, SQLite's
 * write lock held past the busy timeout) rather than that the query was wrong. Such a request is
 * answered `503 rest_service_unavailable` with `Retry-After`: nothing is wrong with it, and the
 * same request may succeed a moment later, as `/readyz` tells load balancers.
 */

// Prisma: can't reach the server, timed out, server closed the connection, no pool connection in
// time, too many connections, transaction could not start in time.
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028", "P2037"]);
// The driver adapters' kinds of failure (SQLite's busy timeout is reported as SocketTimeout).
const DRIVER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "DatabaseDoesNotExist",
]);
// PostgreSQL: connection exceptions (08...), too many connections, the server shutting down or
// starting (57P01, 57P02, 57P03), crash recovery (57P04 is not used; 58... are system errors).
const SQLSTATES = /^(08\d\d\d|53300|57P0[123])$/;
const MESSAGES =
  /ECONNREFUSED|ECONNRESET|Connection terminated|connection error|Can't reach database server|timeout exceeded when trying to connect|Query read timeout|database is locked|SQLITE_BUSY/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let current: unknown = error, depth = 0;
    current && typeof current === "object" && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const e = current as { code?: unknown; message?: unknown };
    if (typeof e.code === "string" && (PRISMA_CODES.has(e.code) || SQLSTATES.test(e.code))) return true;
    const cause = driverCause(current);
    if (cause?.kind && DRIVER_KINDS.has(cause.kind)) return true;
    if (cause?.originalCode && SQLSTATES.test(cause.originalCode)) return true;
    if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** Fails when the database cannot answer a query now (a readiness probe; a start-up's first query: Prisma connects lazily). */
export async function pingDatabase(db: Pick<Database, "direct">): Promise<void> {
  await db.direct.rows(Prisma.sql`SELECT 1`);
}
