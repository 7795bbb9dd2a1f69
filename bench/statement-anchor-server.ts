// The benchmark's statement anchor: Express answering every write with a body made before the
// run (the service's own answer, as the other anchors do), after the bare driver has run the
// statements the service ran for one such write (recorded by bench/record-statements.ts), in the
// order it ran them, its own BEGIN and COMMIT included, on one connection: prepared, with the
// service's durability (SQLite: WAL, synchronous=FULL, one write connection; PostgreSQL: a pool of
// the service's size, 10). What a write scenario reaches of its rate is what the service's own work
// (HTTP, validation, permissions, building the statements, serializing) leaves of what its
// statements cost on this machine. The statements run on the benchmark's database, as the
// service's did: the events they make are removed after the run with the service's.
//
// Each run of the recording is made this request's own: in the values, the recorded request's
// strings (its body's, and their slugs) and path numbers become this request's; ids the recorded
// INSERT ... RETURNING gave become those this run's give; UUIDs become new ones; an advisory lock's
// key becomes one of this request's (see replay). A recorded number equal to the path's is taken
// for it: the benchmark patches ids above 1,000, which no flag, limit or count of those statements
// equals.
//   node --import tsx bench/statement-anchor-server.ts   (STATEMENT_DATABASE_URL, PORT)
//   PUT /__statements sets the recording: { path, body, statements }.
import { createHash, randomUUID } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import express from "express";
import { Pool, type PoolClient } from "pg";
import { providerOf, sqlitePath } from "../src/db/database";
import { preparedStatements, statementName } from "../src/db/direct-reads";
import { slugify } from "../src/text/slug";
import { startAnchor } from "./anchor";
import { decodeValue, type RecordedStatement } from "./recording";

const url = process.env.STATEMENT_DATABASE_URL;
if (!url) throw new Error("STATEMENT_DATABASE_URL names the database the service's statements run on");

interface Recording {
  path: string;
  body: string;
  statements: RecordedStatement[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** This request's values for the recorded request's: its body's strings and their slugs, its path's numbers. */
function substitutionsOf(recording: Recording, path: string, body: string) {
  const strings = new Map<string, string>();
  const numbers = new Map<number, number>();
  const stringsOf = (text: string): string[] => {
    try {
      return Object.values(JSON.parse(text) as Record<string, unknown>).filter(
        (v): v is string => typeof v === "string",
      );
    } catch {
      return [];
    }
  };
  const [recordedStrings, givenStrings] = [stringsOf(recording.body), stringsOf(body)];
  recordedStrings.forEach((recorded, i) => {
    const given = givenStrings[i];
    if (given === undefined || given === recorded) return;
    strings.set(recorded, given);
    strings.set(slugify(recorded), slugify(given));
  });
  const [recordedParts, givenParts] = [recording.path.split("/"), path.split("/")];
  recordedParts.forEach((part, i) => {
    if (/^\d+$/.test(part) && /^\d+$/.test(givenParts[i] ?? "")) numbers.set(Number(part), Number(givenParts[i]));
  });
  return { strings, numbers };
}

/** A driver's integer (PostgreSQL gives BIGINT as text) or a recorded, tagged one, as a number. */
const asNumber = (value: unknown) => Number(typeof value === "object" ? decodeValue(value) : value);

/** Runs one recording for one request, through `run` (one statement, its rows). */
async function replay(
  recording: Recording,
  path: string,
  body: string,
  run: (statement: RecordedStatement, values: unknown[]) => Promise<Array<Record<string, unknown>>>,
): Promise<void> {
  const { strings, numbers } = substitutionsOf(recording, path, body);
  // An advisory lock's key is a hash of what the write is about (a slug's base): this request's
  // differs from the recorded one's when its strings do, as the service's would.
  const requestStrings = [...strings.values()].sort().join("\n");
  const uuids = new Map<string, string>();
  for (const text of recording.statements.flatMap((s) => s.values).filter((v) => typeof v === "string"))
    for (const uuid of (text as string).match(UUID) ?? []) if (!uuids.has(uuid)) uuids.set(uuid, randomUUID());
  for (const [recorded, given] of uuids) strings.set(recorded, given);
  const pattern =
    strings.size > 0
      ? new RegExp(
          [...strings.keys()]
            .sort((a, b) => b.length - a.length)
            .map((key) => `${escaped(key)}(?![0-9])`)
            .join("|"),
          "g",
        )
      : null;
  const valueFor = (value: unknown): unknown => {
    if (typeof value === "number") return numbers.get(value) ?? value;
    if (typeof value === "bigint") return numbers.has(Number(value)) ? BigInt(numbers.get(Number(value))!) : value;
    if (typeof value === "string" && pattern) return value.replace(pattern, (found) => strings.get(found) ?? found);
    return value;
  };
  const lockKeyFor = (value: unknown) =>
    requestStrings
      ? createHash("sha256")
          .update(`${String(value)}\n${requestStrings}`)
          .digest()
          .readBigInt64BE(0)
          .toString()
      : value;
  for (const statement of recording.statements) {
    const values = statement.values.map(decodeValue);
    const rows = await run(
      statement,
      /pg_advisory_xact_lock/.test(statement.sql) ? values.map(lockKeyFor) : values.map(valueFor),
    );
    statement.returned?.forEach((recordedRow, i) => {
      for (const [column, recorded] of Object.entries(recordedRow)) {
        const given = rows[i]?.[column];
        if (given !== undefined && Number.isInteger(asNumber(recorded)))
          numbers.set(asNumber(recorded), asNumber(given));
      }
    });
  }
}

function sqliteRunner(): (recording: Recording, path: string, body: string) => Promise<void> {
  const db = new BetterSqlite3(sqlitePath(url!));
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;");
  const statementOf = preparedStatements(db);
  const run = async ({ sql }: RecordedStatement, values: unknown[]) => {
    const statement = statementOf(sql);
    if (statement.reader) return statement.all(...values) as Array<Record<string, unknown>>;
    statement.run(...values);
    return [];
  };
  return async (recording, path, body) => {
    try {
      await replay(recording, path, body, run);
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK");
    }
  };
}

function postgresRunner(): (recording: Recording, path: string, body: string) => Promise<void> {
  const pool = new Pool({ connectionString: url, max: 10 });
  return async (recording, path, body) => {
    const client: PoolClient = await pool.connect();
    let broken: Error | undefined;
    try {
      // Sent as the service sent it: named (prepared once per connection), or as a simple query.
      await replay(recording, path, body, async ({ sql, named }, values) =>
        named
          ? (await client.query({ name: statementName(sql), text: sql, values })).rows
          : (((await client.query(sql, values)) as unknown as { rows?: Array<Record<string, unknown>> }).rows ?? []),
      );
    } catch (error) {
      await client.query("ROLLBACK").catch((failed: Error) => (broken = failed));
      throw error;
    } finally {
      client.release(broken);
    }
  };
}

let recording: Recording | null = null;
const runRecording = providerOf(url) === "sqlite" ? sqliteRunner() : postgresRunner();
let reported = false;

startAnchor({
  readsBody: true,
  defaultPort: 8092,
  routes: (app) =>
    app.put("/__statements", express.json({ limit: "16mb" }), (req, res) => {
      recording = req.body as Recording;
      res.status(204).end();
    }),
  before: async (req) => {
    if (!recording) throw new Error("no statements recorded: PUT /__statements first");
    try {
      await runRecording(recording, req.path, typeof req.body === "string" ? req.body : "");
    } catch (error) {
      // Every failure is answered (the benchmark counts it); the first is told, with its cause.
      if (!reported) console.error("the statement anchor's run of the recording failed:", error);
      reported = true;
      throw error;
    }
  },
});
