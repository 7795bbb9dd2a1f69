// npm run bench:startup — how soon a (re)started instance serves at its usual speed while
// requests already arrive, as behind a proxy during a rolling restart (issue 31: "a restarted
// instance took 7–8 s to answer under load"). On a freshly seeded SQLite database (10,000 events),
// the built service is started while 16 clients keep sending a mix of the namespace's reads (lists
// with filters, items by id and slug, three languages, feeds, sync, terms, the index); each client
// sends its next request as soon as the last is answered, from the moment the port accepts.
// Reported, with the same instance's steady state measured in the same run as the baseline:
//  - start to first answer;
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

  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ["--max-old-space-size=128", "--max-semi-space-size=8", "dist/server.js"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: url,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "0",
      WORKERS: "1",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const answers: Answer[] = [];
  const coldEnd = spawnedAt + (COLD_SECONDS + STEADY_SECONDS) * 1000;
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
  const report = {
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
