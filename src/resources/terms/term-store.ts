import type { Database } from "../../db/database";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import { ApiError, invalidParam, ParamProblems } from "../../http/errors";
import type { Schemas, WriteTarget } from "../../http/operation-types";
import { effectiveText } from "../../i18n/localized-text";
import type { Language } from "../../i18n/languages";
import { markupFilterOf, type MarkupFilter } from "../../text/kses";
import { can } from "../../auth/roles";
import type { PostWriteContext } from "../post-kernel/post-fields";
import { sortKeyOf } from "../../text/search-text";
import { firstFreeSlug, slugify, slugLookupKeys } from "../../text/slug";
import { lockTarget } from "../post-kernel/post-repository";
import { nameForNewSlug, textRowsToWrite } from "../post-kernel/item-texts";
import { givenSlug } from "../post-kernel/unique-slug";
import type { TaxonomyConfig } from "./term-record";
import {
  CATEGORIES,
  TAGS,
  TERM_TEXT,
  TERM_TEXT_FIELDS,
  type Taxonomy,
  type TermRecord,
  type TermTextField,
} from "./term-record";
import {
  deleteTermRow,
  findTerm,
  insertTerm,
  parentOfCategory,
  sameNamedTerm,
  saveTerm,
  saveTermText,
  takenTermSlugs,
  termTextsMatching,
} from "./term-repository";

/** What a write body of a category or tag may hold (tags take no `parent`). */
export type TermWrite = Schemas["UpdateCategoryRequest"];

export interface TermWriteContext {
  config: TaxonomyConfig;
  language: Language;
  defaultLanguage: Language;
  /** How the writer's names and descriptions are stored (filtered, unless they may post unfiltered HTML). */
  markup: MarkupFilter;
  /** When the write is made: the term's modified date. */
  now: Date;
}

/**
 * A term write's name and description, their markup filtered as the writer's role requires. A
 * name that filtering leaves blank (`<img src=x>` from an author) is refused, as WordPress refuses
 * it (`400 empty_term_name`): a term is found by its name, and no one can find a blank one.
 */
function filtered<T extends { name?: string; description?: string | null }>(input: T, markup: MarkupFilter): T {
  const name = input.name === undefined ? undefined : markup.title(input.name).trim();
  if (name === "") throw new ApiError("empty_term_name");
  return {
    ...input,
    ...(name !== undefined ? { name } : {}),
    ...(typeof input.description === "string" ? { description: markup.html(input.description) } : {}),
  };
}

/** Stores the text rows of a term that a write of `change` in `language` changes. */
async function writeTexts(
  tx: Tx,
  term: { id: number; taxonomy: string; sourceLanguage: string; texts: TermRecord["texts"] },
  ctx: TermWriteContext,
  change: Partial<Record<TermTextField, string | null>>,
): Promise<void> {
  const { rows } = textRowsToWrite(TERM_TEXT, term.texts, ctx.language, change, {
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: term.sourceLanguage,
  });
  for (const row of rows) {
    const { name, description, slug } = row.own;
    await saveTermText(tx, term, row.language, {
      name,
      description,
      slug,
      searchText: row.searchText,
      sortKey: row.sortKey,
      slugKey: row.shown.slug ?? "",
    });
  }
}

async function checkParent(tx: Tx, termId: number | null, parent: number): Promise<void> {
  if (parent === 0) return;
  const problem = () => invalidParam("parent", "rest_invalid_parent");
  // Walk up from the proposed parent: reaching the term itself would make a cycle.
  let current: number | null = parent;
  const visited = new Set<number>();
  while (current !== null) {
    if (current === termId || visited.has(current)) throw problem();
    visited.add(current);
    const parentId = await parentOfCategory(tx, current);
    if (parentId === undefined) throw problem();
    current = parentId;
  }
}

async function checkNameFree(
  tx: Tx,
  ctx: TermWriteContext,
  name: string,
  parentId: number | null,
  termId: number | null,
): Promise<void> {
  const { taxonomy, hierarchical } = ctx.config;
  const clash = await sameNamedTerm(tx, {
    taxonomy,
    hierarchical,
    language: ctx.language,
    sortKey: sortKeyOf(name),
    parentId,
    exceptId: termId,
  });
  if (clash !== null) throw new ApiError("term_exists", {}, { term_id: clash });
}

/** A slug free in the write's language, made from `wanted` (term writes of a taxonomy take turns: see lockFor below). */
async function uniqueSlug(tx: Tx, ctx: TermWriteContext, wanted: string, termId: number | null): Promise<string> {
  const base = slugify(wanted) || ctx.config.fallbackSlug;
  return firstFreeSlug(base, (candidates) => takenTermSlugs(tx, ctx.config.taxonomy, ctx.language, candidates, termId));
}

/**
 * Writes of a taxonomy's terms take turns (an advisory lock on PostgreSQL; SQLite writes one at a
 * time anyway): a name must be free among its siblings and a slug in its language, which a check
 * then a write could not ensure between two concurrent writes.
 */
const takeTurns = (db: Database, tx: Tx, config: TaxonomyConfig) => lockFor(db, tx, `term-names:${config.taxonomy}`);

/** Creates a term, in a transaction that has taken the taxonomy's turn (see takeTurns); its id. */
async function createTermIn(tx: Tx, ctx: TermWriteContext, given: Schemas["CreateCategoryRequest"]): Promise<number> {
  const input = filtered(given, ctx.markup);
  const parentId = ctx.config.hierarchical && input.parent ? input.parent : null;
  if (ctx.config.hierarchical && input.parent !== undefined) await checkParent(tx, null, input.parent);
  await checkNameFree(tx, ctx, input.name, parentId, null);
  const slug = await uniqueSlug(tx, ctx, givenSlug(input.slug) ?? input.name, null);
  const id = await insertTerm(tx, {
    taxonomy: ctx.config.taxonomy,
    parentId,
    sourceLanguage: ctx.language,
    createdAt: ctx.now,
    modifiedAt: ctx.now,
  });
  const term = { id, taxonomy: ctx.config.taxonomy, sourceLanguage: ctx.language, texts: [] };
  await writeTexts(tx, term, ctx, { name: input.name, description: input.description ?? null, slug });
  return id;
}

export async function createTerm(
  db: Database,
  ctx: TermWriteContext,
  input: Schemas["CreateCategoryRequest"],
): Promise<TermRecord> {
  return inTransaction(db, async (tx) => {
    await takeTurns(db, tx, ctx.config);
    const id = await createTermIn(tx, ctx, input);
    return (await findTerm(tx, ctx.config.taxonomy, id))!;
  });
}

/**
 * The terms of the taxonomy named by `texts`, each a slug or a name (ignoring case and accents),
 * in any language: the request language's first, then the default language's; a slug before a name.
 */
async function termsNamed(tx: Tx, ctx: TermWriteContext, texts: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (texts.length === 0) return found;
  const keysOf = new Map(texts.map((text) => [text, slugLookupKeys(text)]));
  const slugs = [...new Set([...keysOf.values()].flat())];
  const rows = await termTextsMatching(tx, ctx.config.taxonomy, slugs, texts.map(sortKeyOf));
  const rank = (language: string) => (language === ctx.language ? 0 : language === ctx.defaultLanguage ? 1 : 2);
  const best = (matches: typeof rows) => [...matches].sort((a, b) => rank(a.language) - rank(b.language))[0];
  for (const text of texts) {
    // Its slug (in any case or encoding, most exact first), else its name.
    const bySlug = keysOf
      .get(text)!
      .map((key) => best(rows.filter((row) => row.slug === key)))
      .find((match) => match !== undefined);
    const match = bySlug ?? best(rows.filter((row) => row.sortKey === sortKeyOf(text)));
    if (match) found.set(text, match.termId);
  }
  return found;
}

/** How an event write names a term: by id (a number), or by slug or name. */
export type TermRef = number | string;

/**
 * The ids of the terms an event write names in `param` (docs/compatibility.md §7.1), in its order and
 * once each, in the write's transaction: ids as given (the event store checks they are of the
 * taxonomy), slugs and names looked up, and names that match no term made into new terms of the
 * request language, when the writer may manage the taxonomy (`mayCreate`; else 403).
 */
export async function termIdsOf(
  db: Database,
  tx: Tx,
  ctx: TermWriteContext & { mayCreate: boolean },
  param: string,
  refs: TermRef[],
  problems: ParamProblems,
  made?: Set<number>,
): Promise<number[]> {
  const texts = [...new Set(refs.filter((ref): ref is string => typeof ref === "string"))];
  let found = await termsNamed(tx, ctx, texts);
  const missing = texts.filter((text) => !found.has(text));
  if (missing.length > 0) {
    if (!ctx.mayCreate) throw new ApiError("rest_forbidden");
    if (missing.some((name) => name.length > 200)) {
      problems.add(param, "rest_invalid_term_name");
      return [];
    }
    await takeTurns(db, tx, ctx.config);
    // Made meanwhile by a write that had the turn before this one.
    found = new Map([...found, ...(await termsNamed(tx, ctx, missing))]);
    const madeByKey = new Map<string, number>();
    for (const name of missing) {
      if (found.has(name)) continue;
      const key = sortKeyOf(name);
      const id = madeByKey.get(key) ?? (await createTermIn(tx, ctx, { name }));
      madeByKey.set(key, id);
      made?.add(id);
      found.set(name, id);
    }
  }
  return [...new Set(refs.map((ref) => (typeof ref === "number" ? ref : found.get(ref)!)))];
}

/** A term write's context, of an event write's (or an import's): the writer may create terms when they may manage the taxonomy. */
function termContextOf(ctx: PostWriteContext, taxonomy: Taxonomy) {
  const config = taxonomy === "category" ? CATEGORIES : TAGS;
  return {
    config,
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    markup: markupFilterOf(ctx.principal),
    now: ctx.now,
    mayCreate: can(ctx.principal.role, `manage_${config.collectionKey}`),
  };
}

/** termIdsOf for an event write (the bridge app.ts gives events). */
export function termIdsForEvent(
  db: Database,
  tx: Tx,
  ctx: PostWriteContext,
  taxonomy: Taxonomy,
  param: string,
  refs: TermRef[],
  problems: ParamProblems,
): Promise<number[]> {
  return termIdsOf(db, tx, termContextOf(ctx, taxonomy), param, refs, problems);
}

/**
 * The term of a name (or slug) an import brings, as an event write finds one, or a new one; and
 * whether it was made. A name of digits alone is a name (an event write would read it as an id).
 */
export function termOfName(
  db: Database,
  ctx: PostWriteContext,
  taxonomy: Taxonomy,
  name: string,
): Promise<{ id: number; made: boolean }> {
  return inTransaction(db, async (tx) => {
    const problems = new ParamProblems();
    const made = new Set<number>();
    const param = taxonomy === "category" ? "categories" : "tags";
    const [id] = await termIdsOf(db, tx, termContextOf(ctx, taxonomy), param, [name], problems, made);
    problems.throwIfAny();
    return { id, made: made.has(id) };
  });
}

/**
 * Names a term in the context's language, as an import brings its translation; false when the
 * term is gone. A name another term of the taxonomy has there is refused (`term_exists`).
 */
export async function nameTermIn(
  db: Database,
  ctx: PostWriteContext,
  taxonomy: Taxonomy,
  id: number,
  name: string,
): Promise<boolean> {
  const record = await findTerm(db, taxonomy, id);
  if (record === null) return false;
  const termCtx = termContextOf(ctx, taxonomy);
  const target: WriteTarget<TermRecord> = {
    record,
    conditional: false,
    verify(current): asserts current is TermRecord {
      if (current === null) throw new ApiError(termCtx.config.notFound, { id });
    },
  };
  await updateTerm(db, termCtx, target, { name });
  return true;
}

/** Changes what the input gives, and only that, under the term's lock. */
export async function updateTerm(
  db: Database,
  ctx: TermWriteContext,
  target: WriteTarget<TermRecord>,
  given: TermWrite,
): Promise<TermRecord> {
  const input = filtered(given, ctx.markup);
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    await takeTurns(db, tx, ctx.config);
    const term = await lockTarget(db, tx, "Term", target, () => findTerm(tx, ctx.config.taxonomy, id));
    let parentId = term.parentId;
    if (ctx.config.hierarchical && input.parent !== undefined) {
      await checkParent(tx, id, input.parent);
      parentId = input.parent === 0 ? null : input.parent;
    }
    if (input.name !== undefined || parentId !== term.parentId) {
      const shownName =
        input.name ??
        effectiveText(term.texts, TERM_TEXT_FIELDS, {
          language: ctx.language,
          defaultLanguage: ctx.defaultLanguage,
          sourceLanguage: term.sourceLanguage,
        }).name;
      if (shownName !== null) await checkNameFree(tx, ctx, shownName, parentId, id);
    }
    const change: Partial<Record<TermTextField, string | null>> = {};
    if (input.name !== undefined) change.name = input.name;
    if (input.description !== undefined) change.description = input.description;
    const wantedSlug = givenSlug(input.slug) ?? nameForNewSlug(TERM_TEXT, term.texts, ctx.language, change);
    if (wantedSlug !== undefined) change.slug = await uniqueSlug(tx, ctx, wantedSlug, id);
    await saveTerm(tx, id, { ...(parentId !== term.parentId ? { parentId } : {}), modifiedAt: ctx.now });
    await writeTexts(tx, term, ctx, change);
    return (await findTerm(tx, ctx.config.taxonomy, id))!;
  });
}

/**
 * Deletes a term for good; its children move up to its parent, and the events that had it count
 * it as a write of theirs (their representation changes). Returns it as it was.
 */
export async function deleteTerm(
  db: Database,
  config: TaxonomyConfig,
  target: WriteTarget<TermRecord>,
): Promise<TermRecord> {
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    await takeTurns(db, tx, config);
    const term = await lockTarget(db, tx, "Term", target, () => findTerm(tx, config.taxonomy, id));
    await deleteTermRow(tx, id, term.parentId);
    return term;
  });
}
