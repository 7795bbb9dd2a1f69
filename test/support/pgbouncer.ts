import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./service-process";

/** Debian's PgBouncer (package pgbouncer), as an operator runs it before the service. */
export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? "/usr/sbin/pgbouncer";

export interface PgBouncer {
  /** `url` with its host and port replaced by PgBouncer's. */
  through(url: string): string;
  stop(): Promise<void>;
}

/** How an operator may have set PgBouncer up otherwise than the default here. */
export interface PgBouncerSetup {
  /** Only these databases, each to the server at this port (default: any database, to the server's). */
  databases?: Record<string, number>;
  /** Users and their passwords, checked by PgBouncer (default: every user trusted). */
  passwords?: Record<string, string>;
}

/**
 * Starts PgBouncer in transaction mode in front of the server of `serverUrl`, trusting every user
 * (the server's own authentication still applies). Run as root, it must be told to be another user.
 */
export async function startPgBouncer(serverUrl: string, setup: PgBouncerSetup = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), "calendar-pgbouncer-"));
  chmodSync(folder, 0o755);
  const users = join(folder, "users.txt");
  const passwords = setup.passwords ?? { [decodeURIComponent(server.username)]: "" };
  writeFileSync(
    users,
    Object.entries(passwords)
      .map(([user, password]) => `"${user}" "${password}"\n`)
      .join(""),
    { mode: 0o644 },
  );
  const databases = setup.databases
    ? Object.entries(setup.databases).map(
        ([name, serverPort]) => `${name} = host=${server.hostname} port=${serverPort} dbname=${name}`,
      )
    : [`* = host=${server.hostname} port=${server.port || 5432}`];
  const config = join(folder, "pgbouncer.ini");
  writeFileSync(
    config,
    [
      "[databases]",
      ...databases,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      `auth_type = ${setup.passwords ? "plain" : "trust"}`,
      `auth_file = ${users}`,
      "pool_mode = transaction",
      "max_client_conn = 500",
      "default_pool_size = 20",
      // What node-postgres sends as it connects; PgBouncer 1.18 refuses any other parameter.
      "ignore_startup_parameters = extra_float_digits",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asUser = process.getuid?.() === 0 ? ["-u", "postgres"] : [];
  const child: ChildProcess = spawn(PGBOUNCER, [...asUser, config], { stdio: "ignore" });
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  for (let tries = 0; !(await accepts(port)); tries += 1) {
    if (tries > 100 || child.exitCode !== null) throw new Error(`PgBouncer did not start (${config})`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
  return {
    through(url) {
      const routed = new URL(url);
      routed.hostname = "127.0.0.1";
      routed.port = String(port);
      return routed.toString();
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), done(true)));
    socket.once("error", () => done(false));
  });
}

export const pgBouncerInstalled = existsSync(PGBOUNCER);
