// Loaded into a service process the benchmark starts to record what one write runs (node
// --require tsx/cjs --require bench/record-statements.ts dist/server.js): every statement sent
// through the drivers (pg's Client, better-sqlite3's statements) on behalf of a request that
// carries the RECORD_HEADER, until its response is sent, with its values and, for an INSERT ...
// RETURNING, the rows it returned. What else the process runs meanwhile (its start-up work, its
// timers) is not recorded. The statement anchor (bench/statement-anchor-server.ts) runs them
// again. The service's code is not changed: the drivers are wrapped where the process loads them.
//   RECORD_STATEMENTS_FILE names the file each statement is appended to, as one JSON line.
import { AsyncLocalStorage } from "node:async_hooks";
import { appendFileSync } from "node:fs";
import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import BetterSqlite3 from "better-sqlite3";
import { Client } from "pg";
import { encodeValue, RECORD_HEADER, type RecordedStatement } from "./recording";

const file = process.env.RECORD_STATEMENTS_FILE;
if (!file) throw new Error("RECORD_STATEMENTS_FILE names the file the statements are recorded to");

/** The request whose statements are being recorded, in its own asynchronous context. */
const recording = new AsyncLocalStorage<{ open: boolean }>();
const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event !== "request" || !(args[0] as IncomingMessage).headers[RECORD_HEADER])
    return emit.call(this, event, ...args);
  const state = { open: true };
  (args[1] as ServerResponse).once("finish", () => (state.open = false));
  return recording.run(state, () => emit.call(this, event, ...args));
} as typeof Server.prototype.emit;

const returning = (sql: string) => /\bRETURNING\b/i.test(sql);

function record(sql: string, values: unknown[], rows?: unknown[], named?: boolean): void {
  const statement: RecordedStatement = { sql, values: values.map(encodeValue), ...(named ? { named } : {}) };
  if (rows && returning(sql))
    statement.returned = (rows as Array<Record<string, unknown>>).map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, encodeValue(value)])),
    );
  appendFileSync(file!, `${JSON.stringify(statement)}\n`);
}

// PostgreSQL: Client#query(text | config, values?, callback?); the pool's queries go through it.
type QueryConfig = { text: string; values?: unknown[]; name?: string };
const query = Client.prototype.query as (...args: unknown[]) => unknown;
Client.prototype.query = function (this: Client, ...args: unknown[]) {
  const [first, second] = args;
  if (typeof first !== "string" && (typeof first !== "object" || first === null || !("text" in first)))
    return query.apply(this, args);
  const sql = typeof first === "string" ? first : (first as QueryConfig).text;
  const values = Array.isArray(second) ? second : ((first as QueryConfig).values ?? []);
  const named = typeof first === "object" && Boolean((first as QueryConfig).name);
  const result = query.apply(this, args);
  if (!recording.getStore()?.open) return result;
  if (result instanceof Promise)
    return result.then((answer: { rows?: unknown[] }) => {
      record(sql, values, answer?.rows, named);
      return answer;
    });
  record(sql, values, undefined, named);
  return result;
} as typeof Client.prototype.query;

// SQLite: the statements better-sqlite3 prepares, wrapped once on their shared prototype.
type Statement = BetterSqlite3.Statement;
const prepare = BetterSqlite3.prototype.prepare;
let wrapped = false;
BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
  const statement = prepare.call(this, source) as Statement;
  if (!wrapped) {
    wrapped = true;
    const prototype = Object.getPrototypeOf(statement) as Record<"run" | "all" | "get", (...v: unknown[]) => unknown>;
    for (const method of ["run", "all", "get"] as const) {
      const original = prototype[method];
      prototype[method] = function (this: Statement, ...values: unknown[]) {
        const result = original.apply(this, values);
        if (!recording.getStore()?.open) return result;
        const rows = method === "all" ? (result as unknown[]) : method === "get" && result ? [result] : undefined;
        record(this.source, values, rows);
        return result;
      };
    }
  }
  return statement;
} as typeof BetterSqlite3.prototype.prepare;
