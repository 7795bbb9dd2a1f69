// An import run and the process running it (issue 58): SIGTERM stops a run between two events,
// records it as interrupted and exits within the stop budget; the next run takes it up without
// writing anything twice. A run whose process is killed is seen as interrupted by any instance as
// soon as its lease (written every third of it, a heartbeat) runs out, and the source runs again.
import { startFeedServer, type FeedServer } from "./support/feed-server";
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, type TestDatabase } from "./support/test-database";

jest.setTimeout(180_000);

const TOKEN = "import-stops-admin-token-0123456789";
const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
const EVENTS = 150;

let feeds: FeedServer;
let database: TestDatabase;

beforeAll(async () => {
  feeds = await startFeedServer();
  const vevents = Array.from({ length: EVENTS }, (_, at) => [
    "BEGIN:VEVENT",
    `UID:stop-${at}@example.org`,
    `DTSTART:2027${String(1 + (at % 12)).padStart(2, "0")}${String(1 + (at % 28)).padStart(2, "0")}T${String(8 + (at % 12)).padStart(2, "0")}0000Z`,
    "DURATION:PT1H",
    `SUMMARY:Stopped run ${at}`,
    `DESCRIPTION:${"An event of a long feed. ".repeat(20)}`,
    "END:VEVENT",
  ]);
  feeds.feeds.set("/long.ics", ["BEGIN:VCALENDAR", "VERSION:2.0", ...vevents.flat(), "END:VCALENDAR", ""].join("\r\n"));
});
afterAll(async () => {
  await feeds?.close();
});
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  await database?.drop();
});

const serviceOn = (env: Record<string, string> = {}) =>
  startServiceProcess({
    DATABASE_URL: database.url,
    CALENDAR_ADMIN_TOKEN: TOKEN,
    IMPORT_ALLOW_PRIVATE_SOURCES: "true",
    IMPORT_RUN_WAIT_MS: "0",
    IMPORT_SCHEDULE: "false",
    ...env,
  });

async function call(service: ServiceProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const imported = async (service: ServiceProcess) =>
  Number(
    (
      await fetch(`${service.base}/events?search=Stopped&start_date=2027-01-01&end_date=2027-12-31&per_page=1`)
    ).headers.get("x-wp-total"),
  );

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("the condition was not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a run and its process", () => {
  it("stops between two events on SIGTERM, within the stop budget, and the next run takes it up", async () => {
    const first = await serviceOn();
    let source: number;
    try {
      source = (await call(first, "POST", "/imports", { url: feeds.urlOf("/long.ics"), frequency: "daily" })).body.id;
      expect((await call(first, "POST", `/imports/${source}/run`)).status).toBe(202);
      await waitFor(async () => (await imported(first)) > 10);
    } finally {
      const stopping = Date.now();
      await first.stop("SIGTERM");
      // The documented stop budget is SHUTDOWN_GRACE_SECONDS + REQUEST_TIMEOUT_SECONDS (40 s); a run ends at its next event.
      expect(Date.now() - stopping).toBeLessThan(10_000);
    }
    const second = await serviceOn();
    try {
      const [run] = (await call(second, "GET", `/imports/${source!}/runs`)).body.runs;
      expect(run).toMatchObject({
        status: "failed",
        error: "interrupted: the process running it stopped; the next run takes it up",
      });
      const before = await imported(second);
      expect(before).toBeLessThan(EVENTS);
      const sourceNow = (await call(second, "GET", `/imports/${source!}`)).body;
      expect(Date.parse(sourceNow.next_run_at)).toBeLessThanOrEqual(Date.now());
      expect((await call(second, "POST", `/imports/${source!}/run`)).status).toBe(202);
      await waitFor(
        async () => (await call(second, "GET", `/imports/${source!}/runs`)).body.runs[0].status !== "running",
      );
      const [again] = (await call(second, "GET", `/imports/${source!}/runs`)).body.runs;
      expect(again).toMatchObject({ status: "succeeded", created: EVENTS - before, failed: 0 });
      expect(await imported(second)).toBe(EVENTS);
    } finally {
      await second.stop();
    }
  });

  it("is seen as interrupted by any instance once its killed process's lease runs out, and may run again", async () => {
    const first = await serviceOn({ IMPORT_RUN_LEASE_MS: "3000" });
    const source = (await call(first, "POST", "/imports", { url: feeds.urlOf("/long.ics"), frequency: "manual" })).body
      .id;
    expect((await call(first, "POST", `/imports/${source}/run`)).status).toBe(202);
    await waitFor(async () => (await imported(first)) > 10);
    await first.stop("SIGKILL");
    const second = await serviceOn({ IMPORT_RUN_LEASE_MS: "3000" });
    try {
      const killedAt = Date.now();
      await waitFor(
        async () => (await call(second, "GET", `/imports/${source}/runs`)).body.runs[0].status === "failed",
        10_000,
      );
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      expect((await call(second, "GET", `/imports/${source}`)).body.last_run).toMatchObject({
        status: "failed",
        error: "interrupted: the process running it stopped",
      });
      expect((await call(second, "POST", `/imports/${source}/run`)).status).toBe(202);
      await waitFor(
        async () => (await call(second, "GET", `/imports/${source}/runs`)).body.runs[0].status !== "running",
      );
      expect(await imported(second)).toBe(EVENTS);
    } finally {
      await second.stop();
    }
  });
});
