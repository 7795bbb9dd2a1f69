// A database that cannot be reached (refused connections, a restart, a write lock held too long)
// is `503 rest_service_unavailable` with Retry-After, on any operation, and one log line per
// request, not a stack trace; the service serves again as soon as the database is back. And a
// start-up that cannot succeed (no database, a port taken, a bad setting) says why in one line.
import { spawn } from "node:child_process";
import { createServer, connect, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Prisma } from "../generated/prisma/sqlite/client";
import { openDatabase, sqlitePath } from "../src/db/database";
import { freePort, startServiceProcess } from "./support/service-process";
import { createTestDatabase, testDatabaseProvider } from "./support/test-database";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

const root = "/calendar/events/v1";

function expectUnavailable(response: { status: number; body: any; headers: Headers }) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(response.body).toEqual({
    code: "rest_service_unavailable",
    message: "The service cannot reach its database just now; try again after the number of seconds in Retry-After.",
    data: { status: 503 },
  });
}

/** A TCP proxy to PostgreSQL that can refuse and drop every connection, as an outage does. */
class Outage {
  private readonly sockets = new Set<Socket>();
  private down = false;
  readonly server: Server;

  constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
  }

  begin(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  end(): void {
    this.down = false;
  }
}

const onPostgres = testDatabaseProvider() === "postgresql" ? describe : describe.skip;
const onSqlite = testDatabaseProvider() === "sqlite" ? describe : describe.skip;

onPostgres("PostgreSQL refusing and dropping connections", () => {
  let outage: Outage;
  let server: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    const port = await freePort();
    let target = { host: "127.0.0.1", port: 5432 };
    server = await startTestServer(
      {},
      {
        logLines,
        connectThrough: (url) => {
          const parsed = new URL(url);
          target = { host: parsed.hostname, port: Number(parsed.port || 5432) };
          parsed.host = `127.0.0.1:${port}`;
          return parsed.toString();
        },
      },
    );
    outage = new Outage(target);
    await new Promise<void>((listening) => outage.server.listen(port, "127.0.0.1", listening));
    // The service connected while the proxy was not up yet; it reconnects through it now.
  });
  afterAll(async () => {
    await server.close();
    outage.server.close();
  });

  it("answers reads and writes with 503 and Retry-After while the database is away, and serves again after", async () => {
    expect((await server.raw("GET", `${root}/events`)).status).toBe(200);
    outage.begin();
    try {
      expectUnavailable(await server.raw("GET", `${root}/events`));
      expectUnavailable(await server.raw("GET", `${root}/events/1`));
      expectUnavailable(await server.raw("POST", `${root}/tags`, { body: { name: "Lost" }, headers: ADMIN_HEADERS }));
      expect((await server.raw("GET", "/readyz")).status).toBe(503);
    } finally {
      outage.end();
    }
    expect((await server.raw("POST", `${root}/tags`, { body: { name: "Back" }, headers: ADMIN_HEADERS })).status).toBe(
      201,
    );
    const failures = logLines
      .map((line) => JSON.parse(line))
      .filter((line) => line.level === "warn" || line.level === "error");
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((line) => line.msg === "database unavailable" && line.err === undefined)).toBe(true);
  });
});

onPostgres("workers through a database outage (issue 45)", () => {
  it("replace a worker that dies while the database is away, and serve again when it is back", async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const parsed = new URL(database.url);
    const outage = new Outage({ host: parsed.hostname, port: Number(parsed.port || 5432) });
    await new Promise<void>((listening) => outage.server.listen(port, "127.0.0.1", listening));
    parsed.host = `127.0.0.1:${port}`;
    const service = await startServiceProcess({ DATABASE_URL: parsed.toString() }, { workers: 2 });
    try {
      const pids = () => service.logs.filter((line) => line.msg === "listening").map((line) => line.pid);
      const workers = pids();
      expect(workers).toHaveLength(2);
      outage.begin();
      // A worker dies during the outage; its replacements cannot start while it lasts.
      process.kill(workers[0] as number, "SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      expect(service.child.exitCode).toBeNull();
      outage.end();
      await service.waitForLog((line) => line.msg === "listening", 3, 60_000);
      const health = await fetch(`${service.origin}/readyz`);
      expect(health.status).toBe(200);
    } finally {
      outage.end();
      await service.stop();
      outage.server.close();
      await database.drop();
    }
  }, 150_000);
});

onPostgres("connections cut under concurrent writes, two workers (issue 58)", () => {
  it("ends no process, answers every request (201, or 503 with Retry-After), loses nothing acknowledged, and writes again after", async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const parsed = new URL(database.url);
    const outage = new Outage({ host: parsed.hostname, port: Number(parsed.port || 5432) });
    await new Promise<void>((listening) => outage.server.listen(port, "127.0.0.1", listening));
    parsed.host = `127.0.0.1:${port}`;
    const service = await startServiceProcess(
      { DATABASE_URL: parsed.toString(), CALENDAR_ADMIN_TOKEN: "outage-admin-token-0123456789" },
      { workers: 2 },
    );
    const headers = { Authorization: "Bearer outage-admin-token-0123456789", "Content-Type": "application/json" };
    try {
      const workers = service.logs.filter((line) => line.msg === "listening").map((line) => line.pid);
      expect(workers).toHaveLength(2);
      const answers: Array<{ status: number; retryAfter: string | null; id?: number } | { failed: string }> = [];
      let writing = true;
      const writer = async (client: number) => {
        for (let at = 0; writing; at++) {
          try {
            const response = await fetch(`${service.base}/events`, {
              method: "POST",
              headers,
              body: JSON.stringify({
                title: `Cut ${client}-${at}`,
                start_date: "2027-05-01 10:00",
                end_date: "2027-05-01 11:00",
              }),
              signal: AbortSignal.timeout(40_000),
            });
            const body = (await response.json()) as { id?: number };
            answers.push({ status: response.status, retryAfter: response.headers.get("retry-after"), id: body.id });
          } catch (error) {
            answers.push({ failed: String(error) });
          }
        }
      };
      const writers = Array.from({ length: 8 }, (_, client) => writer(client));
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      outage.begin();
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      outage.end();
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      writing = false;
      await Promise.all(writers);
      expect(answers.filter((answer) => "failed" in answer)).toEqual([]);
      const statuses = new Set(answers.map((answer) => ("status" in answer ? answer.status : 0)));
      expect([...statuses].filter((status) => status !== 201 && status !== 503)).toEqual([]);
      expect(
        answers.filter((answer) => "status" in answer && answer.status === 503 && answer.retryAfter === null),
      ).toEqual([]);
      expect(statuses.has(503)).toBe(true);
      // Every write answered 201 is there.
      for (const answer of answers)
        if ("status" in answer && answer.status === 201)
          expect((await fetch(`${service.base}/events/${answer.id}`, { headers })).status).toBe(200);
      // No worker died: the two that listened are the two that answer, and none was started since.
      expect(service.child.exitCode).toBeNull();
      expect(service.logs.filter((line) => line.msg === "listening").map((line) => line.pid)).toEqual(workers);
      expect(
        (
          await fetch(`${service.base}/events`, {
            method: "POST",
            headers,
            body: JSON.stringify({ title: "After", start_date: "2027-05-02 10:00", end_date: "2027-05-02 11:00" }),
          })
        ).status,
      ).toBe(201);
    } finally {
      outage.end();
      await service.stop();
      outage.server.close();
      await database.drop();
    }
  }, 120_000);
});

onSqlite("SQLite with its write lock held past the busy timeout", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("answers a write with 503 and Retry-After, and still answers reads", async () => {
    const holder = new BetterSqlite3(sqlitePath(server.config.databaseUrl));
    holder.exec("BEGIN EXCLUSIVE");
    try {
      expectUnavailable(
        await server.raw("POST", `${root}/tags`, { body: { name: "Waiting" }, headers: ADMIN_HEADERS }),
      );
      expect((await server.raw("GET", `${root}/tags`)).status).toBe(200);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(
      (await server.raw("POST", `${root}/tags`, { body: { name: "Written" }, headers: ADMIN_HEADERS })).status,
    ).toBe(201);
  });
});

describe("a start-up that cannot succeed", () => {
  /** Starts the service as `npm start` would; resolves with its exit code and its output. */
  function start(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
    return new Promise((done) => {
      const child = spawn(process.execPath, ["--import", "tsx", resolve(__dirname, "../src/server.ts")], {
        cwd: resolve(__dirname, ".."),
        env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.on("exit", (code) => done({ code, lines: output.trim().split("\n") }));
    });
  }

  it.each([
    [
      "a bad LOG_LEVEL",
      { LOG_LEVEL: "loud", DATABASE_URL: "file::memory:" },
      /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"$/,
    ],
    [
      "an unreachable database",
      { DATABASE_URL: "postgresql://calendar:secret@127.0.0.1:1/calendar" },
      /^DATABASE_URL: cannot reach the database server of postgresql:\/\/calendar:\*\*\*@127\.0\.0\.1:1\/calendar/,
    ],
    [
      "a missing database",
      { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/calendar_does_not_exist" },
      /^DATABASE_URL: the database of .* does not exist/,
    ],
    [
      "an SQLite file under a file",
      { DATABASE_URL: `file:${__filename}/calendar.db` },
      /^DATABASE_URL: cannot open or create the SQLite database/,
    ],
  ])("says so in one line naming the setting: %s", async (_name, env, message) => {
    const { code, lines } = await start({ PORT: String(await freePort()), ...env });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: "fatal" });
    expect(line.msg).toMatch(message);
    expect(lines[0]).not.toContain("stack");
  });

  it.each([
    [
      "a TRUST_PROXY that is not one",
      { TRUST_PROXY: "sometimes" },
      /^TRUST_PROXY must be true, false, .*not "sometimes"$/,
    ],
    ["a HOST that is not an address", { HOST: "999.1.1.1" }, /^HOST must be an IP address .*not "999\.1\.1\.1"$/],
    [
      "an OTEL_TRACES_EXPORTER the SDK does not have",
      { OTEL_TRACES_EXPORTER: "otlp,jaeger" },
      /^OTEL_TRACES_EXPORTER must list otlp, zipkin, console, none \(comma-separated\), not "otlp,jaeger"$/,
    ],
    [
      "an OTLP endpoint that is no URL (issue 58)",
      { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" },
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL \(http:\/\/collector:4318\), not "not a url"$/,
    ],
    ["a HOST no resolver knows", { HOST: "no-such-host.invalid" }, /^HOST: no-such-host\.invalid is not a name/],
    ["a PostgreSQL URL without a server", { DATABASE_URL: "postgresql://" }, /^DATABASE_URL names no server/],
    [
      "an SQLite folder that cannot be made",
      { DATABASE_URL: "file:/proc/calendar-never/calendar.db" },
      /^DATABASE_URL: cannot open or create the SQLite database \/proc\/calendar-never\/calendar\.db \(ENOENT\)/,
    ],
    [
      "a PostgreSQL user the server does not know",
      { DATABASE_URL: "postgresql://nobody@127.0.0.1:5432/postgres" },
      /^DATABASE_URL: the server refused the user of .*: role "nobody" does not exist$/,
    ],
    [
      "an empty database not to be migrated",
      { MIGRATE_ON_START: "false" },
      /^MIGRATE_ON_START=false, and the database lacks \d+ migration/,
    ],
    [
      "an empty database not to be migrated, with workers",
      { MIGRATE_ON_START: "false", WORKERS: "2" },
      /^MIGRATE_ON_START=false, and the database lacks \d+ migration/,
    ],
    [
      "a database that refuses the workers' user",
      { WORKERS: "2", DATABASE_URL: "postgresql://nobody@127.0.0.1:5432/postgres" },
      /^DATABASE_URL: the server refused the user/,
    ],
  ])("says so in one line, before it migrates anything: %s", async (_name, env, message) => {
    const port = await freePort();
    const database = resolve(__dirname, "../data", `never-made-${port}.db`);
    const { code, lines } = await start({ PORT: String(port), DATABASE_URL: `file:${database}`, ...env });
    expect([code, lines.length]).toEqual([1, 1]);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: "fatal" });
    expect(line.msg).toMatch(message);
    expect(require("node:fs").existsSync(database)).toBe(false);
  });

  it("finds a port in use before it migrates anything", async () => {
    const taken = createServer();
    const port = await freePort();
    await new Promise<void>((listening) => taken.listen(port, "127.0.0.1", listening));
    try {
      const database = resolve(__dirname, "../data", `never-made-${port}.db`);
      const { code, lines } = await start({ PORT: String(port), DATABASE_URL: `file:${database}` });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]).msg).toBe(
        `PORT: 127.0.0.1:${port} is already in use by another program; choose another PORT or stop that program`,
      );
      expect(require("node:fs").existsSync(database)).toBe(false);
    } finally {
      taken.close();
    }
  });
});

onPostgres("statement limits", () => {
  it("end a service statement at its limit, and leave a bulk job's (no limit) to run past the margin", async () => {
    const database = await createTestDatabase();
    const limited = await openDatabase({ databaseUrl: database.url, databasePoolSize: 1, statementTimeoutMs: 1_000 });
    const bulk = await openDatabase({ databaseUrl: database.url, databasePoolSize: 1, statementTimeoutMs: 0 });
    try {
      await expect(limited.direct.rows(Prisma.sql`SELECT pg_sleep(2)`)).rejects.toThrow(/statement timeout/);
      // Longer than the client's margin over a limit (5 s): a seed's or a rebuild's statement.
      await expect(bulk.direct.rows(Prisma.sql`SELECT 1 AS "done" FROM pg_sleep(6)`)).resolves.toEqual([{ done: 1 }]);
    } finally {
      await limited.close();
      await bulk.close();
      await database.drop();
    }
  });
});
