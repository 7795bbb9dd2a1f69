// The seeder's bulk path on PostgreSQL: rows go in through COPY ... FROM STDIN (text format) on a
// connection of its own, faster than multi-row INSERTs through Prisma. Triggers
// fire for copied rows as for inserted ones, so the sync log and the counts come out the same.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";

type Value = string | number | boolean | Date | null | undefined;

/** One value in COPY's text format: \N for null, t/f, instants in ISO form, text escaped. */
function copyText(value: Value): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "boolean") return value ? "t" : "f";
  // Columns without time zone keep the UTC wall clock (as Prisma writes them); the "Z" is ignored.
  if (value instanceof Date) return value.toISOString();
  return String(value).replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);
}

export interface Copier {
  /** Copies rows into `table`; the columns are those any row gives, a row without one gives it null. */
  copy(table: string, rows: Array<Record<string, Value>>): Promise<void>;
  end(): Promise<void>;
}

export async function openCopier(url: string): Promise<Copier> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    async copy(table, rows) {
      if (rows.length === 0) return;
      const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
      const lines = rows.map((row) => `${columns.map((column) => copyText(row[column])).join("\t")}\n`);
      const names = columns.map((column) => `"${column}"`).join(", ");
      await pipeline(Readable.from(lines), client.query(copyFrom(`COPY "${table}" (${names}) FROM STDIN`)));
    },
    end: () => client.end(),
  };
}
