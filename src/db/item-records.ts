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
 * The records of the items `where` selects (a condition on the item aliased "i"), in `orderBy`
 * order (default: by id), as the resource's Prisma select would give them: one statement.
 */
export async function readItemRecords<R>(
  source: RowSource,
  shape: ItemRecordShape,
  where: Prisma.Sql,
  orderBy: Prisma.Sql = Prisma.sql`"i"."id"`,
): Promise<R[]> {
  const reads = rowsOf(source);
  const rows = await reads.rows<{ record: unknown }>(
    Prisma.sql`SELECT ${Prisma.raw(recordSql(reads.provider, shape))} AS "record" FROM ${Prisma.raw(`"${shape.table}"`)} "i" WHERE ${where} ORDER BY ${orderBy}`,
  );
  return rows.map((row) => revive<R>(row.record, shape.valueTypes));
}
