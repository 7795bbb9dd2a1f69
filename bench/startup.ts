// npm run bench:startup — how soon a (re)started instance serves at its usual speed while
// requests already arrive, as behind a proxy during a rolling restart (issue 31: "a restarted
// instance took 7–8 s to answer under load"). On a freshly seeded SQLite database (10,000 events),
// the built service is started while 16 clients keep sending a mix of the namespace's reads (lists
// with filters, items by id and slug, three languages, feeds, sync, terms, the index); each client
// sends its next request as soon as the last is answered, from the moment `/readyz` answers 200 (the
// instance warms up after it listens, answering 503 there meanwhile: a proxy that checks readiness
// sends it nothing before).
// First, idle (issue 46): how soon an instance started with no traffic answers its first request,
// and then, for each of a set of operations (every read of the mix, and the writes: creates,
// updates in each method, deletes), its first request's latency over its tenth's.
// Then under load, reported with the same instance's steady state measured in the same run as the baseline:
//  - start to ready, and to first answer;
//  - how long until the service answers at its usual speed: the start of the first second whose four
//    250 ms windows each have a 95th percentile within twice the steady one;
//  - requests answered in the first 3 s, as a ratio of the steady rate.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openDatabase } from "../src/db/database";
import { loadConfig } from "../src/config";
import { migrate } from "../src/db/migrate";
import { freePort } from "../test/support/service-process";
import { seed } from "./seed";

const ROOT = resolve(__dirname, "..");
const CLIENTS = 16;
const COLD_SECONDS = 10;
const STEADY_SECONDS = 5;
const WINDOW_MS = 250;

interface Answer {
  /** Milliseconds after the service was spawned. */
  at: number;
  latencyMs: number;
  status: number;
}

function get(agent: Agent, port: number, path: string): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { "Accept-Encoding": "gzip" } }, (res) => {
      res.resume();
      res.on("end", () => resolveStatus(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

function readPaths(): string[] {
  const root = "/calendar/events/v1";
  return [
    `${root}/events`,
    `${root}/events?per_page=20&page=2`,
    `${root}/events?start_date=2026-12-01&end_date=2027-01-31`,
    `${root}/events?search=music`,
    `${root}/events?categories=1`,
    `${root}/events?tags=2&featured=true`,
    `${root}/events?venue=1`,
    `${root}/events?geoloc=1&geoloc_lat=38.72&geoloc_lng=-9.14&geoloc_radius=20`,
    `${root}/events/1`,
    `${root}/events/2`,
    `/es${root}/events/3`,
    `/pt-br${root}/events?per_page=5`,
    `${root}/events/by-slug/does-not-exist`,
    `${root}/events.ics?per_page=20`,
    `${root}/events?sync=true&per_page=50`,
    `${root}/venues`,
    `${root}/venues/1`,
    `${root}/organizers`,
    `${root}/organizers/1`,
    `${root}/categories`,
    `${root}/categories/1`,
    `${root}/tags`,
    `${root}/tags/2`,
    `${root}`,
  ];
}

/**
 * When the instance's `/readyz` first answers 200, polled every 25 ms: a proxy that checks
 * readiness (docs/operating.md) sends it traffic from then, not from when its port accepts.
 */
async function untilReady(port: number): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  for (;;) {
    const status = await get(agent, port, "/readyz").catch(() => 0);
    if (status === 200) return performance.now();
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

/** 16 clients sending the mix until `until()` says stop; each answer's time and latency. */
async function drive(port: number, spawnedAt: number, until: () => boolean, answers: Answer[]): Promise<void> {
  const paths = readPaths();
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = client; !until(); n += CLIENTS) {
        const sent = performance.now();
        try {
          const status = await get(agent, port, paths[n % paths.length]!);
          answers.push({ at: performance.now() - spawnedAt, latencyMs: performance.now() - sent, status });
        } catch {
          // Not listening yet: try again shortly (as a proxy would, after trying another instance).
          await new Promise((wait) => setTimeout(wait, 25));
        }
      }
    }),
  );
  agent.destroy();
}

const TOKEN = "startup-bench-admin-token-0123456789";
const ROOT_PATH = "/calendar/events/v1";
/** Requests of each operation the idle phase times, first against tenth. */
const REPEATS = 10;

interface TimedRequest {
  operation: string;
  method: string;
  /** The request's path and JSON body for its n-th sending (0 to REPEATS - 1). */
  send(n: number): { path: string; body?: object };
}

/** Creates, then updates in each method, then deletes of what the creates made: each valid every time. */
function writeRequests(created: number[]): TimedRequest[] {
  const when = { start_date: "2027-03-01 10:00:00", end_date: "2027-03-01 12:00:00" };
  const write = (operation: string, method: string, send: TimedRequest["send"]): TimedRequest => ({
    operation,
    method,
    send,
  });
  return [
    write("createEvent", "POST", (n) => ({ path: "/events", body: { title: `Start-up ${n}`, ...when } })),
    write("patchEvent", "PATCH", (n) => ({ path: "/events/1", body: { title: `Patched ${n}` } })),
    write("updateEvent", "POST", (n) => ({ path: "/events/2", body: { description: `Updated ${n}` } })),
    write("putEvent", "PUT", (n) => ({ path: "/events/3", body: { title: `Put ${n}`, ...when } })),
    write("deleteEvent", "DELETE", (n) => ({ path: `/events/${created[n]}?force=true` })),
    write("createVenue", "POST", (n) => ({ path: "/venues", body: { venue: `Start-up hall ${n}` } })),
    write("patchVenue", "PATCH", (n) => ({ path: "/venues/1", body: { city: `City ${n}` } })),
    write("createOrganizer", "POST", (n) => ({ path: "/organizers", body: { organizer: `Start-up org ${n}` } })),
    write("patchOrganizer", "PATCH", (n) => ({ path: "/organizers/1", body: { phone: `+1 555 01${n}` } })),
    write("createCategory", "POST", (n) => ({ path: "/categories", body: { name: `Start-up category ${n}` } })),
    write("patchCategory", "PATCH", (n) => ({ path: "/categories/1", body: { description: `About ${n}` } })),
    write("createTag", "POST", (n) => ({ path: "/tags", body: { name: `Start-up tag ${n}` } })),
  ];
}

async function timed(
  origin: string,
  method: string,
  path: string,
  body?: object,
): Promise<{ ms: number; json: unknown }> {
  const sent = performance.now();
  const response = await fetch(`${origin}${ROOT_PATH}${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - sent;
  // The mix has reads of items that are not there (answered 404, as in the loaded phase); a write must succeed.
  if (response.status >= (method === "GET" ? 500 : 400))
    throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { ms, json: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text };
}

/**
 * An instance started with nothing else running: milliseconds from its spawn to its first
 * answer, then each operation's first request over its tenth (reads of the mix, then writes).
 */
async function idleStart(url: string): Promise<{
  startToFirstAnswerMs: number;
  penalties: Array<{ operation: string; first_ms: number; tenth_ms: number }>;
}> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ["--max-old-space-size=128", "--max-semi-space-size=8", "dist/server.js"], {
    cwd: ROOT,
    env: { ...process.env, ...serviceEnv(url, port), CALENDAR_ADMIN_TOKEN: TOKEN },
    stdio: ["ignore", "inherit", "inherit"],
  });
  try {
    let startToFirstAnswerMs = 0;
    while (startToFirstAnswerMs === 0) {
      try {
        await fetch(`${origin}${ROOT_PATH}/events/1`).then((response) => response.arrayBuffer());
        startToFirstAnswerMs = performance.now() - spawnedAt;
      } catch {
        await new Promise((wait) => setTimeout(wait, 5));
      }
    }
    const reads: TimedRequest[] = readPaths()
      .filter((path) => !path.startsWith("/es") && !path.startsWith("/pt-br"))
      .map((path) => ({
        operation: `GET ${path.slice(ROOT_PATH.length) || "/"}`,
        method: "GET",
        send: () => ({ path: path.slice(ROOT_PATH.length) }),
      }));
    const created: number[] = [];
    const penalties = [];
    for (const request of [...reads, ...writeRequests(created)]) {
      const latencies: number[] = [];
      for (let n = 0; n < REPEATS; n += 1) {
        const { path, body } = request.send(n);
        const { ms, json } = await timed(origin, request.method, path, body);
        latencies.push(ms);
        if (request.operation === "createEvent") created.push((json as { id: number }).id);
      }
      penalties.push({
        operation: request.operation,
        first_ms: round(latencies[0]!),
        tenth_ms: round(latencies[REPEATS - 1]!),
      });
    }
    return { startToFirstAnswerMs: Math.round(startToFirstAnswerMs), penalties };
  } finally {
    child.kill("SIGTERM");
    await new Promise((done) => child.on("exit", done));
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function serviceEnv(url: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: url,
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "0",
    WORKERS: "1",
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  execFileSync(process.execPath, ["--import", "tsx", resolve(ROOT, "scripts/build.ts")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  const folder = mkdtempSync(join(tmpdir(), "calendar-startup-"));
  const url = `file:${join(folder, "calendar.db")}`;
  await migrate(url);
  const db = await openDatabase(loadConfig({ DATABASE_URL: url }));
  await seed(db, url, 10_000, new Date(), () => undefined);
  await db.close();
  const idle = await idleStart(url);

  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ["--max-old-space-size=128", "--max-semi-space-size=8", "dist/server.js"], {
    cwd: ROOT,
    env: { ...process.env, ...serviceEnv(url, port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const answers: Answer[] = [];
  const coldEnd = spawnedAt + (COLD_SECONDS + STEADY_SECONDS) * 1000;
  const readyAt = (await untilReady(port)) - spawnedAt;
  await drive(port, spawnedAt, () => performance.now() > coldEnd, answers);
  child.kill("SIGTERM");
  await new Promise((done) => child.on("exit", done));
  rmSync(folder, { recursive: true, force: true });

  const failed = answers.filter((answer) => answer.status >= 500 || answer.status === 0).length;
  const first = answers[0]!.at;
  const steady = answers.filter((answer) => answer.at > COLD_SECONDS * 1000);
  const steadyP95 = percentile(
    steady.map((answer) => answer.latencyMs),
    95,
  );
  const steadyRate = steady.length / STEADY_SECONDS;
  // The first window from which a whole second (four windows) runs at the usual speed.
  const windowP95 = (from: number) => {
    const inWindow = answers.filter((answer) => answer.at >= from && answer.at < from + WINDOW_MS);
    return inWindow.length === 0
      ? Infinity
      : percentile(
          inWindow.map((answer) => answer.latencyMs),
          95,
        );
  };
  let settledAt = COLD_SECONDS * 1000;
  for (let from = Math.floor(first / WINDOW_MS) * WINDOW_MS; from < COLD_SECONDS * 1000; from += WINDOW_MS) {
    if ([0, 1, 2, 3].every((n) => windowP95(from + n * WINDOW_MS) <= 2 * steadyP95)) {
      settledAt = from;
      break;
    }
  }
  const firstThree = answers.filter((answer) => answer.at < first + 3000).length;
  const worst = idle.penalties.reduce((a, b) => (b.first_ms - b.tenth_ms > a.first_ms - a.tenth_ms ? b : a));
  const report = {
    idle_start_to_first_answer_ms: idle.startToFirstAnswerMs,
    idle_first_request_penalty_max_ms: round(worst.first_ms - worst.tenth_ms),
    idle_first_request_penalty_max_operation: worst.operation,
    idle_first_and_tenth_requests: idle.penalties,
    start_to_ready_ms: Math.round(readyAt),
    start_to_first_answer_ms: Math.round(first),
    start_to_usual_speed_ms: Math.round(settledAt),
    first_answer_to_usual_speed_ms: Math.round(settledAt - first),
    steady_p95_ms: Math.round(steadyP95 * 10) / 10,
    steady_requests_per_s: Math.round(steadyRate),
    first_3s_requests_per_s: Math.round(firstThree / 3),
    first_3s_rate_vs_steady: Math.round((firstThree / 3 / steadyRate) * 100) / 100,
    max_latency_first_3s_ms: Math.round(
      Math.max(...answers.filter((answer) => answer.at < first + 3000).map((answer) => answer.latencyMs)),
    ),
    failed_answers: failed,
  };
  console.log(JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
