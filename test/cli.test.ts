// The user management commands (npm run cli -- ...), run as a separate process on the same
// database as a running service, as an operator would.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

const run = promisify(execFile);
const CLI = resolve(__dirname, "../src/cli/cli.ts");

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function cli(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", CLI, ...args], {
      env: { ...process.env, DATABASE_URL: server.config.databaseUrl },
    });
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

describe("npm run cli", () => {
  it("users:create prints one JSON object with the user and credentials that work at once", async () => {
    const { code, out } = await cli(
      "users:create",
      "--login",
      "maria",
      "--role",
      "editor",
      "--email",
      "maria@example.org",
    );
    expect(code).toBe(0);
    expect(out).toMatchObject({ id: expect.any(Number), login: "maria", role: "editor", email: "maria@example.org" });
    expect(out.api_key).toMatch(/^cal_[a-f0-9]{16}_[\w-]{43}$/);
    const byKey = await server.raw("POST", "/calendar/events/v1/tags", {
      body: { name: "From the CLI" },
      headers: { Authorization: `Bearer ${out.api_key}` },
    });
    expect(byKey.status).toBe(201);
    const basic = Buffer.from(`maria:${out.application_password}`).toString("base64");
    const byPassword = await server.raw("POST", "/calendar/events/v1/tags", {
      body: { name: "Also from the CLI" },
      headers: { Authorization: `Basic ${basic}` },
    });
    expect(byPassword.status).toBe(201);
  });

  it("refuses bad input with a message and exit code 1", async () => {
    for (const args of [
      ["users:create", "--login", "x"],
      ["users:create", "--login", "x", "--role", "king"],
      ["users:create", "--login", "bad login", "--role", "author"],
      ["nope"],
    ]) {
      const { code, err } = await cli(...args);
      expect(code).toBe(1);
      expect(err).toMatch(/error: /);
    }
    // Pasted from the usage with its brackets, or with an option another command takes: refused, nothing made.
    const bracketed = await cli(
      "users:create",
      "--login",
      "bracketed",
      "--role",
      "editor",
      "[--display-name",
      "Maria]",
    );
    expect([bracketed.code, bracketed.err]).toEqual([1, expect.stringContaining("write it without them")]);
    const misplaced = await cli("users:list", "--login", "bracketed");
    expect([misplaced.code, misplaced.err]).toEqual([1, "error: users:list takes no options, not --login\n"]);
    expect((await cli("users:list")).out.map((user: { login: string }) => user.login)).not.toContain("bracketed");
    await cli("users:create", "--login", "twice", "--role", "author");
    expect((await cli("users:create", "--login", "twice", "--role", "author")).err).toContain("exists");
  });

  it("users:list shows users without any secret", async () => {
    const created = (await cli("users:create", "--login", "listed", "--role", "author")).out;
    const { out } = await cli("users:list");
    const listed = out.find((user: { login: string }) => user.login === "listed");
    expect(listed).toMatchObject({
      id: created.id,
      role: "author",
      active_api_keys: 1,
      active_application_passwords: 1,
    });
    expect(JSON.stringify(out)).not.toContain(created.api_key);
  });

  it("keys:revoke stops a key at once; keys:create issues new credentials", async () => {
    const created = (await cli("users:create", "--login", "revoked", "--role", "editor")).out;
    expect((await cli("keys:revoke", "--key", created.api_key)).out).toEqual({
      revoked_api_keys: 1,
      revoked_application_passwords: 0,
    });
    const refused = await server.raw("POST", "/calendar/events/v1/tags", {
      body: { name: "Too late" },
      headers: { Authorization: `Bearer ${created.api_key}` },
    });
    expect(refused.status).toBe(401);
    const fresh = (await cli("keys:create", "--login", "revoked")).out;
    expect(
      (
        await server.raw("POST", "/calendar/events/v1/tags", {
          body: { name: "Fresh key" },
          headers: { Authorization: `Bearer ${fresh.api_key}` },
        })
      ).status,
    ).toBe(201);
    expect((await cli("keys:revoke", "--login", "revoked")).out).toEqual({
      revoked_api_keys: 1,
      revoked_application_passwords: 2,
    });
  });

  it("users:delete needs --reassign-to for a user who owns items, and moves them", async () => {
    const owner = (await cli("users:create", "--login", "leaving", "--role", "author")).out;
    const heir = (await cli("users:create", "--login", "heir", "--role", "author")).out;
    const venue = await server.raw("POST", "/calendar/events/v1/venues", {
      body: { venue: "Inherited" },
      headers: { Authorization: `Bearer ${owner.api_key}` },
    });
    const refused = await cli("users:delete", "--login", "leaving");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("--reassign-to");
    expect((await cli("users:delete", "--login", "leaving", "--reassign-to", "heir")).out).toEqual({
      deleted: "leaving",
      reassigned_to: "heir",
      items_reassigned: 1,
    });
    expect((await server.raw("GET", `/calendar/events/v1/venues/${venue.body.id}`)).body.author).toBe(String(heir.id));
  });
});

describe("progress of long commands", () => {
  /** The command under a pseudo-terminal (util-linux `script`), as an operator runs it. */
  async function onTerminal(...args: string[]): Promise<string> {
    const command = [process.execPath, "--import", "tsx", CLI, ...args].map((part) => `'${part}'`).join(" ");
    const { stdout } = await run("script", ["-qec", command, "/dev/null"], {
      env: { ...process.env, DATABASE_URL: server.config.databaseUrl },
    });
    return stdout;
  }

  it("search:rebuild shows how far it is on a terminal, and keeps stdout one JSON value elsewhere", async () => {
    for (let i = 0; i < 3; i += 1)
      await server.raw("POST", "/calendar/events/v1/events", {
        body: { title: `Progress ${i}`, start_date: "2030-01-01 10:00", end_date: "2030-01-01 11:00" },
        headers: ADMIN_HEADERS,
      });
    const shown = await onTerminal("search:rebuild");
    expect(shown).toMatch(/search documents 0\/\d+ \(0%\)/);
    expect(shown).toMatch(/search documents (\d+)\/\1 \(100%\)/);
    const { code, out, err } = await cli("search:rebuild");
    expect(code).toBe(0);
    expect(out).toEqual({ events: expect.any(Number) });
    expect(err).not.toMatch(/search documents/);
  });

  it("sync:restored, after a restore no instance saw, makes every sync token given out before 410 (docs/operating.md)", async () => {
    const listed = await server.raw("GET", "/calendar/events/v1/events");
    const token = listed.body.next_sync_token as string;
    expect((await server.raw("GET", `/calendar/events/v1/events?sync_token=${encodeURIComponent(token)}`)).status).toBe(
      200,
    );
    const { code, out } = await cli("sync:restored");
    expect([code, out]).toEqual([0, { epoch: expect.any(Number) }]);
    const refused = await server.raw("GET", `/calendar/events/v1/events?sync_token=${encodeURIComponent(token)}`);
    expect([refused.status, refused.body.code]).toEqual([410, "rest_sync_token_expired"]);
    const again = await server.raw("GET", "/calendar/events/v1/events");
    const fresh = again.body.next_sync_token as string;
    expect((await server.raw("GET", `/calendar/events/v1/events?sync_token=${encodeURIComponent(fresh)}`)).status).toBe(
      200,
    );
  });
});
