// The benchmark's statement anchor measures what it says: the statements the service runs for a
// write, recorded in a service process (bench/record-statements.ts), and the anchor's run of them
// for another request (bench/statement-anchor-server.ts) making that request's own rows.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openDatabase, type Database } from "../src/db/database";
import { RECORD_HEADER, type RecordedStatement } from "../bench/recording";
import { freePort, startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, type TestDatabase } from "./support/test-database";

const ROOT = resolve(__dirname, "..");
const TOKEN = "anchor-test-admin-token-0123456789";
const BASE = "/calendar/events/v1";
const WRITE = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
const createBody = (title: string) =>
  JSON.stringify({ title, start_date: "2031-05-04 19:00", end_date: "2031-05-04 21:00", cost: "$10" });

let database: TestDatabase;
let db: Database;
let folder: string;
let service: ServiceProcess | undefined;
let anchor: ChildProcess | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await openDatabase({ databaseUrl: database.url, databasePoolSize: 2 });
  folder = mkdtempSync(join(tmpdir(), "anchor-"));
  // Event ids from 5,001, as the benchmark patches ids above 1,000: the anchor takes a recorded
  // value equal to the path's id for the id, which a small id would share with a flag's 1.
  await db.write.$executeRawUnsafe(
    db.provider === "postgresql"
      ? `SELECT setval('"Event_id_seq"', 5000)`
      : `INSERT INTO sqlite_sequence ("name", "seq") VALUES ('Event', 5000)`,
  );
});

afterAll(async () => {
  await service?.stop();
  anchor?.kill("SIGTERM");
  await db.close();
  await database.drop();
  rmSync(folder, { recursive: true, force: true });
});

async function recorded(path: string, init: RequestInit): Promise<{ body: string; statements: RecordedStatement[] }> {
  const file = join(folder, "statements.jsonl");
  writeFileSync(file, "");
  const response = await fetch(`${service!.origin}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), [RECORD_HEADER]: "1" },
  });
  expect(response.status).toBeLessThan(300);
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  return { body: await response.text(), statements: lines.map((line) => JSON.parse(line) as RecordedStatement) };
}

async function startStatementAnchor(): Promise<string> {
  const port = await freePort();
  anchor = spawn(process.execPath, ["--import", "tsx", resolve(ROOT, "bench/statement-anchor-server.ts")], {
    cwd: ROOT,
    env: { ...process.env, STATEMENT_DATABASE_URL: database.url, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const origin = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    if (
      await fetch(`${origin}/__ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return origin;
    await new Promise((wait) => setTimeout(wait, 50));
  }
  throw new Error("the statement anchor did not start");
}

async function replayed(origin: string, method: string, path: string, body: string): Promise<Response> {
  return fetch(`${origin}${path}`, { method, headers: WRITE, body });
}

const titled = (title: string) =>
  db.read.eventText.findFirst({ where: { title, language: "en" }, select: { eventId: true, slug: true } });

test("a write's statements, recorded in the service and run by the anchor for another request, make that request's rows", async () => {
  service = await startServiceProcess(
    {
      DATABASE_URL: database.url,
      CALENDAR_ADMIN_TOKEN: TOKEN,
      RECORD_STATEMENTS_FILE: join(folder, "statements.jsonl"),
    },
    { nodeArgs: ["--require", "tsx/cjs", "--require", resolve(ROOT, "bench/record-statements.ts")] },
  );
  // The first write of a database makes its administrator: the benchmark's database has one.
  await fetch(`${service.base}/events`, { method: "POST", headers: WRITE, body: createBody("First event") });
  // A read sent at the same time, without the header, is not recorded among the write's statements.
  const [create] = await Promise.all([
    recorded(`${BASE}/events`, { method: "POST", headers: WRITE, body: createBody("Recorded event 7") }),
    fetch(`${service.base}/events/by-slug/unrecorded-slug`),
  ]);
  const createdId = (JSON.parse(create.body) as { id: number }).id;
  const patch = await recorded(`${BASE}/events/${createdId}`, {
    method: "PATCH",
    headers: WRITE,
    body: JSON.stringify({ sticky: true, cost: "$12" }),
  });
  await service.stop();
  service = undefined;

  const sql = create.statements.map((statement) => statement.sql).join("\n");
  expect(sql).toMatch(/INSERT INTO "Event"/);
  expect(sql).toMatch(/INSERT INTO "EventText"/);
  expect(sql).toMatch(/\bCOMMIT\b/);
  expect(create.statements.flatMap((statement) => statement.values)).not.toContain("unrecorded-slug");
  expect(patch.statements.map((statement) => statement.sql).join("\n")).toMatch(/UPDATE "Event" SET/);

  const origin = await startStatementAnchor();
  const put = await fetch(`${origin}/__statements`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      path: `${BASE}/events`,
      body: createBody("Recorded event 7"),
      statements: create.statements,
    }),
  });
  expect(put.status).toBe(204);
  // Twice, each with a title of its own: each makes its own event, with its own slug, no clash.
  for (const title of ["Replayed event 70", "Replayed event 71"])
    expect((await replayed(origin, "POST", `${BASE}/events`, createBody(title))).status).toBe(200);
  const [first, second] = [await titled("Replayed event 70"), await titled("Replayed event 71")];
  expect(first?.slug).toBe("replayed-event-70");
  expect(second?.slug).toBe("replayed-event-71");
  expect(new Set([createdId, first!.eventId, second!.eventId]).size).toBe(3);
  const replayedTexts = await db.read.eventText.count({ where: { eventId: second!.eventId } });
  expect(replayedTexts).toBe(await db.read.eventText.count({ where: { eventId: createdId } }));

  // The patch recorded for one event, run for another, changes that one.
  await fetch(`${origin}/__statements`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ path: `${BASE}/events/${createdId}`, body: "", statements: patch.statements }),
  });
  const before = await db.read.event.findUniqueOrThrow({ where: { id: second!.eventId } });
  expect((await replayed(origin, "PATCH", `${BASE}/events/${second!.eventId}`, "")).status).toBe(200);
  const after = await db.read.event.findUniqueOrThrow({ where: { id: second!.eventId } });
  expect([before.cost, before.sticky]).toEqual(["$10", false]);
  expect([after.cost, after.sticky, after.version]).toEqual(["$12", true, before.version + 1]);
});
