import type { Express } from "express";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import type { Server } from "node:http";
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../../generated/api-types";
import { createApp, serviceMetrics } from "../../src/app";
import { loadConfig, type Config } from "../../src/config";
import { openDatabase, type Database } from "../../src/db/database";
import type { Language } from "../../src/i18n/languages";
import { createHttpServer } from "../../src/http/server-limits";
import { createLogger } from "../../src/logging/logger";
import { WebhookWorker } from "../../src/resources/webhooks/webhook-worker";
import { createTestDatabase, type TestDatabase } from "./test-database";
import { itemSnapshot } from "../../src/item-snapshots";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export type Api = Client<paths>;

export interface RawResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RawRequest {
  body?: unknown;
  /** Sent as is, instead of `body` as JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  /** The application the server serves, as the service's process builds it. */
  app: Express;
  origin: string;
  /** `http://127.0.0.1:<port>/calendar/events/v1` */
  base: string;
  config: Config;
  db: Database;
  /** Typed client of the REST root (default language), anonymous. */
  api: Api;
  /** Typed client authenticated with the bootstrap administrator key. */
  admin: Api;
  /** Typed client of a language prefix (`/es/calendar/events/v1`). */
  apiIn(language: Language, headers?: Record<string, string>): Api;
  /** Typed client with the given Authorization header. */
  as(authorization: string): Api;
  /** A request outside the typed client's reach (invalid input, raw paths), relative to the origin. */
  raw(method: string, path: string, request?: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

export const ADMIN_HEADERS = { Authorization: `Bearer ${ADMIN_TOKEN}` };

function client(baseUrl: string, headers: Record<string, string> = {}): Api {
  // Lists go out comma-separated, as WordPress clients send them.
  return createClient<paths>({ baseUrl, headers, querySerializer: { array: { style: "form", explode: false } } });
}

/**
 * The service on an ephemeral port, over a fresh database, validating every response against
 * the spec (so a test that gets an answer also proves the answer matches the contract).
 */
export interface TestServerOptions {
  clock?: () => Date;
  /** Collects every log line (JSON) the service writes, at level info and above. */
  logLines?: string[];
  /** The URL the service connects to, made from the test database's (to go through a proxy). */
  connectThrough?: (databaseUrl: string) => string;
  /** Runs a webhook delivery worker beside the app, as the service does. */
  deliverWebhooks?: boolean;
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const database: TestDatabase = await createTestDatabase();
  // Suites send hundreds of requests a second from one address: the rate limit has tests of its own.
  const databaseUrl = options.connectThrough ? options.connectThrough(database.url) : database.url;
  const config = loadConfig({
    CALENDAR_ADMIN_TOKEN: ADMIN_TOKEN,
    VALIDATE_RESPONSES: "true",
    RATE_LIMIT_PER_MINUTE: "0",
    // fetch (undici) closes its idle connections after 4 s; a server that closed them first could
    // do so just as a request was sent on one ("fetch failed" under load): here the client always does.
    KEEP_ALIVE_TIMEOUT_SECONDS: "300",
    DATABASE_URL: databaseUrl,
    ...env,
  });
  const db = await openDatabase(config);
  const logLines = options.logLines;
  const logger = logLines
    ? createLogger(
        "info",
        new Writable({
          write: (chunk, _encoding, done) => (logLines.push(...String(chunk).trim().split("\n")), done()),
        }),
      )
    : createLogger(process.env.TEST_LOG_LEVEL ?? "silent");
  const metrics = serviceMetrics(db);
  const app = createApp({ config, db, logger, clock: options.clock, metrics });
  const webhooks = new WebhookWorker(db, config, logger, itemSnapshot, (result) =>
    metrics.webhookAttempts.inc({ result }),
  );
  if (options.deliverWebhooks) webhooks.start();
  const server: Server = await new Promise((resolve) => {
    const listening = createHttpServer(app, config).listen(0, "127.0.0.1", () => resolve(listening));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const root = `${origin}${config.restRoot}/calendar/events/v1`;
  return {
    app,
    origin,
    base: root,
    config,
    db,
    api: client(root),
    admin: client(root, ADMIN_HEADERS),
    apiIn: (language, headers) => client(`${origin}/${language}${config.restRoot}/calendar/events/v1`, headers),
    as: (authorization) => client(root, { Authorization: authorization }),
    async raw(method, path, request = {}) {
      const headers: Record<string, string> = { ...request.headers };
      let body: string | undefined;
      if (request.rawBody !== undefined) body = request.rawBody;
      else if (request.body !== undefined) {
        body = JSON.stringify(request.body);
        headers["Content-Type"] ??= "application/json";
      }
      const response = await fetch(`${origin}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (an HTML page, an empty body): `text` has it.
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await webhooks.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
      await database.drop();
    },
  };
}
