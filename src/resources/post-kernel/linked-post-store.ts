import { randomUUID } from "node:crypto";
import { neededInPageOrder } from "../../db/item-records";
import type { Database } from "../../db/database";
import { canReadItem } from "../../auth/visibility";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import { ApiError, ParamProblems, type ErrorCode } from "../../http/errors";
import { isItemId, type ItemRef, type WriteTarget } from "../../http/operation-types";
import { noneIfEmpty } from "../../i18n/localized-rows";
import type { OwnText } from "../../i18n/localized-text";
import { markupFilterOf } from "../../text/kses";
import { normalizeForSearch, sortKeyOf } from "../../text/search-text";
import { changedColumns } from "./item-columns";
import { lockTarget } from "./post-repository";
import type { LanguageOrder } from "./item-operations";
import { nameForNewSlug, textRowsToWrite, type SharedText } from "./item-texts";
import type { LinkedPostFilters, LinkedPostOrder } from "./linked-post-query";
import type { LinkedPostRepository } from "./linked-post-repository";
import { LINKED_POST_TEXT, type LinkedPostTextField } from "./post-record";
import { resolvePostFields, type PostFieldsInput, type PostWriteContext } from "./post-fields";
import { freeSlug, givenSlug, retryOnSlugClash, slugBase } from "./unique-slug";

/**
 * The data layer venues and organizers share (TEC's "linked posts": the items events link to).
 * Each gives its model (its repository, columns and field mappings); the rules are here once.
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

/** The statements and field mappings of one model (venue or organizer). */
export interface LinkedPostModel<
  R extends LinkedPostRecord,
  I extends PostFieldsInput & LinkedPostTextInput,
  C extends object,
> {
  repository: LinkedPostRepository<R, C>;
  /** Base of a slug when the name has no letters or digits at all. */
  fallbackSlug: string;
  /** The name in a write body, if given. */
  nameOf(input: I): string | undefined;
  /** The columns of the item itself (the same in every language) that a write body gives. */
  columns(input: I): C;
  /** Text shared by every language that `search` also looks in, from the item's columns. */
  sharedSearchText(columns: object): Array<string | null>;
}

/** What the operations of venues and organizers need from their data layer. */
export interface LinkedPostStore<R extends LinkedPostRecord, I> {
  /** The one lookup of an item by reference: by id, or by slug (see slug-sql.ts for the language order). */
  resolve(db: Database, ref: ItemRef, order: LanguageOrder): Promise<R | null>;
  /**
   * A page of the list: its ids in order, the records of those `needed` (default: all; the
   * others' representations are kept), in page order, and the total.
   */
  list(
    db: Database,
    filters: LinkedPostFilters,
    orderBy: LinkedPostOrder,
    page: { offset: number; limit: number },
    needed?: (id: number) => boolean,
  ): Promise<{ ids: number[]; items: R[]; total: number }>;
  create(db: Database, ctx: PostWriteContext, input: I): Promise<R>;
  update(db: Database, ctx: PostWriteContext, target: WriteTarget<R>, input: I): Promise<R>;
  /**
   * For an event write that gives a venue's or organizer's data instead of an id (as the original
   * accepts): the id of an item of that name (ignoring case and accents), and of that description
   * when the data has one, that the writer may see, outside the trash, as it is; else of one made
   * from the data as `create` makes one. In the event write's transaction.
   */
  reuseOrCreate(db: Database, tx: Tx, ctx: PostWriteContext, input: I, problems: ParamProblems): Promise<number | null>;
  /** reuseOrCreate, telling whether the item was made (an import keeps in step only what it made). */
  placeByName(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    input: I,
    problems: ParamProblems,
  ): Promise<{ id: number | null; made: boolean }>;
  /**
   * Moves to the trash and unlinks from every event; one already there is `inTrash`, or, when
   * `destroys`, is deleted for good. Answers with the item as it is now, or as it was when deleted.
   */
  remove(
    db: Database,
    now: Date,
    target: WriteTarget<R>,
    inTrash: ErrorCode,
    destroys: boolean,
  ): Promise<{ record: R; deleted: boolean }>;
}

type TextChange = Partial<Record<LinkedPostTextField, string | null>>;

/** How many items of the same name an inline venue or organizer is compared with (the writer may see none of the first ones). */
const SAME_NAMED_CANDIDATES = 20;

export function createLinkedPostStore<
  R extends LinkedPostRecord,
  I extends PostFieldsInput & LinkedPostTextInput,
  C extends object,
>(model: LinkedPostModel<R, I, C>): LinkedPostStore<R, I> {
  const repository = model.repository;
  /** The text a write gives, its markup filtered as the writer's role requires. */
  function textChange(input: I, ctx: PostWriteContext): TextChange {
    const markup = markupFilterOf(ctx.principal);
    const change: TextChange = {};
    const name = model.nameOf(input);
    if (name !== undefined) change.name = markup.title(name).trim();
    if (input.description !== undefined)
      change.description = noneIfEmpty(input.description && markup.html(input.description));
    return change;
  }

  /**
   * The slug a write sets in its language: the one given, or one made from the name for a
   * language without a slug of its own. Made unique in that language, and, in the item's source
   * language, among the kept slugs too (Venue.slug, Organizer.slug).
   */
  async function slugOf(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    input: I,
    current: R | null,
    change: TextChange,
    id?: number,
  ): Promise<string | undefined> {
    const wanted =
      givenSlug(input.slug) ?? nameForNewSlug(LINKED_POST_TEXT, current?.texts ?? [], ctx.language, change, id);
    if (wanted === undefined) return undefined;
    const asKept = !current || current.sourceLanguage === ctx.language;
    return freeSlug(
      db,
      tx,
      `${model.fallbackSlug}:${ctx.language}`,
      slugBase(wanted, model.fallbackSlug),
      (candidates) => repository.takenSlugs(tx, ctx.language, candidates, id ?? current?.id ?? null, asKept),
    );
  }

  async function writeTexts(
    tx: Tx,
    id: number,
    current: R | null,
    ctx: PostWriteContext,
    change: TextChange,
    shared: SharedText,
  ): Promise<void> {
    const order = { defaultLanguage: ctx.defaultLanguage, sourceLanguage: current?.sourceLanguage ?? ctx.language };
    const { rows } = textRowsToWrite(LINKED_POST_TEXT, current?.texts ?? [], ctx.language, change, order, shared);
    for (const row of rows) await repository.saveText(tx, id, row);
  }

  /** Creates an item from `input` in `tx`; its id, or null with the input's problems added to `problems`. */
  async function insert(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    input: I,
    problems: ParamProblems,
  ): Promise<number | null> {
    const fields = await resolvePostFields(tx, input, ctx, problems);
    if (problems.any()) return null;
    const change = textChange(input, ctx);
    const columns = model.columns(input);
    if (change.name !== "") {
      const slug = (await slugOf(db, tx, ctx, input, null, change))!;
      const id = await repository.insert(tx, columns, {
        ...fields,
        sourceLanguage: ctx.language,
        slug,
        modifiedAt: ctx.now,
      });
      await writeTexts(tx, id, null, ctx, { ...change, slug }, { before: [], after: model.sharedSearchText(columns) });
      return id;
    }
    // A name that filtering left blank: the slug is the item's id, known once it is made (a
    // placeholder no slug can equal holds the kept slug's unique place until then).
    const id = await repository.insert(tx, columns, {
      ...fields,
      sourceLanguage: ctx.language,
      slug: ` ${randomUUID()}`,
      modifiedAt: ctx.now,
    });
    const slug = (await slugOf(db, tx, ctx, input, null, change, id))!;
    await repository.saveKeptSlug(tx, id, slug);
    await writeTexts(tx, id, null, ctx, { ...change, slug }, { before: [], after: model.sharedSearchText(columns) });
    return id;
  }

  /** The oldest item named `name` in some language (and described so, when a description is given) that the writer may see, outside the trash. */
  async function sameNamed(
    tx: Tx,
    ctx: PostWriteContext,
    name: string,
    description: string | null | undefined,
  ): Promise<number | null> {
    const ids = await repository.sameNamedIds(tx, sortKeyOf(name), SAME_NAMED_CANDIDATES);
    const wantedDescription = description ? normalizeForSearch(description) : null;
    for (const id of ids) {
      const candidate = (await repository.find(tx, id))!;
      if (!canReadItem(ctx.principal, ctx.type, candidate)) continue;
      if (
        wantedDescription !== null &&
        !candidate.texts.some(
          (text) => text.description !== null && normalizeForSearch(text.description) === wantedDescription,
        )
      )
        continue;
      return candidate.id;
    }
    return null;
  }

  async function placeByName(db: Database, tx: Tx, ctx: PostWriteContext, input: I, problems: ParamProblems) {
    const name = model.nameOf(input)!;
    // Two writes giving the same new venue take turns: the second finds the first's.
    await lockFor(db, tx, `inline:${repository.tables.table}:${sortKeyOf(name)}`);
    const existing = await sameNamed(tx, ctx, name, input.description);
    if (existing !== null) return { id: existing, made: false };
    return { id: await insert(db, tx, ctx, input, problems), made: true };
  }

  return {
    async resolve(db, ref, order) {
      const id =
        "slug" in ref ? await repository.idBySlug(db, ref.slug, order.language, order.defaultLanguage) : ref.id;
      return id !== null && isItemId(id) ? repository.find(db, id) : null;
    },

    async list(db, filters, orderBy, page, needed = () => true) {
      const { ids, total } = await repository.page(db, filters, orderBy, page);
      const items = await neededInPageOrder(ids, needed, (wanted) => repository.findAll(db, wanted));
      return { ids, items, total };
    },

    create(db, ctx, input) {
      return retryOnSlugClash(() =>
        inTransaction(db, async (tx) => {
          const problems = new ParamProblems();
          const id = await insert(db, tx, ctx, input, problems);
          problems.throwIfAny();
          return (await repository.find(tx, id!))!;
        }),
      );
    },

    async reuseOrCreate(db, tx, ctx, input, problems) {
      return (await placeByName(db, tx, ctx, input, problems)).id;
    },

    placeByName,

    update(db, ctx, target, input) {
      const id = target.record.id;
      return retryOnSlugClash(() =>
        inTransaction(db, async (tx) => {
          const current = await lockTarget(db, tx, repository.tables.table, target, () => repository.find(tx, id));
          const problems = new ParamProblems();
          const fields = await resolvePostFields(tx, input, ctx, problems, current);
          problems.throwIfAny();
          // Trashing through a status change unlinks the item from its events, as DELETE does.
          if (fields.status === "trash" && current.status !== "trash") await repository.unlinkEvents(tx, id);
          const columns = changedColumns(current, { ...model.columns(input), ...fields });
          const change = textChange(input, ctx);
          const slug = await slugOf(db, tx, ctx, input, current, change, id);
          if (slug !== undefined) change.slug = slug;
          // The kept slug follows the source language's.
          const kept = slug !== undefined && current.sourceLanguage === ctx.language ? { slug } : {};
          await repository.save(tx, id, { ...columns, ...kept, modifiedAt: ctx.now });
          const shared = {
            before: model.sharedSearchText(current),
            after: model.sharedSearchText({ ...current, ...columns }),
          };
          await writeTexts(tx, id, current, ctx, change, shared);
          return (await repository.find(tx, id))!;
        }),
      );
    },

    remove(db, now, target, inTrash, destroys) {
      const id = target.record.id;
      return inTransaction(db, async (tx) => {
        const current = await lockTarget(db, tx, repository.tables.table, target, () => repository.find(tx, id));
        if (current.status === "trash") {
          if (!destroys) throw new ApiError(inTrash);
          await repository.unlinkEvents(tx, id);
          await repository.deleteItem(tx, id);
          return { record: current, deleted: true };
        }
        await repository.unlinkEvents(tx, id);
        await repository.save(tx, id, { status: "trash", modifiedAt: now });
        return { record: (await repository.find(tx, id))!, deleted: false };
      });
    },
  };
}
