import { Prisma, type Term } from "../../../generated/prisma/sqlite/client";
import { upsertRows } from "../../db/bulk-insert";
import type { Database } from "../../db/database";
import {
  neededInPageOrder,
  readCount,
  readItemRecords,
  type ItemRecordShape,
  type RowSource,
} from "../../db/item-records";
import { inList, insertRowReturningId, updateRows, type ColumnsOf } from "../../db/row-writes";
import type { Tx } from "../../db/transaction";
import { isItemId } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import {
  TERM_COLUMNS,
  TERM_VALUE_TYPES,
  termSelect,
  type Taxonomy,
  type TermListQuery,
  type TermRecord,
} from "./term-record";
import { languageOrderSql } from "../post-kernel/slug-sql";
import { slugLookupKeys } from "../../text/slug";
import { termCountSql, termPageSql } from "./term-list-sql";

/**
 * Every statement on the term tables ("Term", "TermText"), each a named function, each a raw
 * statement through the driver: records (item-records.ts), pages (term-list-sql.ts), and every
 * write in its transaction (db/driver-transaction.ts). Events embed terms through their
 * own record statement (event-repository.ts), with the columns and value types of term-record.ts.
 */

const TERM_RECORD: ItemRecordShape = {
  table: "Term",
  columns: Object.keys(TERM_COLUMNS),
  textTable: "TermText",
  textKey: "termId",
  textColumns: Object.keys(termSelect.texts.select),
  valueTypes: TERM_VALUE_TYPES,
};

/**
 * Lists a page of terms: its ids in order, the records of those `needed` (default: all; the
 * others' representations are kept) in page order, and the total. Terms are listed through their
 * text row in the request language.
 */
export async function listTerms(
  db: Database,
  query: TermListQuery,
  needed: (id: number) => boolean = () => true,
): Promise<{ ids: number[]; items: TermRecord[]; total: number }> {
  type Row = { id: number | string; total: number | bigint | string };
  // Ordering by the `include` list: that list is short (at most 100), so order it here.
  const byInclude = query.orderBy === "include" && query.includeIds !== undefined;
  const rows = await db.direct.rows<Row>(termPageSql(query, { whole: byInclude }));
  let ids = rows.map((row) => Number(row.id));
  if (byInclude) {
    const position = new Map(query.includeIds!.map((id, index) => [id, index]));
    ids.sort((a, b) => (position.get(a)! - position.get(b)!) * (query.order === "desc" ? -1 : 1));
    ids = ids.slice(query.offset, query.offset + query.limit);
  }
  // A page past the last one has no row to carry the total.
  const total =
    rows.length > 0
      ? Number(rows[0].total)
      : query.offset === 0 || byInclude
        ? 0
        : await readCount(db, termCountSql(query));
  const items = await neededInPageOrder(ids, needed, (wanted) =>
    readItemRecords<TermRecord>(db, TERM_RECORD, inList("i.id", wanted)),
  );
  return { ids, items, total };
}

/** A term's record, through the driver: outside a write (`db.direct`) or in it (`tx`). */
export async function findTerm(source: RowSource, taxonomy: Taxonomy, id: number): Promise<TermRecord | null> {
  const where = Prisma.sql`"i"."id" = ${id} AND "i"."taxonomy" = ${taxonomy}`;
  const [record] = await readItemRecords<TermRecord>(source, TERM_RECORD, where);
  return record ?? null;
}

/** The term of this taxonomy with this id: the only lookup of a term by reference (terms have no by-slug routes). */
export function resolveTerm(db: Database, taxonomy: Taxonomy, id: number): Promise<TermRecord | null> {
  return isItemId(id) ? findTerm(db, taxonomy, id) : Promise.resolve(null);
}

/**
 * The term each of `slugs` names, by the slug lookup's language order and keys (see slug-sql.ts:
 * `Music` finds `music`): one statement for them all.
 */
async function termIdsBySlug(
  db: Database,
  taxonomy: Taxonomy,
  slugs: string[],
  language: Language,
  defaultLanguage: Language,
): Promise<Map<string, number>> {
  const order = languageOrderSql(Prisma.raw(`"language"`), language, defaultLanguage);
  const keysOf = new Map(slugs.map((slug) => [slug, slugLookupKeys(slug)]));
  const keys = [...new Set([...keysOf.values()].flat())];
  if (keys.length === 0) return new Map();
  const rows = await db.direct.rows<{ slug: string; termId: number | bigint }>(
    Prisma.sql`SELECT "slug", "termId" FROM (SELECT "slug", "termId", ROW_NUMBER() OVER (PARTITION BY "slug" ORDER BY ${order}) AS "rank"
      FROM "TermText" WHERE "taxonomy" = ${taxonomy} AND "slug" IN (${Prisma.join(keys)})) "m" WHERE "rank" = 1`,
  );
  const termOfKey = new Map(rows.map((row) => [row.slug, Number(row.termId)]));
  const terms = new Map<string, number>();
  for (const [slug, candidates] of keysOf) {
    const key = candidates.find((candidate) => termOfKey.has(candidate));
    if (key !== undefined) terms.set(slug, termOfKey.get(key)!);
  }
  return terms;
}

/**
 * Ids of the terms that `refs` name, each ref an id or a slug (of the request language first,
 * then the default one, then any). Refs that name no term of the taxonomy come back in `unknown`.
 */
export async function resolveTermRefs(
  db: Database,
  taxonomy: Taxonomy,
  refs: string[],
  language: Language,
  defaultLanguage: Language,
): Promise<{ ids: number[]; unknown: string[] }> {
  const numeric = refs.filter((ref) => /^\d+$/.test(ref) && Number(ref) <= 2_147_483_647).map(Number);
  const slugs = refs.filter((ref) => !/^\d+$/.test(ref));
  const [byId, bySlug] = await Promise.all([
    numeric.length
      ? db.direct.rows<{ id: number | bigint }>(
          Prisma.sql`SELECT "id" FROM "Term" WHERE "taxonomy" = ${taxonomy} AND ${inList("id", numeric)}`,
        )
      : [],
    slugs.length ? termIdsBySlug(db, taxonomy, slugs, language, defaultLanguage) : new Map<string, number>(),
  ]);
  const knownIds = new Set(byId.map((term) => Number(term.id)));
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const ref of refs) {
    if (/^\d+$/.test(ref)) {
      if (knownIds.has(Number(ref))) ids.push(Number(ref));
      else unknown.push(ref);
      continue;
    }
    const match = bySlug.get(ref);
    if (match !== undefined) ids.push(match);
    else unknown.push(ref);
  }
  return { ids: [...new Set(ids)], unknown };
}

/** A term's text row in a language, as a write stores it. */
export interface TermTextRow {
  name: string | null;
  description: string | null;
  slug: string | null;
  searchText: string;
  sortKey: string;
  slugKey: string;
}

/** Writes a term's text row in a language (made, or replaced). */
export async function saveTermText(
  tx: Tx,
  term: { id: number; taxonomy: string },
  language: string,
  row: TermTextRow,
): Promise<void> {
  const { name, description, slug, searchText, sortKey, slugKey } = row;
  const { id: termId, taxonomy } = term;
  const stored = { termId, language, taxonomy, name, description, slug, searchText, sortKey, slugKey };
  await upsertRows(tx, "TermText", ["termId", "language"], [stored]);
}

/** The parent of a category (undefined: no such category). */
export async function parentOfCategory(tx: Tx, id: number): Promise<number | null | undefined> {
  const [row] = await tx.$queryRaw<Array<{ parentId: number | bigint | null }>>`
    SELECT "parentId" FROM "Term" WHERE "id" = ${id} AND "taxonomy" = 'category'`;
  return row === undefined ? undefined : row.parentId === null ? null : Number(row.parentId);
}

/** A term of the taxonomy, other than `exceptId`, under `parentId` (when hierarchical) with this name's sort key in `language`. */
export async function sameNamedTerm(
  tx: Tx,
  where: {
    taxonomy: Taxonomy;
    hierarchical: boolean;
    language: string;
    sortKey: string;
    parentId: number | null;
    exceptId: number | null;
  },
): Promise<number | null> {
  const parent = !where.hierarchical
    ? Prisma.empty
    : where.parentId === null
      ? Prisma.sql` AND "i"."parentId" IS NULL`
      : Prisma.sql` AND "i"."parentId" = ${where.parentId}`;
  const other = where.exceptId !== null ? Prisma.sql` AND "i"."id" <> ${where.exceptId}` : Prisma.empty;
  const [clash] = await tx.$queryRaw<Array<{ termId: number | bigint }>>`
    SELECT "t"."termId" FROM "TermText" "t" JOIN "Term" "i" ON "i"."id" = "t"."termId"
    WHERE "t"."language" = ${where.language} AND "t"."sortKey" = ${where.sortKey} AND "i"."taxonomy" = ${where.taxonomy}${parent}${other}
    LIMIT 1`;
  return clash === undefined ? null : Number(clash.termId);
}

/** Of `candidates`, the slugs terms of the taxonomy other than `exceptId` have in `language`. */
export async function takenTermSlugs(
  tx: Tx,
  taxonomy: Taxonomy,
  language: string,
  candidates: string[],
  exceptId: number | null,
): Promise<string[]> {
  if (candidates.length === 0) return [];
  const other = exceptId !== null ? Prisma.sql` AND "termId" <> ${exceptId}` : Prisma.empty;
  const taken = await tx.$queryRaw<Array<{ slug: string }>>`SELECT "slug" FROM "TermText"
    WHERE "taxonomy" = ${taxonomy} AND "language" = ${language} AND "slug" IN (${Prisma.join(candidates)})${other}`;
  return taken.map((row) => row.slug);
}

/** The text rows of terms of the taxonomy whose slug is one of `slugs` or whose sort key one of `sortKeys`, by term id. */
export async function termTextsMatching(
  tx: Tx,
  taxonomy: Taxonomy,
  slugs: string[],
  sortKeys: string[],
): Promise<Array<{ termId: number; slug: string | null; sortKey: string; language: string }>> {
  const rows = await tx.$queryRaw<
    Array<{ termId: number | bigint; slug: string | null; sortKey: string; language: string }>
  >`
    SELECT "termId", "slug", "sortKey", "language" FROM "TermText"
    WHERE "taxonomy" = ${taxonomy} AND (${inList("slug", slugs)} OR ${inList("sortKey", sortKeys)}) ORDER BY "termId"`;
  return rows.map((row) => ({ ...row, termId: Number(row.termId) }));
}

/** Columns of a term's row, as writes give them. */
export type TermColumns = ColumnsOf<Term>;

/** Makes a term's row (made now: `createdAt`); its id. */
export function insertTerm(tx: Tx, columns: TermColumns & { createdAt: Date }): Promise<number> {
  return insertRowReturningId(tx, "Term", columns);
}

/** Writes a term's columns, and counts the write. */
export async function saveTerm(tx: Tx, id: number, columns: TermColumns): Promise<void> {
  await updateRows(tx, "Term", Prisma.sql`"id" = ${id}`, columns, { countVersion: true });
}

/** Deletes a term for good: its children move up to `parentId`, and the events that had it count the change as a write of theirs. */
export async function deleteTermRow(tx: Tx, id: number, parentId: number | null): Promise<void> {
  await updateRows(tx, "Term", Prisma.sql`"parentId" = ${id}`, { parentId }, { countVersion: true });
  await tx.$executeRaw`UPDATE "Event" SET "version" = "version" + 1 WHERE "id" IN (SELECT "eventId" FROM "EventTerm" WHERE "termId" = ${id})`;
  await tx.$executeRaw`DELETE FROM "Term" WHERE "id" = ${id}`;
}

/**
 * Keeps terms a write links or unlinks from being deleted until it commits (PostgreSQL; SQLite
 * writes one at a time anyway), without making concurrent writers of their links wait: their
 * counts are written as the transaction commits (see transaction.ts). Answers their taxonomies.
 */
export async function lockTermsToLink(db: Database, tx: Tx, ids: number[]): Promise<Map<number, string>> {
  const lock = db.provider === "postgresql" ? Prisma.sql` FOR KEY SHARE` : Prisma.empty;
  const rows = await tx.$queryRaw<Array<{ id: number; taxonomy: string }>>(
    Prisma.sql`SELECT "id", "taxonomy" FROM "Term" WHERE "id" IN (${Prisma.join(ids)}) ORDER BY "id"${lock}`,
  );
  return new Map(rows.map((row) => [Number(row.id), row.taxonomy]));
}

/** Whether every one of `ids` is a term of the taxonomy (a webhook filter's check). */
export async function termsExist(db: Database, taxonomy: Taxonomy, ids: number[]): Promise<boolean> {
  const [{ found }] = await db.direct.rows<{ found: number | bigint | string }>(
    Prisma.sql`SELECT COUNT(*) AS "found" FROM "Term" WHERE "taxonomy" = ${taxonomy} AND ${inList("id", [...new Set(ids)])}`,
  );
  return Number(found) === new Set(ids).size;
}

/** Of these ids, those of existing terms of the taxonomy, in the order given. */
export async function existingTermIds(db: Database, taxonomy: Taxonomy, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.direct.rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "Term" WHERE "taxonomy" = ${taxonomy} AND ${inList("id", [...new Set(ids)])}`,
  );
  const found = new Set(rows.map((row) => Number(row.id)));
  return ids.filter((id) => found.has(id));
}
