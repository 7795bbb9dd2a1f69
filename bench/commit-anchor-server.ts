// The benchmark's commit anchor: Express answering every write with a body made before the run
// (the service's own answer to the scenario, as the framework anchor does), after the bare driver
// has committed one one-row transaction, with the durability the service uses: SQLite in WAL
// with synchronous=FULL on one connection (better-sqlite3, as the service's writer), PostgreSQL
// with its defaults over a pool of the service's size (10). What a write scenario reaches of its
// rate is what the service's own work leaves of what the disk and the database allow for one
// commit on this machine. Its rows go to a scratch database beside the benchmark's, never to it.
//   node --import tsx bench/commit-anchor-server.ts   (COMMIT_DATABASE_URL, PORT); PUT /__body sets the body.
import BetterSqlite3 from "better-sqlite3";
import { Pool } from "pg";
import { providerOf, sqlitePath } from "../src/db/database";
import { startAnchor, type AnchorOptions } from "./anchor";

const url = process.env.COMMIT_DATABASE_URL;
if (!url) throw new Error("COMMIT_DATABASE_URL names the scratch database the anchor commits to");

const ROW = { title: "Benchmark event", cost: "$10" };

function sqliteCommitter(): AnchorOptions {
  const db = new BetterSqlite3(sqlitePath(url!));
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
     CREATE TABLE IF NOT EXISTS "Commit" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "cost" TEXT, "at" TEXT NOT NULL)`,
  );
  const insert = db.prepare(`INSERT INTO "Commit" ("title", "cost", "at") VALUES (?, ?, ?)`);
  const commitOne = db.transaction(() => insert.run(ROW.title, ROW.cost, new Date().toISOString()));
  return { before: async () => void commitOne() };
}

function postgresCommitter(): AnchorOptions {
  const pool = new Pool({ connectionString: url, max: 10 });
  const ready = pool.query(
    `CREATE TABLE IF NOT EXISTS "Commit" ("id" SERIAL PRIMARY KEY, "title" TEXT NOT NULL, "cost" TEXT, "at" TIMESTAMPTZ NOT NULL)`,
  );
  const before = async () => {
    await ready;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`INSERT INTO "Commit" ("title", "cost", "at") VALUES ($1, $2, now())`, [ROW.title, ROW.cost]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
  };
  return { before, ready: () => ready.then(() => undefined) };
}

startAnchor({ ...(providerOf(url) === "sqlite" ? sqliteCommitter() : postgresCommitter()), defaultPort: 8091 });
