// Behind PgBouncer in transaction mode (Debian's pgbouncer 1.18, started here as an operator
// would): the service migrates through it, says in one line what to set when the pooler refuses
// the settings it sends as it connects (DATABASE_SESSION_SETTINGS=role) and when the role lacks
// them, and with the role's settings serves two instances with workers: concurrent writes all
// land, and the statement limit holds on every connection PgBouncer hands out.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { pgBouncerInstalled, startPgBouncer, type PgBouncer } from "./support/pgbouncer";
import { freePort, startServiceProcess, type ServiceProcess } from "./support/service-process";
import { testDatabaseProvider } from "./support/test-database";
import { ADMIN_HEADERS, ADMIN_TOKEN } from "./support/test-server";

jest.setTimeout(120_000);

const onPostgres = testDatabaseProvider() === "postgresql";
if (onPostgres && !pgBouncerInstalled && process.env.REQUIRE_PGBOUNCER)
  throw new Error("REQUIRE_PGBOUNCER is set and PgBouncer is not installed (apt-get install pgbouncer)");

const serverUrl = process.env.TEST_DATABASE_URL ?? "";

async function sql<T extends Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

(onPostgres && pgBouncerInstalled ? describe : describe.skip)("behind PgBouncer in transaction mode", () => {
  let bouncer: PgBouncer;
  let name: string;
  let direct: string;
  beforeAll(async () => {
    name = `calendar_test_pooled_${randomBytes(4).toString("hex")}`;
    await sql(serverUrl, `CREATE DATABASE "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    direct = url.toString();
    bouncer = await startPgBouncer(serverUrl);
  });
  afterAll(async () => {
    await bouncer?.stop();
    await sql(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  /** The service's start through PgBouncer, when it fails: its fatal lines. */
  async function failedStart(env: Record<string, string>): Promise<string[]> {
    const service = startServiceProcess({ DATABASE_URL: bouncer.through(direct), ...env });
    const error = (await service.then(
      (started) => (started.stop(), null),
      (failure: Error) => failure.message,
    ))!;
    expect(error).toContain("exit 1");
    return [...error.matchAll(/"level":"fatal"[^}]*"msg":"((?:[^"\\]|\\.)*)"/g)].map((match) =>
      JSON.parse(`"${match[1]}"`),
    );
  }

  it("says in one line that the pooler refuses the settings sent as the service connects, before anything is migrated (issue 58)", async () => {
    expect(await failedStart({})).toEqual([
      expect.stringMatching(/^DATABASE_URL: the server refused a setting .*set DATABASE_SESSION_SETTINGS=role/),
    ]);
    // Not one migration was applied: the database is as it was.
    const [{ bookkept }] = await sql<{ bookkept: string | null }>(
      direct,
      `SELECT to_regclass('"_prisma_migrations"') AS bookkept`,
    );
    expect(bookkept).toBeNull();
    // In this database: the suites that run beside this one hold their own workers' locks.
    const locks = await sql<{ count: string }>(
      serverUrl,
      `SELECT COUNT(*) AS count FROM pg_locks
        WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = '${name}')`,
    );
    expect(Number(locks[0].count)).toBe(0);
  });

  it("says which settings the role lacks, and what to run", async () => {
    expect(await failedStart({ DATABASE_SESSION_SETTINGS: "role" })).toEqual([
      `DATABASE_SESSION_SETTINGS=role, and the role lacks statement_timeout, jit, work_mem: run ALTER ROLE "postgres" SET statement_timeout = '30s'; ALTER ROLE "postgres" SET jit = 'off'; ALTER ROLE "postgres" SET work_mem = '32MB'; then have the pooler open new connections (PgBouncer: RECONNECT in its console), and start again`,
    ]);
  });

  it("says in one line, within seconds, when the pooler knows no such database or user, or cannot reach PostgreSQL", async () => {
    const port = Number(new URL(serverUrl).port || 5432);
    const closedPort = await freePort();
    const strict = await startPgBouncer(serverUrl, {
      databases: { [name]: port, unreachable: closedPort },
      passwords: { postgres: "secret" },
    });
    const through = (database: string, user = "postgres:secret") => {
      const url = new URL(strict.through(direct));
      url.pathname = `/${database}`;
      [url.username, url.password] = user.split(":");
      return url.toString();
    };
    const failure = async (url: string) => {
      const started = Date.now();
      const lines = await failedStart({ DATABASE_URL: url, DATABASE_SESSION_SETTINGS: "role" });
      return { lines, seconds: (Date.now() - started) / 1000 };
    };
    try {
      expect((await failure(through("not_listed"))).lines).toEqual([
        expect.stringMatching(/^DATABASE_URL: the pooler at .* knows no such database .*\[databases\]/),
      ]);
      expect((await failure(through(name, "stranger:secret"))).lines).toEqual([
        expect.stringMatching(/^DATABASE_URL: the pooler at .* refused the user or its password .*auth_file/),
      ]);
      // PgBouncer would hold the login for its client_login_timeout (60 s) before saying so.
      const down = await failure(through("unreachable"));
      expect(down.lines).toEqual([
        expect.stringMatching(/^DATABASE_URL: no answer from .* within 10 s; .*is PostgreSQL running behind it\?$/),
      ]);
      expect(down.seconds).toBeLessThan(30);
    } finally {
      await strict.stop();
    }
  });

  it("serves two instances with workers through it with the role's settings: writes land, statements are limited", async () => {
    // The role's settings in this database only (the test's cluster serves other tests): a short
    // limit, so that a statement that outlives it is seen to be cut.
    await sql(
      serverUrl,
      `ALTER ROLE postgres IN DATABASE "${name}" SET statement_timeout = '2s';
       ALTER ROLE postgres IN DATABASE "${name}" SET jit = off;
       ALTER ROLE postgres IN DATABASE "${name}" SET work_mem = '32MB'`,
    );
    // A role's settings apply to the connections opened after them: PgBouncer's are opened again.
    await bouncer.stop();
    bouncer = await startPgBouncer(serverUrl);
    const env = {
      DATABASE_URL: bouncer.through(direct),
      DATABASE_SESSION_SETTINGS: "role",
      DATABASE_PREPARED_STATEMENTS: "false",
      CALENDAR_ADMIN_TOKEN: ADMIN_TOKEN,
    };
    const instances: ServiceProcess[] = [];
    try {
      instances.push(await startServiceProcess(env, { workers: 2 }));
      instances.push(await startServiceProcess(env, { workers: 2 }));
      const send = (i: number, method: string, path: string, body: unknown) =>
        fetch(`${instances[i % 2].base}${path}`, {
          method,
          headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) => send(i, "POST", "/tags", { name: `Pooled ${i}` })),
      );
      expect(created.map((response) => response.status)).toEqual(Array(30).fill(201));
      const ids = await Promise.all(created.map(async (response) => ((await response.json()) as { id: number }).id));
      expect(new Set(ids).size).toBe(30);

      const event = (await (
        await send(0, "POST", "/events", { title: "Pooled", start_date: "+2 days 10:00", end_date: "+2 days 11:00" })
      ).json()) as { id: number };
      const fields = {
        cost: "5",
        website: "https://example.org/pooled",
        featured: true,
        sticky: true,
        excerpt: "Pooled.",
      };
      const patched = await Promise.all(
        Object.entries(fields).map(([field, value], i) => send(i, "PATCH", `/events/${event.id}`, { [field]: value })),
      );
      expect(patched.map((response) => response.status)).toEqual(Array(5).fill(200));
      const read = (await (await fetch(`${instances[1].base}/events/${event.id}`)).json()) as Record<string, unknown>;
      expect(read).toMatchObject({ cost: "5", website: "https://example.org/pooled", featured: true, sticky: true });
      expect(read.excerpt).toContain("Pooled.");

      // Every server connection PgBouncer hands out runs with the role's limit.
      const cut = await sql(bouncer.through(direct), "SELECT pg_sleep(3)").then(
        () => "ran",
        (error: { code?: string }) => error.code,
      );
      expect(cut).toBe("57014");
      expect((await fetch(`${instances[0].origin}/readyz`)).status).toBe(200);
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
    }
  });

  it("says in one line that this pooler loses prepared statements, when DATABASE_PREPARED_STATEMENTS is left on (issue 58)", async () => {
    // PgBouncer before 1.21 (Debian's is 1.18): each transaction may run on another server connection.
    expect(await failedStart({ DATABASE_SESSION_SETTINGS: "role" })).toEqual([
      expect.stringMatching(
        /^DATABASE_PREPARED_STATEMENTS: the connection pooler does not keep prepared statements .*set DATABASE_PREPARED_STATEMENTS=false/,
      ),
    ]);
  });
});
