// /metrics (Prometheus text, prom-client): request durations by operation and status, the
// representation cache, the webhooks' queues and attempts, the PostgreSQL pool, Node's event-loop
// lag; at the origin and in the namespace; with workers, the sum of every worker's figures (a figure
// of the database, once).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "./support/test-database";
import { startServiceProcess } from "./support/service-process";
import { loadBundledSpec, operationsOf } from "../src/openapi/spec";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/database";
import { webhookQueueDepths } from "../src/resources/webhooks/webhook-repository";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const root = "/calendar/events/v1";

/** The value of one sample of the page (`name{labels} value`), or undefined. */
function sample(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of page.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => given[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(path = "/metrics"): Promise<string> {
  const response = await server.raw("GET", path);
  expect([response.status, response.headers.get("content-type")]).toEqual([
    200,
    "text/plain; version=0.0.4; charset=utf-8",
  ]);
  return response.text;
}

describe("GET /metrics", () => {
  it("counts and times requests by operation and status, unmatched ones too", async () => {
    const before = await scrape();
    const count = (page: string, operation: string, status: string) =>
      sample(page, "http_server_request_duration_seconds_count", { operation, method: "GET", status }) ?? 0;
    for (let i = 0; i < 3; i += 1) await server.raw("GET", `${root}/events`);
    await server.raw("GET", `${root}/events/99999999`);
    await server.raw("GET", `${root}/no-such-route`);
    const after = await scrape();
    expect(count(after, "listEvents", "200") - count(before, "listEvents", "200")).toBe(3);
    expect(count(after, "getEvent", "404") - count(before, "getEvent", "404")).toBe(1);
    expect(count(after, "unmatched", "404") - count(before, "unmatched", "404")).toBe(1);
    expect(
      sample(after, "http_server_request_duration_seconds_bucket", {
        operation: "listEvents",
        status: "200",
        le: "+Inf",
      }),
    ).toBe(count(after, "listEvents", "200"));
    expect(sample(after, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  });

  it("labels a request its operation refused with that operation, and counts one that only claims to be the warm-up", async () => {
    const before = await scrape();
    const count = (page: string, operation: string, method: string, status: string) =>
      sample(page, "http_server_request_duration_seconds_count", { operation, method, status }) ?? 0;
    // Refused before validation (no credential, then one that may not): still createEvent's requests.
    await server.raw("POST", `${root}/events`, { body: { title: "x" } });
    await server.raw("POST", `${root}/events`, { body: { title: "x" }, headers: { Authorization: "Bearer wrong" } });
    // The warm-up's header with any value but this process's secret is an ordinary request.
    await server.raw("GET", `${root}/events`, { headers: { "X-Calendar-Warm-Up": "1" } });
    await server.raw("GET", `${root}/events`, { headers: { "X-Calendar-Warm-Up": "" } });
    const after = await scrape();
    expect(count(after, "createEvent", "POST", "401") - count(before, "createEvent", "POST", "401")).toBe(2);
    expect(count(after, "unmatched", "POST", "401") - count(before, "unmatched", "POST", "401")).toBe(0);
    expect(count(after, "listEvents", "GET", "200") - count(before, "listEvents", "GET", "200")).toBe(2);
  });

  it("answers in the namespace too, with its prefixes, and at the origin without a rate limit", async () => {
    for (const path of [`${root}/metrics`, `/es${root}/metrics`]) expect(await scrape(path)).toContain("# TYPE ");
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: "2" });
    try {
      for (let i = 0; i < 5; i += 1) expect((await limited.raw("GET", "/metrics")).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("shows the representation cache's hits and misses and what it holds", async () => {
    const created = await server.raw("POST", `${root}/events`, {
      body: { title: "Measured", start_date: "+3 days 10:00", end_date: "+3 days 11:00" },
      headers: ADMIN_HEADERS,
    });
    const before = await scrape();
    const lookups = (page: string, result: string) =>
      sample(page, "calendar_representation_cache_lookups_total", { result }) ?? 0;
    await server.raw("GET", `${root}/events/${created.body.id}`);
    await server.raw("GET", `${root}/events/${created.body.id}`);
    const after = await scrape();
    expect(lookups(after, "hit") - lookups(before, "hit")).toBeGreaterThanOrEqual(1);
    expect(lookups(after, "miss") - lookups(before, "miss")).toBeGreaterThanOrEqual(1);
    expect(sample(after, "calendar_representation_cache_bytes")).toBeGreaterThan(0);
  });

  it("shows the webhooks' queues: changes waiting to become notifications, notifications waiting to be sent", async () => {
    // This server's worker does not deliver: what is written waits.
    const hook = await server.raw("POST", `${root}/webhooks`, {
      body: { url: "https://hooks.example.org/calendar", event_types: ["event.created"] },
      headers: ADMIN_HEADERS,
    });
    expect(hook.status).toBe(201);
    const queued = (page: string, queue: string) => sample(page, "calendar_webhook_queue", { queue }) ?? -1;
    const before = await scrape();
    await server.raw("POST", `${root}/events`, {
      body: { title: "Queued", start_date: "+4 days 10:00", end_date: "+4 days 11:00" },
      headers: ADMIN_HEADERS,
    });
    const after = await scrape();
    expect(queued(after, "change_log") + queued(after, "deliveries")).toBeGreaterThan(
      queued(before, "change_log") + queued(before, "deliveries"),
    );
  });

  it("counts delivery attempts by result", async () => {
    const receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((listening) => receiver.listen(0, "127.0.0.1", listening));
    const delivering = await startTestServer(
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_POLL_MS: "20" },
      { deliverWebhooks: true },
    );
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await delivering.raw("POST", `${root}/webhooks`, {
        body: { url, event_types: ["tag.created"] },
        headers: ADMIN_HEADERS,
      });
      expect(hook.status).toBe(201);
      await delivering.raw("POST", `${root}/tags`, { body: { name: "Counted" }, headers: ADMIN_HEADERS });
      const delivered = async () =>
        sample((await delivering.raw("GET", "/metrics")).text, "calendar_webhook_delivery_attempts_total", {
          result: "delivered",
        });
      for (let tries = 0; (await delivered()) === undefined && tries < 200; tries += 1)
        await new Promise((wait) => setTimeout(wait, 25));
      expect(await delivered()).toBe(1);
    } finally {
      await delivering.close();
      receiver.close();
    }
  });

  (testDatabaseProvider() === "postgresql" ? it : it.skip)("shows the PostgreSQL pool's connections", async () => {
    const page = await scrape();
    expect(sample(page, "calendar_db_pool_max_connections")).toBe(server.config.databasePoolSize);
    expect(sample(page, "calendar_db_pool_connections", { state: "idle" })).toBeGreaterThanOrEqual(0);
    expect(sample(page, "calendar_db_pool_connections", { state: "busy" })).toBeGreaterThanOrEqual(0);
  });
});

/** The spec's operations: what a starting service warms (writes as far as validation). */
const OPERATIONS = operationsOf(loadBundledSpec()).length;

describe("GET /metrics with workers", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it("shows a figure of the database once, not multiplied by the workers (issue 45)", async () => {
    const token = "metrics-admin-token-0123456789";
    const service = await startServiceProcess(
      { DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: token, WEBHOOK_DELIVERY: "false" },
      { workers: 2 },
    );
    const db = await openDatabase(loadConfig({ DATABASE_URL: database.url }));
    try {
      const write = (path: string, body: object) =>
        fetch(`${service.base}${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      await write("/webhooks", { url: "https://hooks.example.org/calendar", event_types: ["tag.created"] });
      for (const name of ["Queued one", "Queued two", "Queued three"]) await write("/tags", { name });
      const depths = await webhookQueueDepths(db);
      expect(depths.changes + depths.deliveries).toBeGreaterThan(0);
      for (let scrape = 0; scrape < 3; scrape += 1) {
        const page = await (await fetch(`${service.origin}/metrics`, { headers: { Connection: "close" } })).text();
        expect([
          sample(page, "calendar_webhook_queue", { queue: "change_log" }),
          sample(page, "calendar_webhook_queue", { queue: "deliveries" }),
        ]).toEqual([depths.changes, depths.deliveries]);
      }
    } finally {
      await db.close();
      await service.stop();
    }
  });

  it("sums every worker's figures, whichever worker answers the scrape", async () => {
    const service = await startServiceProcess({ DATABASE_URL: database.url }, { workers: 2 });
    try {
      const requests = 40;
      // New connections each time, so that both workers take some.
      for (let i = 0; i < requests; i += 1)
        expect((await fetch(`${service.origin}/healthz`, { headers: { Connection: "close" } })).status).toBe(200);
      const counts = [];
      for (let i = 0; i < 4; i += 1) {
        const page = await (await fetch(`${service.origin}/metrics`, { headers: { Connection: "close" } })).text();
        counts.push(
          sample(page, "http_server_request_duration_seconds_count", { operation: "getHealth", status: "200" }),
        );
      }
      expect(counts).toEqual([requests, requests, requests, requests]);
      // Each worker sent itself a request of every operation once it listened (src/http/warm-up.ts):
      // neither the request log nor the metrics count them.
      const warmed = service.logs.filter((line) => line.msg === "warmed up");
      expect(warmed.map((line) => line.requests)).toEqual([OPERATIONS, OPERATIONS]);
      const page = await (await fetch(`${service.origin}/metrics`)).text();
      expect(sample(page, "http_server_request_duration_seconds_count", { operation: "listEvents" })).toBeUndefined();
      const logged = service.logs.filter((line) => line.msg === "request").map((line) => line.url);
      expect(logged.filter((url) => url !== "/healthz" && url !== "/metrics")).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
