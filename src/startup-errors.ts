import { providerOf, sqlitePath } from "./db/database";
import type { Config } from "./config";

/**
 * Start-up failures a new operator meets (the database cannot be reached, does not exist or
 * refuses the credentials; the port is taken), said in one line that names the setting to fix,
 * instead of a stack trace. Null for anything else, which is a bug and keeps its stack.
 */

/** DATABASE_URL as it can be shown: its password left out. */
function shownUrl(databaseUrl: string): string {
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
  const where = shownUrl(config.databaseUrl);
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
      // PgBouncer in transaction mode refuses the settings the service sends as it connects.
      return /startup parameter/i.test(message)
        ? `DATABASE_URL: the server refused a setting the service sends as it connects (${message}); behind a pooler such as PgBouncer, set DATABASE_SESSION_SETTINGS=role and give the role the settings (docs/operating.md, "Behind PgBouncer")`
        : null;
    case "SQLITE_NOTADB":
      return `DATABASE_URL: ${where} is not an SQLite database`;
    default:
      return /Can't reach database server|connect ECONNREFUSED/i.test(message)
        ? `DATABASE_URL: cannot reach the database server of ${where}`
        : null;
  }
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
