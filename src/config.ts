import { availableParallelism } from "node:os";
import ipaddr from "ipaddr.js";
import { IANAZone } from "luxon";
import { LANGUAGES, isLanguage, type Language } from "./i18n/languages";
import { LOG_LEVELS, type LogLevel } from "./logging/logger";
import { TRACE_EXPORTERS, traceExportersOf } from "./tracing/tracing";

export interface Config {
  logLevel: LogLevel;
  port: number;
  host: string;
  databaseUrl: string;
  /** The bootstrap administrator key; null when not configured. */
  adminToken: string | null;
  /** Path prefix before the namespace: "" (the default) or e.g. "/wp-json". */
  restRoot: string;
  siteTimezone: string;
  defaultLanguage: Language;
  perPageDefault: number;
  perPageMax: number;
  /** Origin of the public site that `url` permalinks point to; null = the origin of the request. */
  siteUrl: string | null;
  /** Origin this API is reached at (behind a proxy); null = the origin of the request. */
  publicUrl: string | null;
  /** Express "trust proxy" setting, so that X-Forwarded-Proto/Host give the request origin. */
  trustProxy: boolean | number | string;
  /** Validate every response against the spec (on in tests; costly in production). */
  validateResponses: boolean;
  /** Apply pending migrations when the service starts. */
  migrateOnStart: boolean;
  /** Maximum connections per process to PostgreSQL. */
  databasePoolSize: number;
  /** PostgreSQL: statements prepared once per connection, or sent unnamed (see DatabaseOptions). */
  databasePreparedStatements: boolean;
  /** PostgreSQL: the session settings sent as each connection opens, or brought by the role (see DatabaseOptions). */
  databaseSessionSettings: "startup" | "role";
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** WordPress's `_jsonp` answers (http/jsonp.ts); off, `_jsonp` is refused. */
  jsonp: boolean;
  /** HTTP worker processes (Node's cluster module); 1 = no cluster. */
  workers: number;
  /** How long a stopping process lets requests under way finish, in milliseconds. */
  shutdownGraceMs: number;
  /** Origins allowed to call from browsers: "*" (any), a list, or none (an empty list). */
  corsOrigins: "*" | string[];
  /** Requests per minute per client address (bursts up to the same number); 0 = no limit. */
  rateLimitPerMinute: number;
  /** Longest time a client may take to send a whole request, and its headers, in milliseconds. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, in milliseconds. */
  keepAliveTimeoutMs: number;
  /** How long tombstones of deleted items stay in the sync log; older sync tokens expire (410). */
  syncRetentionDays: number;
  /** Most events an iCalendar feed holds (feeds are not paged). */
  feedMaxEvents: number;
  /** The most bytes an iCalendar feed may have (FEED_MAX_BYTES): it is cut at the last event that fits. */
  feedMaxBytes: number;
  /** How far ahead the occurrences of recurring events are made, in days (event-recurrence.ts). */
  recurrenceHorizonDays: number;
  /** Bytes of representations kept for anonymous readers (sync/representation-cache.ts); 0 = none. */
  representationCacheBytes: number;
  webhooks: WebhookConfig;
  imports: ImportConfig;
}

/** How import sources are fetched and run (src/resources/imports/). */
export interface ImportConfig {
  /** Whether this process runs the sources that are due (every process may; each run is made by one). */
  schedule: boolean;
  /** Whether sources may be on loopback and private addresses (link-local ones never may). */
  allowPrivateSources: boolean;
  /** How long fetching a feed may take, redirects and all, in milliseconds. */
  timeoutMs: number;
  /** The most bytes a feed may have, once decompressed. */
  maxBytes: number;
  /** The most VEVENTs a feed may have. */
  maxEvents: number;
  /** How long reading a fetched feed may take, in its worker thread, in milliseconds. */
  readDeadlineMs: number;
  /** The heap of the thread that reads feeds, in megabytes. */
  readMemoryMb: number;
  /** How often a process looks for due sources, in milliseconds. */
  pollMs: number;
  /** How long `POST /imports/{id}/run` waits for the run before answering 202, in milliseconds. */
  runWaitMs: number;
  /** Runs that fail in a row before a source is paused. */
  maxFailures: number;
  /** How long a run holds its source without a heartbeat (written every third of it), in milliseconds. */
  runLeaseMs: number;
}

/** How notifications are delivered (src/resources/webhooks/). */
export interface WebhookConfig {
  /** Whether this process sends notifications (every process may; each delivery is sent by one). */
  deliver: boolean;
  /** Whether receivers may be on loopback and private addresses (link-local ones never may). */
  allowPrivateTargets: boolean;
  /** How long a receiver has to answer, in milliseconds. */
  timeoutMs: number;
  /** The wait before the first retry; each retry waits twice as long as the one before, up to maxRetryDelayMs. */
  firstRetryMs: number;
  maxRetryDelayMs: number;
  /** How long a notification is retried, from when it was made; then it has failed. */
  retryPeriodMs: number;
  /** How often a worker looks for notifications to send when it found none, in milliseconds. */
  pollMs: number;
  /** Notifications a process sends at once. */
  concurrency: number;
  /** How long sent and failed notifications stay in the delivery log, in days. */
  logRetentionDays: number;
  /** Most notifications a subscription keeps waiting (WEBHOOK_MAX_WAITING); past it the oldest are dropped for a webhook.gap notice. */
  maxWaiting: number;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, not "${raw}"`);
}

/** One of `choices` (`fallback`, the first by default, when unset). */
function oneOf<T extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  choices: readonly [T, ...T[]],
  fallback: T = choices[0],
): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${choices.join(", ")}, not "${raw}"`);
  return raw as T;
}

function origin(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, not "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an absolute http(s) URL, not "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

function restRoot(raw: string | undefined): string {
  if (raw === undefined || raw === "" || raw === "/") return "";
  if (!/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/.test(raw)) {
    throw new ConfigError(`REST_ROOT must be a path such as /wp-json, not "${raw}"`);
  }
  const root = raw.replace(/\/+$/, "");
  const first = root.split("/")[1];
  if (isLanguage(first)) throw new ConfigError(`REST_ROOT cannot start with a language prefix ("${first}")`);
  return root;
}

function corsOrigins(raw: string | undefined): "*" | string[] {
  if (raw === undefined || raw.trim() === "*") return "*";
  const origins = raw
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of origins) {
    let url: URL | null = null;
    try {
      url = new URL(item);
    } catch {
      // reported below
    }
    if (!url || url.origin !== item)
      throw new ConfigError(
        `CORS_ORIGINS must be "*" or origins such as https://example.org, comma-separated, not "${item}"`,
      );
  }
  return origins;
}

function isIpAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(":") && ipaddr.IPv6.isValid(text));
}

/** Express's "trust proxy": true/false, a number of hops, or addresses, ranges and the names proxy-addr knows. */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === "") return false;
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === "true";
  if (/^\d+$/.test(raw)) return Number(raw);
  const bad = raw
    .split(",")
    .map((item) => item.trim())
    .find((item) => {
      if (/^(loopback|linklocal|uniquelocal)$/.test(item)) return false;
      const [address, prefix, ...rest] = item.split("/");
      return rest.length > 0 || !isIpAddress(address) || (prefix !== undefined && !/^\d{1,3}$/.test(prefix));
    });
  if (bad !== undefined)
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a number of proxies, or addresses and ranges (10.0.0.0/8, loopback, linklocal, uniquelocal), comma-separated; not "${bad}"`,
    );
  return raw;
}

/** An address to listen on: an IP address or a host name. */
function host(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "0.0.0.0";
  const hostName =
    /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  if (isIpAddress(raw) || (hostName.test(raw) && !/^[\d.]+$/.test(raw))) return raw;
  throw new ConfigError(
    `HOST must be an IP address of this machine (0.0.0.0 for all, :: for all IPv6) or a host name, not "${raw}"`,
  );
}

/** A PostgreSQL URL must say which server: a host, or a socket folder in `?host=`. */
function postgresUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a URL: postgresql://user:password@host:5432/database`);
  }
  if (url.hostname === "" && !url.searchParams.get("host"))
    throw new ConfigError(
      `DATABASE_URL names no server: write it as postgresql://user:password@host:5432/database, not "${raw}"`,
    );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const siteTimezone = env.SITE_TIMEZONE || "UTC";
  if (!IANAZone.isValidZone(siteTimezone)) {
    throw new ConfigError(`SITE_TIMEZONE must be an IANA time zone such as Europe/Lisbon, not "${siteTimezone}"`);
  }
  const defaultLanguage = env.DEFAULT_LANGUAGE || "en";
  if (!isLanguage(defaultLanguage)) {
    throw new ConfigError(`DEFAULT_LANGUAGE must be one of ${LANGUAGES.join(", ")}, not "${defaultLanguage}"`);
  }
  const perPageMax = integer(env, "PER_PAGE_MAX", 50, 1, 1000);
  const perPageDefault = integer(env, "PER_PAGE_DEFAULT", Math.min(10, perPageMax), 1, perPageMax);
  const databaseUrl = env.DATABASE_URL || "file:./data/calendar.db";
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be a file: URL (SQLite) or a postgresql:// URL, not "${databaseUrl}"`);
  }
  if (databaseUrl.startsWith("postgres")) postgresUrl(databaseUrl);
  const adminToken = env.CALENDAR_ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError("CALENDAR_ADMIN_TOKEN must be at least 16 characters long");
  }
  const requestTimeoutSeconds = integer(env, "REQUEST_TIMEOUT_SECONDS", 30, 1, 3600);
  const headersTimeoutSeconds = integer(env, "HEADERS_TIMEOUT_SECONDS", Math.min(10, requestTimeoutSeconds), 1, 3600);
  if (headersTimeoutSeconds > requestTimeoutSeconds) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_SECONDS (${headersTimeoutSeconds}) cannot be more than REQUEST_TIMEOUT_SECONDS (${requestTimeoutSeconds})`,
    );
  }
  // The SDK would only warn through a logger nobody set, and start without tracing.
  if (traceExportersOf(env) === "unknown")
    throw new ConfigError(
      `OTEL_TRACES_EXPORTER must list ${TRACE_EXPORTERS.join(", ")} (comma-separated), not "${env.OTEL_TRACES_EXPORTER}"`,
    );
  for (const name of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) {
    const endpoint = env[name]?.trim();
    if (endpoint && !/^https?:$/.test(URL.canParse(endpoint) ? new URL(endpoint).protocol : ""))
      throw new ConfigError(`${name} must be an http(s) URL (http://collector:4318), not "${env[name]}"`);
  }
  return {
    logLevel: oneOf<LogLevel>(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    port: integer(env, "PORT", 8080, 0, 65535),
    host: host(env.HOST),
    databaseUrl,
    adminToken,
    restRoot: restRoot(env.REST_ROOT),
    siteTimezone,
    defaultLanguage,
    perPageDefault,
    perPageMax,
    siteUrl: origin(env, "SITE_URL"),
    publicUrl: origin(env, "PUBLIC_URL"),
    trustProxy: trustProxy(env.TRUST_PROXY),
    validateResponses: flag(env, "VALIDATE_RESPONSES", false),
    migrateOnStart: flag(env, "MIGRATE_ON_START", true),
    databasePoolSize: integer(env, "DATABASE_POOL_SIZE", 10, 1, 1000),
    databasePreparedStatements: flag(env, "DATABASE_PREPARED_STATEMENTS", true),
    databaseSessionSettings: oneOf(env, "DATABASE_SESSION_SETTINGS", ["startup", "role"] as const),
    bodyLimitBytes: integer(env, "BODY_LIMIT_BYTES", 1_048_576, 1024, 100 * 1_048_576),
    jsonp: flag(env, "JSONP", true),
    // 0 means one worker per core.
    workers: integer(env, "WORKERS", 1, 0, 256) || availableParallelism(),
    shutdownGraceMs: integer(env, "SHUTDOWN_GRACE_SECONDS", 10, 0, 3600) * 1000,
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    rateLimitPerMinute: integer(env, "RATE_LIMIT_PER_MINUTE", 1200, 0, 1_000_000),
    requestTimeoutMs: requestTimeoutSeconds * 1000,
    headersTimeoutMs: headersTimeoutSeconds * 1000,
    keepAliveTimeoutMs: integer(env, "KEEP_ALIVE_TIMEOUT_SECONDS", 5, 1, 3600) * 1000,
    syncRetentionDays: integer(env, "SYNC_RETENTION_DAYS", 30, 1, 3650),
    feedMaxEvents: integer(env, "FEED_MAX_EVENTS", 1000, 1, 10_000),
    feedMaxBytes: integer(env, "FEED_MAX_BYTES", 16_777_216, 65_536, 268_435_456),
    recurrenceHorizonDays: integer(env, "RECURRENCE_HORIZON_DAYS", 365, 30, 3650),
    representationCacheBytes: integer(env, "REPRESENTATION_CACHE_MB", 16, 0, 4096) * 1_048_576,
    webhooks: {
      deliver: flag(env, "WEBHOOK_DELIVERY", true),
      allowPrivateTargets: flag(env, "WEBHOOK_ALLOW_PRIVATE_TARGETS", false),
      timeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 300_000),
      firstRetryMs: integer(env, "WEBHOOK_FIRST_RETRY_MS", 5_000, 10, 3_600_000),
      maxRetryDelayMs: integer(env, "WEBHOOK_MAX_RETRY_DELAY_SECONDS", 3_600, 1, 86_400) * 1000,
      retryPeriodMs: integer(env, "WEBHOOK_RETRY_PERIOD_SECONDS", 86_400, 1, 30 * 86_400) * 1000,
      pollMs: integer(env, "WEBHOOK_POLL_MS", 1_000, 10, 600_000),
      concurrency: integer(env, "WEBHOOK_CONCURRENCY", 8, 1, 256),
      logRetentionDays: integer(env, "WEBHOOK_LOG_RETENTION_DAYS", 7, 1, 3650),
      maxWaiting: integer(env, "WEBHOOK_MAX_WAITING", 1_000, 10, 1_000_000),
    },
    imports: {
      schedule: flag(env, "IMPORT_SCHEDULE", true),
      allowPrivateSources: flag(env, "IMPORT_ALLOW_PRIVATE_SOURCES", false),
      timeoutMs: integer(env, "IMPORT_TIMEOUT_MS", 30_000, 100, 600_000),
      maxBytes: integer(env, "IMPORT_MAX_BYTES", 10_485_760, 1024, 268_435_456),
      maxEvents: integer(env, "IMPORT_MAX_EVENTS", 5_000, 1, 100_000),
      // The last guard only: a reading's cost is bounded by counts (bytes, VEVENTs, dates).
      readDeadlineMs: integer(env, "IMPORT_READ_DEADLINE_MS", 60_000, 100, 600_000),
      readMemoryMb: integer(env, "IMPORT_READ_MEMORY_MB", 256, 32, 8192),
      pollMs: integer(env, "IMPORT_POLL_MS", 60_000, 10, 3_600_000),
      runWaitMs: integer(env, "IMPORT_RUN_WAIT_MS", 10_000, 0, 600_000),
      maxFailures: integer(env, "IMPORT_MAX_FAILURES", 5, 1, 1000),
      runLeaseMs: integer(env, "IMPORT_RUN_LEASE_MS", 30_000, 3_000, 600_000),
    },
  };
}
