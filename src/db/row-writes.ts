import { Prisma } from "../../generated/prisma/sqlite/client";
import type { ColumnValue } from "./bulk-insert";
import type { Tx } from "./driver-transaction";

/**
 * The statements of one row's write, built from its columns as the repositories give them (the
 * models' names and plain values; undefined: not written). The driver binds the values as Prisma
 * stores them (booleans, instants: see direct-reads.ts). Table and column names come from the
 * code, never from a request.
 */

export type RowColumns = Record<string, ColumnValue | undefined>;

/** Some columns of a model's row (its scalar fields: e.g. `ColumnsOf<Event>`), each a plain value. */
export type ColumnsOf<Model> = { [K in keyof Model]?: Model[K] extends ColumnValue ? Model[K] : never };

/** An instant as a driver reads it from a row: SQLite's ISO text, PostgreSQL's Date (null stays null). */
export function instantOf(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}

/** A number as a driver reads it from a row (PostgreSQL gives BIGINT and NUMERIC as text; null stays null). */
export function numberOrNullOf(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function given(columns: RowColumns): Array<[string, ColumnValue]> {
  return Object.entries(columns).flatMap(([column, value]): Array<[string, ColumnValue]> => {
    if (value === undefined) return [];
    if (value !== null && typeof value === "object" && !(value instanceof Date))
      throw new TypeError(`column "${column}" takes a plain value`);
    return [[column, value]];
  });
}

const quoted = (name: string) => Prisma.raw(`"${name}"`);

/** Makes a row; its id (the table's `id`). */
export async function insertRowReturningId(tx: Tx, table: string, columns: RowColumns): Promise<number> {
  const entries = given(columns);
  const [row] = await tx.$queryRaw<Array<{ id: number | bigint }>>(
    Prisma.sql`INSERT INTO ${quoted(table)} (${Prisma.join(entries.map(([column]) => quoted(column)))})
      VALUES (${Prisma.join(entries.map(([, value]) => value))}) RETURNING "id"`,
  );
  return Number(row.id);
}

/**
 * Writes `columns` of the rows `where` selects (a condition on the table's own columns); with
 * `countVersion`, their `version` counts the write. How many rows it changed.
 */
export async function updateRows(
  tx: Tx,
  table: string,
  where: Prisma.Sql,
  columns: RowColumns,
  { countVersion = false } = {},
): Promise<number> {
  const sets = given(columns).map(([column, value]) => Prisma.sql`${quoted(column)} = ${value}`);
  if (countVersion) sets.push(Prisma.sql`"version" = "version" + 1`);
  if (sets.length === 0) return 0;
  return tx.$executeRaw(Prisma.sql`UPDATE ${quoted(table)} SET ${Prisma.join(sets)} WHERE ${where}`);
}

/** `"column" IN (…)` (or `"alias"."column"` for `alias.column`) for a list that may be empty (then no row). */
export function inList(column: string, values: Array<string | number>): Prisma.Sql {
  const name = Prisma.raw(
    column
      .split(".")
      .map((part) => `"${part}"`)
      .join("."),
  );
  return values.length === 0 ? Prisma.sql`1 = 0` : Prisma.sql`${name} IN (${Prisma.join(values)})`;
}

/** A LIKE pattern (with `ESCAPE '\\'`) that finds `text` as written: its `%`, `_` and `\\` literal. */
export function likePatternContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
