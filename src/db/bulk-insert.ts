import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Tx } from "./transaction";

/** Values a row can carry to a column (the driver adapter converts them as it converts Prisma's own). */
export type ColumnValue = string | number | boolean | Date | null;

// Prisma's SQLite driver takes at most 999 parameters in one statement.
const MAX_PARAMETERS = 900;

function insertStatements(
  table: string,
  rows: Array<Record<string, ColumnValue>>,
  returning: string[],
  onConflict: Prisma.Sql = Prisma.empty,
): Prisma.Sql[] {
  const columns = Object.keys(rows[0]);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const names = Prisma.raw(columns.map((column) => `"${column}"`).join(", "));
  const returned =
    returning.length > 0
      ? Prisma.raw(` RETURNING ${returning.map((column) => `"${column}"`).join(", ")}`)
      : Prisma.empty;
  const statements: Prisma.Sql[] = [];
  for (let first = 0; first < rows.length; first += perStatement) {
    const values = rows
      .slice(first, first + perStatement)
      .map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => row[column]))})`);
    statements.push(
      Prisma.sql`INSERT INTO ${Prisma.raw(`"${table}"`)} (${names}) VALUES ${Prisma.join(values)}${onConflict}${returned}`,
    );
  }
  return statements;
}

/**
 * Inserts rows (all with the same columns) with multi-row raw statements: the work of a series'
 * hundreds of occurrences, which Prisma's createMany plans for as long as the database takes to
 * write them. Columns with database defaults may be left out; Prisma-side defaults (`@default(now())`)
 * are not applied: give them.
 */
export async function insertRows(tx: Tx, table: string, rows: Array<Record<string, ColumnValue>>): Promise<void> {
  if (rows.length === 0) return;
  for (const statement of insertStatements(table, rows, [])) await tx.$executeRaw(statement);
}

/** insertRows, answering the `returning` columns of the rows made (in no particular order). */
export async function insertRowsReturning<R>(
  tx: Tx,
  table: string,
  rows: Array<Record<string, ColumnValue>>,
  returning: string[],
): Promise<R[]> {
  const made: R[] = [];
  for (const statement of insertStatements(table, rows, returning)) made.push(...(await tx.$queryRaw<R[]>(statement)));
  return made;
}

/**
 * insertRows, each row replacing the one of the same `key` (the columns of a unique index): its
 * other columns take the row's values, columns it does not give keep theirs.
 */
export async function upsertRows(
  tx: Tx,
  table: string,
  key: string[],
  rows: Array<Record<string, ColumnValue>>,
): Promise<void> {
  if (rows.length === 0) return;
  const quote = (column: string) => `"${column}"`;
  const updates = Object.keys(rows[0])
    .filter((column) => !key.includes(column))
    .map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`);
  const onConflict = Prisma.raw(` ON CONFLICT (${key.map(quote).join(", ")}) DO UPDATE SET ${updates.join(", ")}`);
  for (const statement of insertStatements(table, rows, [], onConflict)) await tx.$executeRaw(statement);
}
