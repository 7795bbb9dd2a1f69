// npm run bench:rolling — rolling restarts through the documented nginx block (docs/operating.md,
// "Behind a reverse proxy"), under a mixed load, as an operator upgrades (issue 58: "one POST got
// 502 from nginx during rolling restarts"). Two instances of the service (WORKERS=2 each, on
// PostgreSQL: BENCH_DATABASE_URL, default the local server's `postgres` database, in a database of
// its own) behind nginx (Debian's package); 8 clients send reads, creates, updates and deletes
// through it, each its next as soon as the last is answered; the instances are stopped (SIGTERM)
// and started again one at a time, each waited for until its `/readyz` says 200, RESTARTS times
// (default 10). Every request that gets no answer, or an answer that is none of the operation's
// own (a 502 or 504 of nginx, a 5xx of the service), is a failure; the run prints them, and fails
// when there is one. First, a body over the block's client_max_body_size must get nginx's 413 as
// the service's error envelope.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "pg";
import { freePort } from "../test/support/service-process";

const ROOT = resolve(__dirname, "..");
const RESTARTS = Number(process.env.RESTARTS ?? 10);
const CLIENTS = 8;
const TOKEN = "rolling-restarts-admin-token-0123456789";
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * The nginx block of docs/operating.md as written, on loopback: its upstream's servers are the two
 * instances, it listens on a port of ours without TLS; every other line is the page's.
 */
function nginxConfig(folder: string, port: number, upstreams: number[]): string {
  const page = readFileSync(resolve(ROOT, "docs/operating.md"), "utf8");
  const block = /^```nginx\n([\s\S]*?)^```$/m.exec(page)?.[1];
  if (!block) throw new Error("docs/operating.md has no nginx block");
  let server = 0;
  const documented = block
    .replace(/^(\s*server )\S+:8080/gm, (_, indent: string) => `${indent}127.0.0.1:${upstreams[server++]}`)
    .replace(/^(\s*)listen 443 ssl;/m, `$1listen 127.0.0.1:${port};`);
  if (server !== upstreams.length) throw new Error("the nginx block's upstream no longer has two servers");
  return `
daemon off;
worker_processes 1;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
${documented}
}
`;
}

/** nginx's own refusal of a body over client_max_body_size is the service's error envelope. */
async function checkTooLarge(base: string): Promise<void> {
  const response = await fetch(`${base}/calendar/events/v1/events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "x".repeat(2 * 1024 * 1024) }),
  });
  const answer = (await response.json().catch(() => undefined)) as { code?: string; data?: { status?: number } };
  const type = response.headers.get("content-type") ?? "";
  if (response.status !== 413 || !type.startsWith("application/json") || answer?.code !== "rest_payload_too_large")
    throw new Error(`a 2 MiB body through nginx: ${response.status} ${type} ${JSON.stringify(answer)}`);
  console.log("a 2 MiB body through nginx: 413 rest_payload_too_large, as JSON");
}

function startInstance(port: number, databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", resolve(ROOT, "src/server.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      CALENDAR_ADMIN_TOKEN: TOKEN,
      HOST: "127.0.0.1",
      PORT: String(port),
      WORKERS: "2",
      RATE_LIMIT_PER_MINUTE: "0",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function ready(port: number): Promise<void> {
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

const stopped = (child: ChildProcess) => new Promise((done) => child.once("exit", done));

interface Tally {
  requests: number;
  failures: string[];
}

/** One client: its requests, one after another, until `running` says stop. */
async function client(base: string, number: number, running: () => boolean, tally: Tally): Promise<void> {
  const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const mine: number[] = [];
  for (let at = 0; running(); at++) {
    const kind = at % 6;
    const [method, path, body, expected] =
      kind === 0 || mine.length === 0
        ? [
            "POST",
            "/events",
            { title: `Rolling ${number}-${at}`, start_date: "+3 days 10:00", end_date: "+3 days 11:00" },
            [201],
          ]
        : kind === 1
          ? ["PATCH", `/events/${mine[mine.length - 1]}`, { cost: `${at}` }, [200]]
          : kind === 2
            ? ["GET", `/events/${mine[0]}`, undefined, [200]]
            : kind === 3 && mine.length > 2
              ? ["DELETE", `/events/${mine.shift()}`, undefined, [200]]
              : ["GET", `/events?per_page=10&search=Rolling`, undefined, [200]];
    tally.requests += 1;
    try {
      const response = await fetch(`${base}/calendar/events/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      // nginx's own answers (a 502, a 504) are HTML pages.
      const answer = (text.startsWith("{") ? JSON.parse(text) : { code: "(nginx's page)" }) as {
        id?: number;
        code?: string;
      };
      if (!(expected as number[]).includes(response.status))
        tally.failures.push(`${method} ${path}: ${response.status} ${answer.code ?? ""}`);
      else if (method === "POST" && answer.id) mine.push(answer.id);
    } catch (error) {
      tally.failures.push(`${method} ${path}: ${String(error)}`);
    }
  }
}

async function main(): Promise<void> {
  const name = `calendar_rolling_${Date.now()}`;
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${name}` }).toString();
  const folder = mkdtempSync(join(tmpdir(), "calendar-rolling-"));
  const ports = [await freePort(), await freePort()];
  const proxyPort = await freePort();
  writeFileSync(join(folder, "nginx.conf"), nginxConfig(folder, proxyPort, ports));
  const instances = [startInstance(ports[0], databaseUrl)];
  await ready(ports[0]);
  instances.push(startInstance(ports[1], databaseUrl));
  await ready(ports[1]);
  const nginx = spawn("nginx", ["-c", join(folder, "nginx.conf"), "-p", folder], { stdio: "inherit" });
  await new Promise((wait) => setTimeout(wait, 500));
  const tally: Tally = { requests: 0, failures: [] };
  let running = true;
  const started = Date.now();
  const clients = Array.from({ length: CLIENTS }, (_, number) =>
    client(`http://127.0.0.1:${proxyPort}`, number, () => running, tally),
  );
  try {
    await checkTooLarge(`http://127.0.0.1:${proxyPort}`);
    for (let restart = 0; restart < RESTARTS; restart++) {
      const which = restart % 2;
      await new Promise((wait) => setTimeout(wait, 1_000));
      const old = instances[which];
      old.kill("SIGTERM");
      await stopped(old);
      instances[which] = startInstance(ports[which], databaseUrl);
      await ready(ports[which]);
      console.log(
        `restart ${restart + 1}/${RESTARTS}: instance ${which + 1} ready (${tally.requests} requests so far)`,
      );
    }
    await new Promise((wait) => setTimeout(wait, 1_000));
  } finally {
    running = false;
    await Promise.all(clients);
    nginx.kill("SIGTERM");
    if (process.env.SHOW_NGINX_ERRORS) console.log(readFileSync(join(folder, "error.log"), "utf8").slice(-3000));
    for (const instance of instances) instance.kill("SIGTERM");
    await Promise.all(instances.map(stopped));
    rmSync(folder, { recursive: true, force: true });
    const drop = new Client({ connectionString: SERVER_URL });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await drop.end();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `${RESTARTS} rolling restarts in ${seconds} s: ${tally.requests} requests, ${tally.failures.length} failed`,
  );
  const kinds = new Map<string, number>();
  for (const failure of tally.failures) {
    const kind = failure.replace(/\/\d+/g, "/{id}").replace(/: .*?(\d{3}|Error)/, ": $1");
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  for (const [kind, count] of kinds) console.log(`  ${count} × ${kind}`);
  if (tally.failures.length > 0) process.exitCode = 1;
}

void main();
