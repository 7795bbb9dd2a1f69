import type { Database } from "../../db/database";
import { inTransaction, type Tx } from "../../db/transaction";
import type { Language } from "../../i18n/languages";
import type { OwnText } from "../../i18n/localized-text";
import { linkedPostWhere, type LinkedPostFilters, type LinkedPostWhere } from "./linked-post-query";
import { localizedRows, type LocalizedRow, type RowsSpec } from "../../i18n/localized-rows";
import { ParamProblems, resolvePostFields, type PostFieldsInput, type PostWriteContext, type ResolvedPostFields } from "./post-write";
import { freeSlug, retryOnSlugClash, slugBase } from "./unique-slug";

/**
 * Checks the item a write is about, inside the write's transaction, and throws when the write
 * may not go on (no such item, not allowed, already trashed).
 */
export type LinkedPostGuard<R> = (current: R | null) => asserts current is R;

/** What the handlers of venues and organizers need from their data layer. */
export interface LinkedPostStore<R, I> {
  find(db: Database, id: number): Promise<R | null>;
  findBySlug(db: Database, slug: string): Promise<R | null>;
  list(db: Database, filters: LinkedPostFilters, offset: number, limit: number): Promise<{ items: R[]; total: number }>;
  create(db: Database, ctx: LinkedPostWriteContext, input: I): Promise<R>;
  update(db: Database, ctx: LinkedPostWriteContext, id: number, input: I, guard: LinkedPostGuard<R>): Promise<R>;
  /** Moves to the trash and unlinks from every event. */
  trash(db: Database, ctx: { now: Date }, id: number, guard: LinkedPostGuard<R>): Promise<R>;
  /** Deletes for good; answers with the item as it was. */
  destroy(db: Database, id: number, guard: LinkedPostGuard<R>): Promise<R>;
}

export interface LinkedPostWriteContext extends PostWriteContext {
  language: Language;
  defaultLanguage: Language;
}

/** The stored shape every venue and organizer record has. */
export interface LinkedPostRecord<F extends string> {
  id: number;
  authorId: number;
  status: string;
  postDate: Date;
  sourceLanguage: string;
  texts: Array<OwnText<F>>;
}

/** The Prisma calls and field mappings of one model (venue or organizer). */
export interface LinkedPostModel<F extends string, R extends LinkedPostRecord<F>, I extends PostFieldsInput> {
  text: RowsSpec<F>;
  /** Base of a slug when the name has no letters or digits at all. */
  fallbackSlug: string;
  /** The name in a write body, if given. */
  nameOf(input: I): string | undefined;
  /** The change of per-language text a write body asks for. */
  textChange(input: I): Partial<Record<F, string | null>>;
  /** Text shared by every language that `search` also looks in. */
  sharedSearchText(record: R): Array<string | null>;
  find(client: Database["read"] | Tx, id: number): Promise<R | null>;
  findBySlug(client: Database["read"], slug: string): Promise<R | null>;
  findMany(client: Database["read"], where: LinkedPostWhere, offset: number, limit: number): Promise<R[]>;
  count(client: Database["read"], where: LinkedPostWhere): Promise<number>;
  takenSlugs(tx: Tx, candidates: string[]): Promise<string[]>;
  insert(tx: Tx, input: I, fields: ResolvedPostFields & { sourceLanguage: string; slug: string; modifiedAt: Date }): Promise<R>;
  /** Writes the fields of `input` (and `fields`) that belong to the item itself. */
  save(tx: Tx, id: number, input: I, fields: Partial<ResolvedPostFields> & { modifiedAt: Date }): Promise<R>;
  remove(tx: Tx, id: number): Promise<void>;
  unlinkEvents(tx: Tx, id: number): Promise<void>;
  upsertText(tx: Tx, id: number, row: LocalizedRow<F>): Promise<void>;
}

export function createLinkedPostStore<F extends string, R extends LinkedPostRecord<F>, I extends PostFieldsInput>(model: LinkedPostModel<F, R, I>): LinkedPostStore<R, I> {
  async function writeTexts(tx: Tx, record: R, ctx: LinkedPostWriteContext, change: Partial<Record<F, string | null>>): Promise<void> {
    const rows = localizedRows(model.text, record.texts, ctx.language, change, { defaultLanguage: ctx.defaultLanguage, sourceLanguage: record.sourceLanguage }, model.sharedSearchText(record));
    for (const row of rows) await model.upsertText(tx, record.id, row);
  }

  return {
    find: (db, id) => model.find(db.read, id),
    findBySlug: (db, slug) => model.findBySlug(db.read, slug),

    async list(db, filters, offset, limit) {
      const where = linkedPostWhere(filters);
      const [items, total] = await Promise.all([model.findMany(db.read, where, offset, limit), model.count(db.read, where)]);
      return { items, total };
    },

    create(db, ctx, input) {
      return retryOnSlugClash(() =>
        inTransaction(db, async (tx) => {
          const problems = new ParamProblems();
          const fields = await resolvePostFields(tx, input, ctx, problems);
          problems.throwIfAny();
          const slug = await freeSlug(db, tx, model.fallbackSlug, slugBase(model.nameOf(input) ?? "", model.fallbackSlug), (candidates) => model.takenSlugs(tx, candidates));
          const created = await model.insert(tx, input, { ...fields, sourceLanguage: ctx.language, slug, modifiedAt: ctx.now });
          await writeTexts(tx, created, ctx, model.textChange(input));
          return (await model.find(tx, created.id))!;
        }),
      );
    },

    update(db, ctx, id, input, guard: LinkedPostGuard<R>) {
      return inTransaction(db, async (tx) => {
        const current = await model.find(tx, id);
        guard(current);
        const problems = new ParamProblems();
        const fields = await resolvePostFields(tx, input, ctx, problems, current);
        problems.throwIfAny();
        // Trashing through a status change unlinks the item from its events, as DELETE does.
        if (fields.status === "trash" && current.status !== "trash") await model.unlinkEvents(tx, id);
        const saved = await model.save(tx, id, input, { ...fields, modifiedAt: ctx.now });
        await writeTexts(tx, saved, ctx, model.textChange(input));
        return (await model.find(tx, id))!;
      });
    },

    trash(db, ctx, id, guard: LinkedPostGuard<R>) {
      return inTransaction(db, async (tx) => {
        guard(await model.find(tx, id));
        await model.unlinkEvents(tx, id);
        await model.save(tx, id, {} as I, { status: "trash", modifiedAt: ctx.now });
        return (await model.find(tx, id))!;
      });
    },

    destroy(db, id, guard: LinkedPostGuard<R>) {
      return inTransaction(db, async (tx) => {
        const current = await model.find(tx, id);
        guard(current);
        await model.remove(tx, id);
        return current;
      });
    },
  };
}
