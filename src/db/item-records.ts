import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Database, Provider } from "./database";
import type { Tx } from "./driver-transaction";
import { columns, jsonSql, revive, type ValueTypes } from "./sql-json";

/**
 * Where a repository reads rows through the driver: outside a write, the database (its direct
 * reads: committed data); inside one, the write's transaction (what it wrote too).
 */
export type RowSource = Database | Tx;

/** The reads of a RowSource. */
export function rowsOf(source: RowSource): Pick<Tx, "provider" | "rows"> {
  return "direct" in source ? source.direct : source;
}

/** The number a `SELECT COUNT(*) AS "total" …` statement gives (0 for a NULL sum). */
export async function readCount(source: RowSource, query: Prisma.Sql): Promise<number> {
  const [row] = await rowsOf(source).rows<{ total: number | bigint | string | null }>(query);
  return Number(row.total ?? 0);
}

/** An item's record as stored: its table's columns and its text rows, one per language. */
export interface ItemRecordShape {
  table: string;
  columns: readonly string[];
  textTable: string;
  /** The text table's column naming the item. */
  textKey: string;
  textColumns: readonly string[];
  valueTypes: ValueTypes;
}

const sqlByShape = new Map<string, string>();

/** The JSON expression of the record of the item aliased "i", its texts in language order. */
function recordSql(provider: Provider, shape: ItemRecordShape): string {
  const key = `${provider}:${shape.table}`;
  let sql = sqlByShape.get(key);
  if (sql === undefined) {
    const json = jsonSql(provider);
    const texts = json.array(
      json.object(columns("t", shape.textColumns)),
      `"${shape.textTable}" "t" WHERE "t"."${shape.textKey}" = "i"."id"`,
      `"t"."language"`,
    );
    sql = json.object({ ...columns("i", shape.columns), texts });
    sqlByShape.set(key, sql);
  }
  return sql;
}

/**
 * The records of the items `where` selects (a condition on the item aliased "i"), by id, as the
 * resource's Prisma select would give them: one statement.
 */
export async function readItemRecords<R>(source: RowSource, shape: ItemRecordShape, where: Prisma.Sql): Promise<R[]> {
  const reads = rowsOf(source);
  const rows = await reads.rows<{ record: unknown }>(
    Prisma.sql`SELECT ${Prisma.raw(recordSql(reads.provider, shape))} AS "record" FROM ${Prisma.raw(`"${shape.table}"`)} "i" WHERE ${where} ORDER BY "i"."id"`,
  );
  return rows.map((row) => revive<R>(row.record, shape.valueTypes));
}

/**
 * Of a page's `ids`, the records of those `needed` (the others' representations are kept), in
 * page order, read with `read` (in any order); an item gone meanwhile is left out.
 */
export async function neededInPageOrder<R extends { id: number }>(
  ids: number[],
  needed: (id: number) => boolean,
  read: (ids: number[]) => Promise<R[]>,
): Promise<R[]> {
  const wanted = ids.filter(needed);
  const records = new Map((wanted.length > 0 ? await read(wanted) : []).map((record) => [record.id, record]));
  return wanted.flatMap((id) => records.get(id) ?? []);
}
