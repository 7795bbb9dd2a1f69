import { Prisma } from "../../../generated/prisma/sqlite/client";
import { upsertRows } from "../../db/bulk-insert";
import type { Database } from "../../db/database";
import { readCount, readItemRecords, type ItemRecordShape, type RowSource } from "../../db/item-records";
import { inList, insertRowReturningId, updateRows, type RowColumns } from "../../db/row-writes";
import type { Tx } from "../../db/transaction";
import type { LocalizedRow } from "../../i18n/localized-rows";
import type { Language } from "../../i18n/languages";
import { linkedPostCountSql, linkedPostPageSql } from "./linked-post-list-sql";
import type { LinkedPostFilters, LinkedPostOrder } from "./linked-post-query";
import type { LinkedPostTextField } from "./post-record";
import { itemIdBySlug } from "./post-repository";
import type { ResolvedPostFields } from "./post-fields";

/**
 * The statements on the tables of venues and organizers (TEC's "linked posts"), the same for both
 * but for the tables' names, written once here as raw statements through the driver (the names
 * come from LinkedPostTables, never from a request): records, pages (linked-post-list-sql.ts),
 * inserts and saves, slugs taken, text rows, links to events, the kept slug, deletion. Each
 * resource's repository (venue-repository.ts, organizer-repository.ts) gives its tables and its
 * record's shape.
 */

/** The tables of one model (venue or organizer): the item's, its texts', its links' to events; its record's shape. */
export interface LinkedPostTables {
  record: ItemRecordShape;
  table: "Venue" | "Organizer";
  textTable: "VenueText" | "OrganizerText";
  linkTable: "EventVenue" | "EventOrganizer";
  /** The column that names the item in its text and link tables. */
  key: "venueId" | "organizerId";
}

/** What the fields of a new item are, besides its own columns. */
export type NewItemFields = ResolvedPostFields & { sourceLanguage: string; slug: string; modifiedAt: Date };

/** Every statement on one model's tables. */
export interface LinkedPostRepository<R, C> {
  tables: LinkedPostTables;
  /** An item's record, through the driver: outside a write (`db.direct`) or in it (`tx`). */
  find(source: RowSource, id: number): Promise<R | null>;
  /** The records of items `ids` (in no particular order). */
  findAll(source: RowSource, ids: number[]): Promise<R[]>;
  /** The ids of a page of the list, in order, and its total. */
  page(
    db: Database,
    filters: LinkedPostFilters,
    order: LinkedPostOrder,
    page: { offset: number; limit: number },
  ): Promise<{ ids: number[]; total: number }>;
  insert(tx: Tx, columns: C, fields: NewItemFields): Promise<number>;
  /** Writes the given columns of the item (and counts the write). */
  save(tx: Tx, id: number, columns: RowColumns): Promise<void>;
  /**
   * Slugs among `candidates` taken in `language` by another item than `excludeId`, and, when
   * `asKept`, as the kept source-language slug of another item (Venue.slug must stay unique).
   */
  takenSlugs(
    tx: Tx,
    language: string,
    candidates: string[],
    excludeId: number | null,
    asKept: boolean,
  ): Promise<string[]>;
  /** Stores one language's text row of an item. */
  saveText(tx: Tx, id: number, row: LocalizedRow<LinkedPostTextField>): Promise<void>;
  /** Sets the kept (source language) slug of an item. */
  saveKeptSlug(tx: Tx, id: number, slug: string): Promise<void>;
  /** Removes an item's links to events, which count it as a write of theirs (their version). */
  unlinkEvents(tx: Tx, id: number): Promise<void>;
  /** Deletes an item for good (its texts go with it). */
  deleteItem(tx: Tx, id: number): Promise<void>;
  /** The ids of the first `limit` items outside the trash with a text row whose sort key is `sortKey`, oldest first. */
  sameNamedIds(tx: Tx, sortKey: string, limit: number): Promise<number[]>;
  /** The id of the item a slug names (see slug-sql.ts for the language order). */
  idBySlug(db: Database, slug: string, language: Language, defaultLanguage: Language): Promise<number | null>;
  /** Of `ids`, the items that exist, with what says who may see them. */
  owners(db: Database, ids: number[]): Promise<Array<{ status: string; authorId: number }>>;
}

/** The statements of LinkedPostRepository that are the same for venues and organizers. */
export function linkedPostStatements<R, C extends RowColumns>(tables: LinkedPostTables): LinkedPostRepository<R, C> {
  const table = Prisma.raw(`"${tables.table}"`);
  const textTable = Prisma.raw(`"${tables.textTable}"`);
  const links = Prisma.raw(`"${tables.linkTable}"`);
  const key = Prisma.raw(`"${tables.key}"`);
  return {
    tables,
    async find(source, id) {
      const [record] = await readItemRecords<R>(source, tables.record, Prisma.sql`"i"."id" = ${id}`);
      return record ?? null;
    },
    findAll: (source, ids) => readItemRecords<R>(source, tables.record, inList("i.id", ids)),
    async page(db, filters, order, page) {
      const [rows, total] = await Promise.all([
        db.direct.rows<{ id: number | string }>(linkedPostPageSql(tables, filters, order, page)),
        readCount(db, linkedPostCountSql(tables, filters)),
      ]);
      return { ids: rows.map((row) => Number(row.id)), total };
    },
    insert: (tx, columns, fields) =>
      insertRowReturningId(tx, tables.table, { ...columns, ...fields, createdAt: fields.modifiedAt }),
    async save(tx, id, columns) {
      await updateRows(tx, tables.table, Prisma.sql`"id" = ${id}`, columns, { countVersion: true });
    },
    async takenSlugs(tx, language, candidates, excludeId, asKept) {
      const other = excludeId === null ? Prisma.empty : Prisma.sql` AND ${key} <> ${excludeId}`;
      const rows = await tx.$queryRaw<Array<{ slug: string }>>(
        Prisma.sql`SELECT "slug" FROM ${textTable} WHERE "language" = ${language} AND "slug" IN (${Prisma.join(candidates)})${other}`,
      );
      if (asKept) {
        const otherItem = excludeId === null ? Prisma.empty : Prisma.sql` AND "id" <> ${excludeId}`;
        rows.push(
          ...(await tx.$queryRaw<Array<{ slug: string }>>(
            Prisma.sql`SELECT "slug" FROM ${table} WHERE "slug" IN (${Prisma.join(candidates)})${otherItem}`,
          )),
        );
      }
      return rows.map((row) => row.slug);
    },
    async saveText(tx, id, row) {
      const { own, language, searchText, sortKey } = row;
      const { name, description, slug } = own;
      await upsertRows(
        tx,
        tables.textTable,
        [tables.key, "language"],
        [{ [tables.key]: id, language, name, description, slug, searchText, sortKey }],
      );
    },
    async saveKeptSlug(tx, id, slug) {
      await tx.$executeRaw`UPDATE ${table} SET "slug" = ${slug} WHERE "id" = ${id}`;
    },
    async unlinkEvents(tx, id) {
      await tx.$executeRaw`UPDATE "Event" SET "version" = "version" + 1 WHERE "id" IN (SELECT "eventId" FROM ${links} WHERE ${key} = ${id})`;
      await tx.$executeRaw`DELETE FROM ${links} WHERE ${key} = ${id}`;
    },
    async deleteItem(tx, id) {
      await tx.$executeRaw`DELETE FROM ${table} WHERE "id" = ${id}`;
    },
    async sameNamedIds(tx, sortKey, limit) {
      const rows = await tx.$queryRaw<Array<{ id: number | bigint }>>(
        Prisma.sql`SELECT DISTINCT "t".${key} AS "id" FROM ${textTable} "t" JOIN ${table} "i" ON "i"."id" = "t".${key}
          WHERE "t"."sortKey" = ${sortKey} AND "i"."status" <> 'trash' ORDER BY "t".${key} LIMIT ${limit}`,
      );
      return rows.map((row) => Number(row.id));
    },
    idBySlug: (db, slug, language, defaultLanguage) =>
      itemIdBySlug(db, tables.textTable, slug, language, defaultLanguage),
    async owners(db, ids) {
      const rows = await db.direct.rows<{ status: string; authorId: number | bigint }>(
        Prisma.sql`SELECT "status", "authorId" FROM ${table} WHERE ${inList("id", ids)}`,
      );
      return rows.map((row) => ({ status: row.status, authorId: Number(row.authorId) }));
    },
  };
}
