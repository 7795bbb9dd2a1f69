// Several instances and workers on one database: what one writes, the others read; creates that
// race for the same slug all succeed with unique slugs; migrations run once; workers share the
// port; a stopping cluster stops every worker cleanly.
import { Client } from "pg";
import { insertRowReturningId } from "../src/db/row-writes";
import { isUniqueViolation, retryOnSlugClash } from "../src/resources/post-kernel/unique-slug";
import { openDatabase } from "../src/db/database";
import { migrate, PG_MIGRATION_LOCK_KEY } from "../src/db/migrate";
import { inTransaction } from "../src/db/transaction";
import { writeEarlierSearchDocument } from "./support/search-documents";
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "./support/test-database";

jest.setTimeout(90_000);

const TOKEN = "scale-out-admin-token-0123456789";
const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

async function post(base: string, path: string, body: unknown) {
  const response = await fetch(`${base}${path}`, { method: "POST", headers: auth, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

async function get(base: string, path: string, headers: Record<string, string> = auth) {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, body: (await response.json()) as any };
}

describe("two instances on one database", () => {
  let database: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: TOKEN };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database.drop();
  });

  it("reads through one what was written through the other", async () => {
    const venue = await post(a.base, "/venues", { venue: "Shared hall" });
    const event = await post(b.base, "/events", {
      title: "Shared event",
      start_date: "+2 days",
      end_date: "+2 days 2 hours",
      venue: [venue.body.id],
    });
    expect(event.status).toBe(201);
    expect((await get(a.base, `/events/${event.body.id}`)).body).toMatchObject({
      title: "Shared event",
      venue: { id: venue.body.id },
    });
    await fetch(`${a.base}/events/${event.body.id}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ title: "Renamed through A" }),
    });
    expect((await get(b.base, `/events/${event.body.id}`)).body.title).toBe("Renamed through A");
    expect((await get(b.base, "/events?search=renamed")).body.total).toBe(1);
    await fetch(`${b.base}/events/${event.body.id}`, { method: "DELETE", headers: auth });
    expect((await get(a.base, `/events/${event.body.id}`)).body.code).toBe("event-no-longer-available");
  });

  it("finds at start the search documents an earlier version wrote beside it, and writes them again", async () => {
    const event = await post(a.base, "/events", {
      title: "Lantern parade",
      start_date: "+2 days",
      end_date: "+2 days 2 hours",
    });
    const db = await openDatabase({ databaseUrl: database.url, databasePoolSize: 1 });
    await writeEarlierSearchDocument(db, event.body.id, ["lantern", "parade"]);
    await db.close();
    // The searches that read the documents read those this version writes only: everyone's on
    // SQLite; on PostgreSQL an editor's (everyone's read the events' words, which the database keeps).
    const readsDocuments = testDatabaseProvider() === "postgresql" ? auth : {};
    expect((await get(a.base, "/events?search=lantern", readsDocuments)).body.total).toBe(0);

    const c = await startServiceProcess({ DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: TOKEN });
    try {
      const [written] = await c.waitForLog(
        (line) => line.msg === "search documents of an earlier version written again",
      );
      expect(written.events).toBe(1);
      expect(
        (await get(a.base, "/events?search=lantern", readsDocuments)).body.events.map((e: { id: number }) => e.id),
      ).toEqual([event.body.id]);
    } finally {
      await c.stop();
    }
  });

  it("gives every one of many creates racing for the same slug, through both instances, a unique slug", async () => {
    const creates = Array.from({ length: 40 }, (_, i) =>
      post(i % 2 === 0 ? a.base : b.base, "/events", {
        title: "Race for the slug",
        start_date: "+3 days",
        end_date: "+3 days 1 hour",
      }),
    );
    const venueCreates = Array.from({ length: 20 }, (_, i) =>
      post(i % 2 === 0 ? a.base : b.base, "/venues", { venue: "Racing venue" }),
    );
    const results = await Promise.all([...creates, ...venueCreates]);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const eventSlugs = results.slice(0, 40).map((r) => r.body.slug);
    expect(new Set(eventSlugs).size).toBe(40);
    expect(eventSlugs).toContain("race-for-the-slug");
    expect(eventSlugs).toContain("race-for-the-slug-40");
    expect(new Set(results.slice(40).map((r) => r.body.slug)).size).toBe(20);
  });

  it("counts term use right when instances write events of the same category at once", async () => {
    const category = await post(a.base, "/categories", { name: "Busy category" });
    const creates = Array.from({ length: 20 }, (_, i) =>
      post(i % 2 === 0 ? a.base : b.base, "/events", {
        title: `Counted ${i}`,
        start_date: "+4 days",
        end_date: "+4 days 1 hour",
        categories: [category.body.id],
      }),
    );
    expect((await Promise.all(creates)).every((r) => r.status === 201)).toBe(true);
    expect((await get(b.base, `/categories/${category.body.id}`)).body.count).toBe(20);
  });
});

describe("workers", () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await service?.stop("SIGKILL");
    await database.drop();
  });

  it("serves from several workers, migrates once, replaces a worker that dies, and stops them all on SIGTERM", async () => {
    service = await startServiceProcess({ DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: TOKEN }, { workers: 2 });
    const listening = service.logs.filter((line) => line.msg === "listening");
    expect(new Set(listening.map((line) => line.pid)).size).toBe(2);
    expect(listening.every((line) => line.pid !== service.child.pid)).toBe(true);
    // The test database was migrated when it was made: nothing was left to apply, by anyone.
    expect(service.logs.filter((line) => line.msg === "migrations applied")).toEqual([]);

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(service.base, "/tags", { name: `Tag ${i}` })),
    );
    expect(responses.every((r) => r.status === 201)).toBe(true);
    expect((await get(service.base, "/tags?hide_empty=false&per_page=50")).body.total).toBe(20);

    process.kill(listening[0].pid as number, "SIGKILL");
    await service.waitForLog((line) => line.msg === "worker died; starting another");
    await service.waitForLog((line) => line.msg === "listening", 3);
    expect((await get(service.base, "/tags?hide_empty=false")).status).toBe(200);

    const code = await service.stop("SIGTERM");
    expect(code).toBe(0);
    expect(service.logs.filter((line) => line.msg === "stopping").length).toBe(3);
    expect(service.logs.filter((line) => line.msg === "stopped" && line.pid === service.child.pid)).toHaveLength(1);
  });
});

describe("the slug retry", () => {
  it("recognizes the database's own unique violation, and tries again", async () => {
    const database = await createTestDatabase();
    const db = await openDatabase({ databaseUrl: database.url, databasePoolSize: 2 });
    try {
      const user = await db.write.user.create({ data: { login: "retry", displayName: "r", role: "editor" } });
      // Through the service's own door for writes (the driver's errors, not Prisma's).
      const venue = (slug: string) =>
        db.transact((tx) =>
          insertRowReturningId(tx, "Venue", {
            authorId: user.id,
            status: "publish",
            sourceLanguage: "en",
            slug,
            postDate: new Date(),
            createdAt: new Date(),
            modifiedAt: new Date(),
          }),
        );
      await venue("taken");
      const duplicate = await venue("taken").catch((error: unknown) => error);
      expect(isUniqueViolation(duplicate)).toBe(true);
      let attempts = 0;
      const created = await retryOnSlugClash(() => venue(++attempts === 1 ? "taken" : "taken-2"));
      const stored = await db.read.venue.findUniqueOrThrow({ where: { id: created }, select: { slug: true } });
      expect([attempts, stored.slug]).toEqual([2, "taken-2"]);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});

// SQLite runs one write transaction at a time, so two cannot deadlock there.
const onPostgres = testDatabaseProvider() === "postgresql" ? it : it.skip;

describe("deadlocks", () => {
  onPostgres("runs a transaction again when the database aborts it to break a deadlock", async () => {
    const database = await createTestDatabase();
    const db = await openDatabase({ databaseUrl: database.url, databasePoolSize: 4 });
    try {
      const [first, second] = [
        await db.write.user.create({ data: { login: "first", displayName: "1", role: "editor" } }),
        await db.write.user.create({ data: { login: "second", displayName: "2", role: "editor" } }),
      ];
      let arrived = 0;
      let release!: () => void;
      const barrier = new Promise<void>((resolve) => (release = resolve));
      const attempts = { a: 0, b: 0 };
      // Each locks one row, waits until the other has locked the other row (first attempt
      // only), then wants the other's: a deadlock the database breaks by aborting one.
      const transfer = (name: "a" | "b", from: number, to: number) =>
        inTransaction(db, async (tx) => {
          attempts[name] += 1;
          await tx.$executeRaw`UPDATE "User" SET "displayName" = ${name} WHERE "id" = ${from}`;
          if (attempts[name] === 1 && ++arrived === 2) release();
          if (attempts[name] === 1) await barrier;
          await tx.$executeRaw`UPDATE "User" SET "displayName" = ${name} WHERE "id" = ${to}`;
        });
      await Promise.all([transfer("a", first.id, second.id), transfer("b", second.id, first.id)]);
      expect(attempts.a + attempts.b).toBe(3);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});

describe("migrations waiting for another instance's (issue 45)", () => {
  const onPostgres = testDatabaseProvider() === "postgresql" ? it : it.skip;

  onPostgres("wait as long as the other's take, whatever the role's statement limit", async () => {
    const server = process.env.TEST_DATABASE_URL!;
    const name = `calendar_test_lock_${Date.now()}`;
    const admin = new Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    // As the recipe for PgBouncer sets it on the role: every statement at most 1 s here.
    await admin.query(`ALTER DATABASE "${name}" SET statement_timeout = '1s'`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    const other = new Client({ connectionString: url.toString() });
    await other.connect();
    try {
      // Another instance migrating: it holds the lock for 3 s.
      await other.query("BEGIN");
      await other.query("SET LOCAL statement_timeout = 0");
      await other.query("SELECT pg_advisory_xact_lock($1)", [PG_MIGRATION_LOCK_KEY]);
      const started = Date.now();
      const migrating = migrate(url.toString());
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await other.query("COMMIT");
      const result = await migrating;
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      expect(result.applied.length).toBeGreaterThan(0);
    } finally {
      await other.end();
      await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
