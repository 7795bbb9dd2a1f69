import { randomUUID } from "node:crypto";
import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database, Db } from "../../db/database";
import { canReadItem } from "../../auth/visibility";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import { ApiError, ParamProblems, type ErrorCode } from "../../http/errors";
import { isItemId, type ItemRef, type WriteTarget } from "../../http/operation-types";
import { noneIfEmpty, type LocalizedRow } from "../../i18n/localized-rows";
import type { OwnText } from "../../i18n/localized-text";
import { markupFilterOf } from "../../text/kses";
import { normalizeForSearch, sortKeyOf } from "../../text/search-text";
import { changedColumns } from "./item-columns";
import { lockTarget } from "./item-lock";
import type { LanguageOrder } from "./item-operations";
import { nameForNewSlug, textRowsToWrite, type SharedText } from "./item-texts";
import { linkedPostWhere, type LinkedPostFilters, type LinkedPostOrder, type LinkedPostWhere } from "./linked-post-query";
import { LINKED_POST_TEXT, type LinkedPostTextField } from "./post-record";
import { resolvePostFields, type PostFieldsInput, type PostWriteContext, type ResolvedPostFields } from "./post-fields";
import { itemIdBySlug } from "./slug-lookup";
import { checkSlugHasLetters, freeSlug, retryOnSlugClash, slugBase } from "./unique-slug";

/**
 * The data layer venues and organizers share (TEC's "linked posts": the items events link to).
 * Each gives its model (its table, text table, columns and Prisma calls); the rules are here once.
 */

/** The stored shape every venue and organizer record has. */
export interface LinkedPostRecord {
  id: number;
  version: number;
  authorId: number;
  status: string;
  postDate: Date;
  sourceLanguage: string;
  texts: Array<OwnText<LinkedPostTextField>>;
}

/** What a write body of a venue or organizer gives that every post has: name, description, slug. */
export interface LinkedPostTextInput {
  description?: string | null;
  slug?: string;
}

/** The tables of one model (venue or organizer): the item's, its texts', its links' to events. */
export interface LinkedPostTables {
  table: "Venue" | "Organizer";
  textTable: "VenueText" | "OrganizerText";
  linkTable: "EventVenue" | "EventOrganizer";
  /** The column that names the item in its text and link tables. */
  key: "venueId" | "organizerId";
}

/** The Prisma calls and field mappings of one model (venue or organizer). */
export interface LinkedPostModel<R extends LinkedPostRecord, I extends PostFieldsInput & LinkedPostTextInput, C extends object> {
  tables: LinkedPostTables;
  /** Base of a slug when the name has no letters or digits at all. */
  fallbackSlug: string;
  /** The name in a write body, if given. */
  nameOf(input: I): string | undefined;
  /** The columns of the item itself (the same in every language) that a write body gives. */
  columns(input: I): C;
  /** Text shared by every language that `search` also looks in, from the item's columns. */
  sharedSearchText(columns: object): Array<string | null>;
  find(client: Db | Tx, id: number): Promise<R | null>;
  findMany(client: Db, where: LinkedPostWhere, orderBy: LinkedPostOrder, offset: number, limit: number): Promise<R[]>;
  count(client: Db, where: LinkedPostWhere): Promise<number>;
  insert(tx: Tx, columns: C, fields: ResolvedPostFields & { sourceLanguage: string; slug: string; modifiedAt: Date }): Promise<{ id: number }>;
  /** Writes the given columns of the item (and counts the write). */
  save(tx: Tx, id: number, columns: object): Promise<void>;
}

/**
 * Slugs among `candidates` taken in `language` by another item than `excludeId`, and, when
 * `asKept`, as the kept source-language slug of another item (Venue.slug must stay unique).
 */
async function takenSlugs(tx: Tx, tables: LinkedPostTables, language: string, candidates: string[], excludeId: number | null, asKept: boolean): Promise<string[]> {
  const other = excludeId === null ? Prisma.empty : Prisma.sql` AND ${Prisma.raw(`"${tables.key}"`)} <> ${excludeId}`;
  const rows = await tx.$queryRaw<Array<{ slug: string }>>(
    Prisma.sql`SELECT "slug" FROM ${Prisma.raw(`"${tables.textTable}"`)} WHERE "language" = ${language} AND "slug" IN (${Prisma.join(candidates)})${other}`,
  );
  if (asKept) {
    const otherItem = excludeId === null ? Prisma.empty : Prisma.sql` AND "id" <> ${excludeId}`;
    rows.push(...(await tx.$queryRaw<Array<{ slug: string }>>(Prisma.sql`SELECT "slug" FROM ${Prisma.raw(`"${tables.table}"`)} WHERE "slug" IN (${Prisma.join(candidates)})${otherItem}`)));
  }
  return rows.map((row) => row.slug);
}

/**
 * Removes an item's links to events. The events count it as a write of theirs (their
 * representation changes): a write of one of them then reads it again under its lock instead of
 * using what it found before.
 */
async function unlinkEvents(tx: Tx, tables: LinkedPostTables, id: number): Promise<void> {
  const links = Prisma.raw(`"${tables.linkTable}"`);
  const key = Prisma.raw(`"${tables.key}"`);
  await tx.$executeRaw`UPDATE "Event" SET "version" = "version" + 1 WHERE "id" IN (SELECT "eventId" FROM ${links} WHERE ${key} = ${id})`;
  await tx.$executeRaw`DELETE FROM ${links} WHERE ${key} = ${id}`;
}

/** Stores one language's text row of an item (the same statement on SQLite and PostgreSQL). */
async function upsertText(tx: Tx, tables: LinkedPostTables, id: number, row: LocalizedRow<LinkedPostTextField>): Promise<void> {
  const { own } = row;
  await tx.$executeRaw`INSERT INTO ${Prisma.raw(`"${tables.textTable}" ("${tables.key}"`)}, "language", "name", "description", "slug", "searchText", "sortKey")
    VALUES (${id}, ${row.language}, ${own.name}, ${own.description}, ${own.slug}, ${row.searchText}, ${row.sortKey})
    ON CONFLICT (${Prisma.raw(`"${tables.key}"`)}, "language") DO UPDATE SET "name" = excluded."name", "description" = excluded."description",
      "slug" = excluded."slug", "searchText" = excluded."searchText", "sortKey" = excluded."sortKey"`;
}

/** What the operations of venues and organizers need from their data layer. */
export interface LinkedPostStore<R extends LinkedPostRecord, I> {
  /** The one lookup of an item by reference: by id, or by slug (see slug-lookup.ts for the language order). */
  resolve(db: Database, ref: ItemRef, order: LanguageOrder): Promise<R | null>;
  list(db: Database, filters: LinkedPostFilters, orderBy: LinkedPostOrder, offset: number, limit: number): Promise<{ items: R[]; total: number }>;
  create(db: Database, ctx: PostWriteContext, input: I): Promise<R>;
  update(db: Database, ctx: PostWriteContext, target: WriteTarget<R>, input: I): Promise<R>;
  /**
   * For an event write that gives a venue's or organizer's data instead of an id (as the original
   * accepts): the id of an item of that name (ignoring case and accents), and of that description
   * when the data has one, that the writer may see, outside the trash, as it is; else of one made
   * from the data as `create` makes one. In the event write's transaction.
   */
  reuseOrCreate(db: Database, tx: Tx, ctx: PostWriteContext, input: I, problems: ParamProblems): Promise<number | null>;
  /**
   * Moves to the trash and unlinks from every event; one already there is `inTrash`, or, when
   * `destroys`, is deleted for good. Answers with the item as it is now, or as it was when deleted.
   */
  remove(db: Database, now: Date, target: WriteTarget<R>, inTrash: ErrorCode, destroys: boolean): Promise<{ record: R; deleted: boolean }>;
}

type TextChange = Partial<Record<LinkedPostTextField, string | null>>;

/** How many items of the same name an inline venue or organizer is compared with (the writer may see none of the first ones). */
const SAME_NAMED_CANDIDATES = 20;

export function createLinkedPostStore<R extends LinkedPostRecord, I extends PostFieldsInput & LinkedPostTextInput, C extends object>(model: LinkedPostModel<R, I, C>): LinkedPostStore<R, I> {
  /** The text a write gives, its markup filtered as the writer's role requires. */
  function textChange(input: I, ctx: PostWriteContext): TextChange {
    const markup = markupFilterOf(ctx.principal);
    const change: TextChange = {};
    const name = model.nameOf(input);
    if (name !== undefined) change.name = markup.title(name).trim();
    if (input.description !== undefined) change.description = noneIfEmpty(input.description && markup.html(input.description));
    return change;
  }

  /**
   * The slug a write sets in its language: the one given, or one made from the name for a
   * language without a slug of its own. Made unique in that language, and, in the item's source
   * language, among the kept slugs too (Venue.slug, Organizer.slug).
   */
  async function slugOf(db: Database, tx: Tx, ctx: PostWriteContext, input: I, current: R | null, change: TextChange, id?: number): Promise<string | undefined> {
    const wanted = input.slug ?? nameForNewSlug(LINKED_POST_TEXT, current?.texts ?? [], ctx.language, change, id);
    if (wanted === undefined) return undefined;
    const asKept = !current || current.sourceLanguage === ctx.language;
    return freeSlug(db, tx, `${model.fallbackSlug}:${ctx.language}`, slugBase(wanted, model.fallbackSlug), (candidates) =>
      takenSlugs(tx, model.tables, ctx.language, candidates, id ?? current?.id ?? null, asKept),
    );
  }

  async function writeTexts(tx: Tx, id: number, current: R | null, ctx: PostWriteContext, change: TextChange, shared: SharedText): Promise<void> {
    const order = { defaultLanguage: ctx.defaultLanguage, sourceLanguage: current?.sourceLanguage ?? ctx.language };
    const { rows } = textRowsToWrite(LINKED_POST_TEXT, current?.texts ?? [], ctx.language, change, order, shared);
    for (const row of rows) await upsertText(tx, model.tables, id, row);
  }

  /** Creates an item from `input` in `tx`; its id, or null with the input's problems added to `problems`. */
  async function insert(db: Database, tx: Tx, ctx: PostWriteContext, input: I, problems: ParamProblems): Promise<number | null> {
    const fields = await resolvePostFields(tx, input, ctx, problems);
    checkSlugHasLetters(input.slug, problems);
    if (problems.any()) return null;
    const change = textChange(input, ctx);
    const columns = model.columns(input);
    if (change.name !== "") {
      const slug = (await slugOf(db, tx, ctx, input, null, change))!;
      const { id } = await model.insert(tx, columns, { ...fields, sourceLanguage: ctx.language, slug, modifiedAt: ctx.now });
      await writeTexts(tx, id, null, ctx, { ...change, slug }, { before: [], after: model.sharedSearchText(columns) });
      return id;
    }
    // A name that filtering left blank: the slug is the item's id, known once it is made (a
    // placeholder no slug can equal holds the kept slug's unique place until then).
    const { id } = await model.insert(tx, columns, { ...fields, sourceLanguage: ctx.language, slug: ` ${randomUUID()}`, modifiedAt: ctx.now });
    const slug = (await slugOf(db, tx, ctx, input, null, change, id))!;
    await tx.$executeRaw`UPDATE ${Prisma.raw(`"${model.tables.table}"`)} SET "slug" = ${slug} WHERE "id" = ${id}`;
    await writeTexts(tx, id, null, ctx, { ...change, slug }, { before: [], after: model.sharedSearchText(columns) });
    return id;
  }

  /** The oldest item named `name` in some language (and described so, when a description is given) that the writer may see, outside the trash. */
  async function sameNamed(tx: Tx, ctx: PostWriteContext, name: string, description: string | null | undefined): Promise<number | null> {
    const key = Prisma.raw(`"${model.tables.key}"`);
    const rows = await tx.$queryRaw<Array<{ id: number | bigint }>>(
      Prisma.sql`SELECT DISTINCT "t".${key} AS "id" FROM ${Prisma.raw(`"${model.tables.textTable}"`)} "t" JOIN ${Prisma.raw(`"${model.tables.table}"`)} "i" ON "i"."id" = "t".${key}
        WHERE "t"."sortKey" = ${sortKeyOf(name)} AND "i"."status" <> 'trash' ORDER BY "t".${key} LIMIT ${SAME_NAMED_CANDIDATES}`,
    );
    const wantedDescription = description ? normalizeForSearch(description) : null;
    for (const row of rows) {
      const candidate = (await model.find(tx, Number(row.id)))!;
      if (!canReadItem(ctx.principal, ctx.type, candidate)) continue;
      if (wantedDescription !== null && !candidate.texts.some((text) => text.description !== null && normalizeForSearch(text.description) === wantedDescription)) continue;
      return candidate.id;
    }
    return null;
  }

  return {
    async resolve(db, ref, order) {
      const id = "slug" in ref ? await itemIdBySlug(db.read, model.tables.textTable, ref.slug, order.language, order.defaultLanguage) : ref.id;
      return id !== null && isItemId(id) ? model.find(db.read, id) : null;
    },

    async list(db, filters, orderBy, offset, limit) {
      const where = linkedPostWhere(filters);
      const [items, total] = await Promise.all([model.findMany(db.read, where, orderBy, offset, limit), model.count(db.read, where)]);
      return { items, total };
    },

    create(db, ctx, input) {
      return retryOnSlugClash(() =>
        inTransaction(db, async (tx) => {
          const problems = new ParamProblems();
          const id = await insert(db, tx, ctx, input, problems);
          problems.throwIfAny();
          return (await model.find(tx, id!))!;
        }),
      );
    },

    async reuseOrCreate(db, tx, ctx, input, problems) {
      const name = model.nameOf(input)!;
      // Two writes giving the same new venue take turns: the second finds the first's.
      await lockFor(db, tx, `inline:${model.tables.table}:${sortKeyOf(name)}`);
      const existing = await sameNamed(tx, ctx, name, input.description);
      return existing ?? insert(db, tx, ctx, input, problems);
    },

    update(db, ctx, target, input) {
      const id = target.record.id;
      return retryOnSlugClash(() =>
        inTransaction(db, async (tx) => {
          const current = await lockTarget(db, tx, model.tables.table, target, () => model.find(tx, id));
          const problems = new ParamProblems();
          const fields = await resolvePostFields(tx, input, ctx, problems, current);
          checkSlugHasLetters(input.slug, problems);
          problems.throwIfAny();
          // Trashing through a status change unlinks the item from its events, as DELETE does.
          if (fields.status === "trash" && current.status !== "trash") await unlinkEvents(tx, model.tables, id);
          const columns = changedColumns(current, { ...model.columns(input), ...fields });
          const change = textChange(input, ctx);
          const slug = await slugOf(db, tx, ctx, input, current, change, id);
          if (slug !== undefined) change.slug = slug;
          // The kept slug follows the source language's.
          const kept = slug !== undefined && current.sourceLanguage === ctx.language ? { slug } : {};
          await model.save(tx, id, { ...columns, ...kept, modifiedAt: ctx.now });
          const shared = { before: model.sharedSearchText(current), after: model.sharedSearchText({ ...current, ...columns }) };
          await writeTexts(tx, id, current, ctx, change, shared);
          return (await model.find(tx, id))!;
        }),
      );
    },

    remove(db, now, target, inTrash, destroys) {
      const id = target.record.id;
      return inTransaction(db, async (tx) => {
        const current = await lockTarget(db, tx, model.tables.table, target, () => model.find(tx, id));
        if (current.status === "trash") {
          if (!destroys) throw new ApiError(inTrash);
          await unlinkEvents(tx, model.tables, id);
          await tx.$executeRaw`DELETE FROM ${Prisma.raw(`"${model.tables.table}"`)} WHERE "id" = ${id}`;
          return { record: current, deleted: true };
        }
        await unlinkEvents(tx, model.tables, id);
        await model.save(tx, id, { status: "trash", modifiedAt: now });
        return { record: (await model.find(tx, id))!, deleted: false };
      });
    },
  };
}
