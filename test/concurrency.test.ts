// Concurrency: many creates of the same title at once all succeed with unique slugs; reads and
// writes mixed at once, in one process and in two processes on one database, never fail: no
// "database is locked" on SQLite, no deadlock on PostgreSQL (nor any other 5xx).
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, type TestDatabase } from "./support/test-database";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(120_000);

// The SQLSTATEs as words: a request id (a UUID) holds "40001" among its hex digits now and then.
const LOCK_TROUBLE = /database is locked|SQLITE_BUSY|deadlock|\b40P01\b|\b40001\b/i;

interface Target {
  base: string;
}

async function call(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Writers that create, update and trash events and venues (all linked to the same category, so
 * that they contend for its count) while readers list and search; resolves with every status.
 */
async function mixedLoad(targets: Target[], categoryId: number, rounds: number): Promise<number[]> {
  const statuses: number[] = [];
  const pick = (i: number) => targets[i % targets.length];
  const writer = async (w: number) => {
    for (let i = 0; i < rounds; i += 1) {
      const target = pick(w + i);
      const created = await call(target, "POST", "/events", {
        title: `Contended ${w}-${i}`,
        start_date: `+${1 + (i % 5)} days 10:00`,
        end_date: `+${1 + (i % 5)} days 12:00`,
        categories: [categoryId],
      });
      statuses.push(created.status);
      if (created.status !== 201) continue;
      statuses.push(
        (
          await call(pick(w + i + 1), "PATCH", `/events/${created.body.id}`, {
            title: `Contended ${w}-${i} renamed`,
            featured: true,
          })
        ).status,
      );
      statuses.push((await call(target, "POST", "/venues", { venue: `Contended hall ${w}` })).status);
      if (i % 3 === 0) statuses.push((await call(pick(w + i + 1), "DELETE", `/events/${created.body.id}`)).status);
    }
  };
  const reader = async (r: number) => {
    for (let i = 0; i < rounds * 2; i += 1) {
      const target = pick(r + i);
      statuses.push(
        (await call(target, "GET", i % 2 === 0 ? "/events?per_page=20" : "/events?search=contended")).status,
      );
      statuses.push((await call(target, "GET", `/categories/${categoryId}`)).status);
    }
  };
  await Promise.all([
    ...Array.from({ length: 8 }, (_, w) => writer(w)),
    ...Array.from({ length: 8 }, (_, r) => reader(r)),
  ]);
  return statuses;
}

describe("in one process", () => {
  let server: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({}, { logLines });
  });
  afterAll(() => server.close());

  it("gives 50 concurrent creates of the same title 50 unique slugs", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(server, "POST", "/events", { title: "Same title", start_date: "+2 days", end_date: "+2 days 1 hour" }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(results.map(() => 201));
    const slugs = results.map((result) => result.body.slug as string);
    expect(new Set(slugs).size).toBe(50);
    expect(slugs).toContain("same-title");
    expect(slugs.every((slug) => /^same-title(-\d+)?$/.test(slug))).toBe(true);
  });

  it("serves mixed concurrent reads and writes without a single failure", async () => {
    const category = await call(server, "POST", "/categories", { name: "Contended" });
    const statuses = await mixedLoad([server], category.body.id, 6);
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
    expect(logLines.filter((line) => LOCK_TROUBLE.test(line))).toEqual([]);
    // The count the writers contended for is right: events not trashed, all published.
    const count = await call(server, "GET", `/categories/${category.body.id}`);
    const listed = await call(server, "GET", `/events?categories=${category.body.id}&per_page=1`);
    expect(count.body.count).toBe(listed.body.total);
  });
});

describe("in two processes on one database", () => {
  const TOKEN = ADMIN_HEADERS.Authorization.replace("Bearer ", "");
  let database: TestDatabase;
  let services: ServiceProcess[];
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: TOKEN };
    services = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await database.drop();
  });

  it("serves mixed concurrent reads and writes through both without a single failure", async () => {
    const category = await call(services[0], "POST", "/categories", { name: "Shared and contended" });
    const statuses = await mixedLoad(services, category.body.id, 5);
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
    const troubles = services.flatMap((service) =>
      service.logs.filter((line) => LOCK_TROUBLE.test(JSON.stringify(line))),
    );
    expect(troubles).toEqual([]);
  });
});
