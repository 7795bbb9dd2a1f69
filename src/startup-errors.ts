import { providerOf, sqlitePath } from "./db/database";
import type { Config } from "./config";
import { CONNECT_TIMEOUT_MS } from "./db/database";

/**
 * Start-up failures a new operator meets (the database cannot be reached, does not exist or
 * refuses the credentials; the port is taken), said in one line that names the setting to fix,
 * instead of a stack trace. Null for anything else, which is a bug and keeps its stack.
 */

/** DATABASE_URL as it can be shown: its password left out. */
export function shownDatabaseUrl(databaseUrl: string): string {
  if (providerOf(databaseUrl) === "sqlite") return sqlitePath(databaseUrl);
  const url = new URL(databaseUrl);
  if (url.password) url.password = "***";
  return url.toString();
}

function codesOf(error: unknown): { code?: string; message: string } {
  const seen: Array<{
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } };
  }> = [];
  for (
    let current: unknown = error;
    current && typeof current === "object" && seen.length < 5;
    current = (current as { cause?: unknown }).cause
  )
    seen.push(current as never);
  for (const e of seen) {
    const code =
      e.meta?.driverAdapterError?.cause?.originalCode ??
      e.meta?.driverAdapterError?.cause?.kind ??
      (typeof e.code === "string" ? e.code : undefined);
    if (code) return { code, message: String(e.message ?? "") };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

export function databaseStartupMessage(error: unknown, config: Config): string | null {
  const { code, message } = codesOf(error);
  const where = shownDatabaseUrl(config.databaseUrl);
  switch (code) {
    case "ECONNREFUSED":
    case "DatabaseNotReachable":
    case "ENOTFOUND":
    case "EHOSTUNREACH":
    case "ETIMEDOUT":
      return `DATABASE_URL: cannot reach the database server of ${where} (${code}); is PostgreSQL running there?`;
    case "3D000":
    case "DatabaseDoesNotExist":
      return `DATABASE_URL: the database of ${where} does not exist; create it (CREATE DATABASE) or fix the URL`;
    case "28P01":
    case "AuthenticationFailed":
      return `DATABASE_URL: the server refused the password of ${where}`;
    case "28000":
      // No such role, or no pg_hba.conf line lets it in: the server's own words say which.
      return `DATABASE_URL: the server refused the user of ${where}${message ? `: ${message}` : ""}`;
    case "SQLITE_CANTOPEN":
    case "ENOENT":
    case "EACCES":
    case "ENOTDIR":
    case "EROFS":
    case "EEXIST":
      return `DATABASE_URL: cannot open or create the SQLite database ${where} (${code}); check the folder exists and may be written`;
    case "08P01":
      return poolerMessage(message, where);
    case "SQLITE_NOTADB":
      return `DATABASE_URL: ${where} is not an SQLite database`;
    default:
      if (/Can't reach database server|connect ECONNREFUSED/i.test(message))
        return `DATABASE_URL: cannot reach the database server of ${where}`;
      if (/^timeout expired$|connection timeout/i.test(message))
        return `DATABASE_URL: no answer from ${where} within ${CONNECT_TIMEOUT_MS / 1000} s; behind a pooler such as PgBouncer, is PostgreSQL running behind it?`;
      return null;
  }
}

/**
 * What PgBouncer says as it refuses a connection (all as protocol violations, 08P01), said as
 * what to fix: its [databases], its auth_file, the server behind it, or the settings sent.
 */
function poolerMessage(message: string, where: string): string {
  if (/startup parameter/i.test(message))
    return `DATABASE_URL: the server refused a setting the service sends as it connects (${message}); behind a pooler such as PgBouncer, set DATABASE_SESSION_SETTINGS=role and give the role the settings (docs/operating.md, "Behind PgBouncer")`;
  if (/no such database/i.test(message))
    return `DATABASE_URL: the pooler at ${where} knows no such database (${message}); add it to PgBouncer's [databases] or fix the URL`;
  if (/password authentication failed|no such user|not allowed|auth/i.test(message))
    return `DATABASE_URL: the pooler at ${where} refused the user or its password (${message}); list the user, with its password, in PgBouncer's auth_file (or its auth_query)`;
  if (/server down|server login|cannot connect|server conn crashed/i.test(message))
    return `DATABASE_URL: the pooler at ${where} cannot reach its PostgreSQL server (${message}); is PostgreSQL running behind it?`;
  return `DATABASE_URL: ${where} refused the connection: ${message}`;
}

export function portStartupMessage(error: unknown, config: Config): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EADDRINUSE")
    return `PORT: ${config.host}:${config.port} is already in use by another program; choose another PORT or stop that program`;
  if (code === "EACCES")
    return `PORT: not allowed to listen on ${config.host}:${config.port} (ports below 1024 need privileges); choose another PORT`;
  if (code === "EADDRNOTAVAIL") return `HOST: ${config.host} is not an address of this machine`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `HOST: ${config.host} is not a name this machine can resolve; give one of its addresses (0.0.0.0 for all)`;
  return null;
}
