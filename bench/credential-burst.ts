// npm run bench:credentials -- [--rounds 10] [--hostile 20]
// How long a valid credential's first check takes while a hostile client keeps the service's
// slow hashes busy. Starts the service as `npm start` does (a fresh SQLite database, behind a
// trusted "proxy" on loopback so that X-Forwarded-For tells the clients apart), then, each round:
// a hostile client sends --hostile requests at once, each with a made-up event password (one
// scrypt each); while they are in flight, another client opens a protected event with its right
// password, one the service has never seen (a scrypt of its own), and a third uses a new API key
// for the first time. Reports the medians and the slowest of those two, and the same checks with
// no burst, measured in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/database";
import { migrate } from "../src/db/migrate";
import { EventPasswords } from "../src/auth/event-passwords";
import { createUser } from "../src/resources/users/user-admin";
import { startServiceProcess } from "../test/support/service-process";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "10" }, hostile: { type: "string", default: "20" } },
});
const ROUNDS = Number(values.rounds);
const HOSTILE = Number(values.hostile);
const TOKEN = "burst-benchmark-admin-token-0123";

async function timed(request: Promise<Response>): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await request;
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const max = (values: number[]) => Math.max(...values);

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "credential-burst-"));
  const databaseUrl = `file:${join(folder, "calendar.db")}`;
  await migrate(databaseUrl);
  const db = await openDatabase({ databaseUrl, databasePoolSize: 1 });
  const service = await startServiceProcess({
    DATABASE_URL: databaseUrl,
    CALENDAR_ADMIN_TOKEN: TOKEN,
    TRUST_PROXY: "loopback",
  });
  try {
    const created = await fetch(`${service.base}/events`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "Protected", start_date: "+2 days", end_date: "+2 days 1 hour" }),
    });
    const event = (await created.json()) as { id: number };
    const passwords = new EventPasswords(db);
    /** Gives the event a password the service has never seen (set in the database, so that no process has it remembered). */
    const newPassword = async (password: string) => {
      await db.write.event.update({
        where: { id: event.id },
        data: { passwordHash: await passwords.hash(password, "bench") },
      });
      return (client: string) =>
        fetch(`${service.base}/events/${event.id}?password=${password}`, { headers: { "X-Forwarded-For": client } });
    };
    const newKey = async (login: string) => {
      const { api_key } = await createUser(db, { login, role: "editor" });
      return () =>
        fetch(`${service.base}/tags`, {
          headers: { Authorization: `Bearer ${api_key}`, "X-Forwarded-For": "192.0.2.30" },
        });
    };
    const results = {
      quietPassword: [] as number[],
      quietKey: [] as number[],
      burstPassword: [] as number[],
      burstKey: [] as number[],
      hostile: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const openQuietly = await newPassword(`quiet-${round}`);
      results.quietPassword.push((await timed(openQuietly(`198.51.100.${round}`))).ms);
      results.quietKey.push((await timed((await newKey(`quiet-${round}`))())).ms);
      const openInBurst = await newPassword(`right-${round}`);
      const useKey = await newKey(`burst-${round}`);
      const started = performance.now();
      const burst = Array.from({ length: HOSTILE }, (_, i) =>
        fetch(`${service.base}/events/${event.id}?password=guess-${round}-${i}`, {
          headers: { "X-Forwarded-For": "203.0.113.66" },
        }).then(async (response) => {
          await response.arrayBuffer();
          return performance.now() - started;
        }),
      );
      // Once the burst has reached the service and fills the queue of slow hashes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [password, key] = await Promise.all([timed(openInBurst("198.51.100.200")), timed(useKey())]);
      if (password.status !== 200 || key.status !== 200)
        throw new Error(`a valid check failed: ${password.status}, ${key.status}`);
      results.burstPassword.push(password.ms);
      results.burstKey.push(key.ms);
      results.hostile.push(max(await Promise.all(burst)));
    }
    const row = (name: string, ms: number[]) => `| ${name} | ${median(ms).toFixed(0)} | ${max(ms).toFixed(0)} |`;
    console.log(
      `${ROUNDS} rounds, ${HOSTILE} hostile requests in flight per round (one client), on SQLite, ${new Date().toISOString().slice(0, 10)}\n`,
    );
    console.log("| check | median ms | slowest ms |\n|---|---|---|");
    console.log(row("valid event password, no burst", results.quietPassword));
    console.log(row("valid event password, during the burst (another client)", results.burstPassword));
    console.log(row("new API key's first use, no burst", results.quietKey));
    console.log(row("new API key's first use, during the burst", results.burstKey));
    console.log(row(`the hostile client's last answer (of ${HOSTILE})`, results.hostile));
  } finally {
    await service.stop();
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
