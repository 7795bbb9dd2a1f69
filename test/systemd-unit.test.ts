// docs/operating.md's systemd unit, run as systemd runs it (systemd is not this machine's init, so
// the test plays its part): `systemd-analyze verify` finds nothing to say about it; ExecStartPre,
// then ExecStart, in this checkout (its WorkingDirectory), with Environment= then the documented
// EnvironmentFile's variables (the database and the port the test's own), `${VAR}` expanded as
// systemd does; the unit's processes in a process group of their own, as in its control group.
// Stopped as its KillMode and KillSignal say, and as systemd's default KillMode would: every
// process of the unit is gone within TimeoutStopSec (else systemd would SIGKILL it), the main one
// cleanly (exit 0: Restart=on-failure is not triggered), and a request under way, whose body is
// still arriving when the signal comes, is answered.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "./support/service-process";
import { createTestDatabase, type TestDatabase } from "./support/test-database";

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, "..");
const PAGE = readFileSync(resolve(ROOT, "docs/operating.md"), "utf8");
const UNIT_TEXT = /^```ini\n(# \/etc\/systemd\/system\/calendar\.service\n[\s\S]*?)^```$/m.exec(PAGE)?.[1] ?? "";
const ENVIRONMENT_TEXT = /^```sh\n(# \/etc\/calendar\/calendar\.env[^\n]*\n[\s\S]*?)^```$/m.exec(PAGE)?.[1] ?? "";
const TOKEN = "systemd-unit-admin-token-0123456789";

/** The unit's [Service] settings: a key given twice keeps both values, in order. */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = "";
  for (const line of unit.split("\n").map((text) => text.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) section = header[1];
    else if (section === "Service") {
      const [key, ...value] = line.split("=");
      settings.set(key, [...(settings.get(key) ?? []), value.join("=")]);
    }
  }
  return settings;
}

function variables(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

/** A command line of the unit as systemd runs it: `${VAR}` from the environment; node is this test's own. */
function commandLine(setting: string, environment: Record<string, string>): [string, string[]] {
  const [program, ...args] = setting
    .replace(/\$\{(\w+)\}/g, (_, name: string) => environment[name] ?? "")
    .split(/\s+/)
    .filter(Boolean);
  return [program.endsWith("/node") ? process.execPath : program, args];
}

const settings = serviceSettings(UNIT_TEXT);
const only = (key: string) => settings.get(key)?.at(-1);
const stopTimeoutMs = Number(only("TimeoutStopSec")) * 1000;

interface Unit {
  main: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startUnit(database: TestDatabase): Promise<Unit> {
  const environment = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: tmpdir(),
    ...variables(settings.get("Environment") ?? []),
    ...variables(ENVIRONMENT_TEXT.split("\n")),
    DATABASE_URL: database.url,
    HOST: "127.0.0.1",
    PORT: String(await freePort()),
    CALENDAR_ADMIN_TOKEN: TOKEN,
  };
  for (const pre of settings.get("ExecStartPre") ?? []) {
    const [program, args] = commandLine(pre, environment);
    const result = spawnSync(program, args, { cwd: ROOT, env: environment, encoding: "utf8" });
    expect([pre, result.status, result.stderr]).toEqual([pre, 0, ""]);
  }
  const [program, args] = commandLine(only("ExecStart")!, environment);
  // A process group of its own: the unit's control group, which KillMode=control-group signals whole.
  const main = spawn(program, args, { cwd: ROOT, env: environment, detached: true, stdio: "ignore" });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    main.once("exit", (code, signal) => done({ code, signal })),
  );
  const port = Number(environment.PORT);
  for (let started = Date.now(); (await readiness(port)) !== 200;) {
    if (main.exitCode !== null || Date.now() - started > 60_000) throw new Error("the unit did not become ready");
    await new Promise((wait) => setTimeout(wait, 100));
  }
  return { main, port, exited };
}

/** /readyz's status, on a connection of its own that is closed after (an idle one would hold the stop). */
function readiness(port: number): Promise<number> {
  return new Promise((done) => {
    get({ host: "127.0.0.1", port, path: "/readyz", agent: false, headers: { Connection: "close" } }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    }).once("error", () => done(0));
  });
}

/** A POST whose body is half sent: the rest goes when `finish` is called; resolves with the raw answer. */
function halfSentPost(port: number): { finish: () => void; answer: Promise<string> } {
  const body = JSON.stringify({ title: "Under way at the stop", start_date: "+3 days", end_date: "+3 days 1 hour" });
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  socket.write(
    `POST /calendar/events/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  );
  return {
    finish: () => socket.write(body.slice(10)),
    answer: new Promise((done) => {
      socket.once("close", () => done(answer));
      socket.once("error", (error) => done(`error ${error.message}`));
    }),
  };
}

/** Whether any process of the group is left (systemd would SIGKILL it at TimeoutStopSec). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pid: number, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline;) {
    if (!groupAlive(pid)) return true;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  return !groupAlive(pid);
}

describe("the systemd unit of docs/operating.md", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it("says what it relies on, and systemd-analyze verify finds nothing to say", () => {
    expect(UNIT_TEXT).not.toBe("");
    expect(ENVIRONMENT_TEXT).not.toBe("");
    expect(only("KillSignal")).toBe("SIGTERM");
    expect(only("KillMode")).toBe("mixed");
    expect(only("Restart")).toBe("on-failure");
    // Above the stop budget the page promises: SHUTDOWN_GRACE_SECONDS + REQUEST_TIMEOUT_SECONDS.
    expect(stopTimeoutMs).toBeGreaterThanOrEqual((10 + 30) * 1000);
    // The same heap as `npm start` gives, which the unit runs without npm.
    const packageJson = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
      config: { heap_mb: string; semi_space_mb: string };
    };
    expect(settings.get("Environment")).toContain(`NODE_HEAP_MB=${packageJson.config.heap_mb}`);
    expect(only("ExecStart")).toContain(`--max-semi-space-size=${packageJson.config.semi_space_mb} `);
    const analyze = spawnSync("systemd-analyze", ["--version"]);
    if (analyze.error) return; // systemd's tools are not on this machine: the run below still says.
    const folder = mkdtempSync(join(tmpdir(), "calendar-unit-"));
    try {
      writeFileSync(join(folder, "calendar.service"), UNIT_TEXT);
      const verified = spawnSync("systemd-analyze", ["verify", join(folder, "calendar.service")], {
        encoding: "utf8",
      });
      expect([verified.status, verified.stderr, verified.stdout]).toEqual([0, "", ""]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.each([
    ["with its KillMode (mixed)", only("KillMode")],
    ["with systemd's default KillMode (control-group)", "control-group"],
  ])("stops %s: every process gone within TimeoutStopSec, cleanly, the request under way answered", async (_, mode) => {
    const unit = await startUnit(database);
    const pid = unit.main.pid!;
    try {
      const upload = halfSentPost(unit.port);
      await new Promise((wait) => setTimeout(wait, 300));
      const signal = only("KillSignal") as NodeJS.Signals;
      // mixed: the main process only; control-group: every process of the unit, and once the main
      // one has exited, again every one left (systemd's final SIGTERM).
      process.kill(mode === "control-group" ? -pid : pid, signal);
      await new Promise((wait) => setTimeout(wait, 1_000));
      upload.finish();
      const exit = await unit.exited;
      if (mode === "control-group" && groupAlive(pid)) process.kill(-pid, signal);
      expect(await groupGone(pid, stopTimeoutMs)).toBe(true);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(await upload.answer).toMatch(/^HTTP\/1\.1 201 /);
    } finally {
      if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
    }
  });
});
