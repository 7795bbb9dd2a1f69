// Hostile sources, at the highest time limit a source may be given (issue 57): pages of junk that
// never end, series whose extra dates a window must read, a gzip bomb, lists whose pages go on for
// ever. Each run ends (failed, with a message naming the bound), the process lives, `/healthz`
// answers promptly throughout, and nothing the source did not bring is touched. One budget per
// run counts what a remote site sends (src/resources/imports/run-budget.ts).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { startFeedServer, type FeedServer } from "../support/feed-server";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "../support/test-server";

jest.setTimeout(300_000);

const root = "/calendar/events/v1";
/** The 200 ms, with room for a loaded machine (as test/timing/bounded-work.test.ts). */
const LOOP_BOUND_MS = 600;

let server: TestServer;
let fixtures: FeedServer;
let bystander: { id: number; modified: string };

beforeAll(async () => {
  server = await startTestServer({
    IMPORT_ALLOW_PRIVATE_SOURCES: "true",
    IMPORT_TIMEOUT_MS: "600000",
    IMPORT_RUN_WAIT_MS: "600000",
    RATE_LIMIT_PER_MINUTE: "0",
  });
  fixtures = await startFeedServer();
  bystander = (
    await server.raw("POST", `${root}/events`, {
      body: { title: "Made here", start_date: "2027-03-01 10:00", end_date: "2027-03-01 11:00" },
      headers: ADMIN_HEADERS,
    })
  ).body;
});
afterAll(async () => {
  await server?.close();
  await fixtures?.close();
});

/** Runs a source while probing `/healthz` and the event loop; the run's record, and the worst of both. */
async function runWatched(url: string, extra: Record<string, unknown> = {}) {
  const created = await server.raw("POST", `${root}/imports`, {
    body: { url, frequency: "manual", ...extra },
    headers: ADMIN_HEADERS,
  });
  expect(created.status).toBe(201);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let healthMs = 0;
  let done = false;
  const probes = (async () => {
    while (!done) {
      const started = performance.now();
      const health = await server.raw("GET", "/healthz");
      expect(health.status).toBe(200);
      healthMs = Math.max(healthMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const ran = await server.raw("POST", `${root}/imports/${created.body.id}/run`, { headers: ADMIN_HEADERS });
  done = true;
  await probes;
  histogram.disable();
  expect(ran.status).toBe(200);
  return { run: ran.body, healthMs, loopDelayMs: histogram.max / 1e6 };
}

const ourEvent = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  global_id: `junk.example?id=${id}&type=event`,
  title: `Event ${id}`,
  start_date: "2040-06-01 10:00:00",
  end_date: "2040-06-01 11:00:00",
  timezone: "UTC",
  ...fields,
});

afterEach(async () => {
  // What the sources did not bring is as it was.
  const after = (await server.raw("GET", `${root}/events/${bystander.id}`, { headers: ADMIN_HEADERS })).body;
  expect([after.title, after.modified, after.status]).toEqual(["Made here", bystander.modified, "publish"]);
});

describe("a hostile REST source, given ten minutes", () => {
  it("of pages of junk that never end: the items are counted, the run fails, the process lives", async () => {
    const junk = JSON.stringify({ events: Array(5_000).fill(0), total: 5_000_000_000, total_pages: 1_000_000 });
    fixtures.dynamic.set("/junk/calendar/events/v1/events", () => ({ body: junk }));
    const { run, healthMs, loopDelayMs } = await runWatched(fixtures.urlOf("/junk/calendar/events/v1/events"));
    expect(run).toMatchObject({
      status: "failed",
      error: "the source lists more than 5000 events (IMPORT_MAX_EVENTS)",
    });
    expect(run.failed).toBe(5_000);
    expect(run.errors).toHaveLength(100);
    expect([healthMs, loopDelayMs].every((ms) => ms < LOOP_BOUND_MS)).toBe(true);
  });

  it("of pages that never end: the requests are counted, the run fails", async () => {
    fixtures.dynamic.set("/endless/calendar/events/v1/events", (url) => {
      const page = Number(url.searchParams.get("page"));
      return { body: JSON.stringify({ events: [ourEvent(page)], total: 1, total_pages: 1_000_000 }) };
    });
    const { run, healthMs } = await runWatched(fixtures.urlOf("/endless/calendar/events/v1/events"), {
      window: { days: 1 },
    });
    expect(run).toMatchObject({ status: "failed", error: "the source's pages do not end" });
    expect(healthMs).toBeLessThan(LOOP_BOUND_MS);
  });

  it("of series with long lists of extra dates, and a window: the dates are counted, the loop stays free", async () => {
    const rdates = (from: number) =>
      Array.from({ length: 366 }, (_, day) =>
        new Date(Date.UTC(2040, 0, 1 + from + day, 10)).toISOString().slice(0, 19).replace("T", " "),
      );
    const series = Array.from({ length: 450 }, (_, at) =>
      ourEvent(10_000 + at, { recurrence: { rrule: "FREQ=YEARLY;COUNT=2", rdate: rdates(at), exdate: [] } }),
    );
    const pages = (page: number) => series.slice((page - 1) * 50, page * 50);
    fixtures.dynamic.set("/dates/calendar/events/v1/events", (url) => {
      const page = Number(url.searchParams.get("page"));
      return { body: JSON.stringify({ events: pages(page), total: series.length, total_pages: 9 }) };
    });
    const { run, healthMs, loopDelayMs } = await runWatched(fixtures.urlOf("/dates/calendar/events/v1/events"), {
      window: { days: 3650 },
    });
    expect(run).toMatchObject({ status: "failed", error: expect.stringContaining("extra and excluded dates") });
    expect([healthMs, loopDelayMs].every((ms) => ms < LOOP_BOUND_MS)).toBe(true);
  });

  it("of a gzip bomb: the bytes are counted once decompressed, the run fails", async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, " "));
    fixtures.dynamic.set("/bomb/calendar/events/v1/events", () => ({
      headers: { "content-encoding": "gzip" },
      body: bomb,
    }));
    const { run, healthMs } = await runWatched(fixtures.urlOf("/bomb/calendar/events/v1/events"));
    expect(run).toMatchObject({ status: "failed", error: expect.stringContaining("IMPORT_MAX_BYTES") });
    expect(healthMs).toBeLessThan(LOOP_BOUND_MS);
  });
});
