import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database, Db } from "../../db/database";
import { inTransaction, lockFor, type Tx } from "../../db/transaction";
import { ApiError, invalidParam, ParamProblems } from "../../http/errors";
import { isItemId, type Schemas, type WriteTarget } from "../../http/operation-types";
import { effectiveText } from "../../i18n/localized-text";
import type { Language } from "../../i18n/languages";
import type { MarkupFilter } from "../../text/kses";
import { sortKeyOf } from "../../text/search-text";
import { firstFreeSlug, slugify } from "../../text/slug";
import { lockTarget } from "../post-kernel/item-lock";
import { nameForNewSlug, textRowsToWrite } from "../post-kernel/item-texts";
import { checkSlugHasLetters } from "../post-kernel/unique-slug";
import type { Taxonomy, TaxonomyConfig } from "./taxonomies";
import type { TermListQuery } from "./term-query";
import { TERM_TEXT, TERM_TEXT_FIELDS, termSelect, type TermRecord, type TermTextField } from "./term-record";

/** What a write body of a category or tag may hold (tags take no `parent`). */
export type TermWrite = Schemas["UpdateCategoryRequest"];

function orderOf(query: TermListQuery): Prisma.TermTextOrderByWithRelationInput[] {
  const dir = query.order;
  switch (query.orderBy) {
    case "id":
    case "term_id":
      return [{ termId: dir }];
    case "slug":
      return [{ slugKey: dir }, { termId: dir }];
    case "count":
      return [{ term: { count: dir } }, { termId: dir }];
    case "modified":
      return [{ term: { modifiedAt: dir } }, { termId: dir }];
    case "parent":
      return [{ term: { parentId: { sort: dir, nulls: dir === "asc" ? "first" : "last" } } }, { termId: dir }];
    case "none":
    case "include":
      return [{ termId: "asc" }];
    case "name":
      return [{ sortKey: dir }, { termId: dir }];
  }
}

/** Lists a page of terms. Terms are listed through their text row in the request language. */
export async function listTerms(db: Database, query: TermListQuery): Promise<{ items: TermRecord[]; total: number }> {
  const termWhere: Prisma.TermWhereInput = { taxonomy: query.taxonomy };
  if (query.hideEmpty) termWhere.count = { gt: 0 };
  if (query.includeIds || query.excludeIds) {
    termWhere.id = { ...(query.includeIds ? { in: query.includeIds } : {}), ...(query.excludeIds ? { notIn: query.excludeIds } : {}) };
  }
  if (query.parentId !== undefined) termWhere.parentId = query.parentId === 0 ? null : query.parentId;
  if (query.eventId !== undefined) termWhere.events = { some: { eventId: query.eventId } };
  if (query.onlyIds) termWhere.AND = [{ id: { in: query.onlyIds } }];
  if (query.modified.after || query.modified.before) termWhere.modifiedAt = { gt: query.modified.after, lt: query.modified.before };
  const where: Prisma.TermTextWhereInput = {
    language: query.language,
    term: termWhere,
    AND: query.searchWords.map((word) => ({ searchText: { contains: word } })),
  };
  if (query.slug !== undefined) {
    where.OR = [{ slug: query.slug }, { term: { texts: { some: { language: query.defaultLanguage, slug: query.slug } } } }];
  }
  // Ordering by the `include` list: that list is short (at most 100), so order it here.
  const byInclude = query.orderBy === "include" && query.includeIds !== undefined;
  const [rows, total] = await Promise.all([
    db.read.termText.findMany({
      where,
      orderBy: orderOf(query),
      ...(byInclude ? {} : { skip: query.offset, take: query.limit }),
      select: { term: { select: termSelect } },
    }),
    db.read.termText.count({ where }),
  ]);
  let items = rows.map((row) => row.term);
  if (byInclude) {
    const position = new Map(query.includeIds!.map((id, index) => [id, index]));
    items.sort((a, b) => (position.get(a.id)! - position.get(b.id)!) * (query.order === "desc" ? -1 : 1));
    items = items.slice(query.offset, query.offset + query.limit);
  }
  return { items, total };
}

function findTerm(client: Db | Tx, taxonomy: Taxonomy, id: number): Promise<TermRecord | null> {
  return client.term.findFirst({ where: { id, taxonomy }, select: termSelect });
}

/** The term of this taxonomy with this id: the only lookup of a term by reference (terms have no by-slug routes). */
export function resolveTerm(db: Database, taxonomy: Taxonomy, id: number): Promise<TermRecord | null> {
  return isItemId(id) ? findTerm(db.read, taxonomy, id) : Promise.resolve(null);
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
    numeric.length ? db.read.term.findMany({ where: { taxonomy, id: { in: numeric } }, select: { id: true } }) : [],
    slugs.length ? db.read.termText.findMany({ where: { taxonomy, slug: { in: slugs } }, select: { termId: true, slug: true, language: true } }) : [],
  ]);
  const knownIds = new Set(byId.map((term) => term.id));
  const preference = (lang: string) => (lang === language ? 0 : lang === defaultLanguage ? 1 : 2);
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const ref of refs) {
    if (/^\d+$/.test(ref)) {
      if (knownIds.has(Number(ref))) ids.push(Number(ref));
      else unknown.push(ref);
      continue;
    }
    const match = bySlug.filter((row) => row.slug === ref).sort((a, b) => preference(a.language) - preference(b.language))[0];
    if (match) ids.push(match.termId);
    else unknown.push(ref);
  }
  return { ids: [...new Set(ids)], unknown };
}

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
async function writeTexts(tx: Tx, term: { id: number; taxonomy: string; sourceLanguage: string; texts: TermRecord["texts"] }, ctx: TermWriteContext, change: Partial<Record<TermTextField, string | null>>): Promise<void> {
  const { rows } = textRowsToWrite(TERM_TEXT, term.texts, ctx.language, change, { defaultLanguage: ctx.defaultLanguage, sourceLanguage: term.sourceLanguage });
  for (const row of rows) {
    const data = { taxonomy: term.taxonomy, ...row.own, searchText: row.searchText, sortKey: row.sortKey, slugKey: row.shown.slug ?? "" };
    await tx.termText.upsert({
      where: { termId_language: { termId: term.id, language: row.language } },
      create: { termId: term.id, language: row.language, ...data },
      update: data,
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
    const row: { parentId: number | null } | null = await tx.term.findFirst({ where: { id: current, taxonomy: "category" }, select: { parentId: true } });
    if (!row) throw problem();
    current = row.parentId;
  }
}

async function checkNameFree(tx: Tx, ctx: TermWriteContext, name: string, parentId: number | null, termId: number | null): Promise<void> {
  const clash = await tx.termText.findFirst({
    where: {
      language: ctx.language,
      sortKey: sortKeyOf(name),
      term: { taxonomy: ctx.config.taxonomy, ...(ctx.config.hierarchical ? { parentId } : {}), ...(termId !== null ? { id: { not: termId } } : {}) },
    },
    select: { termId: true },
  });
  if (clash) throw new ApiError("term_exists", {}, { term_id: clash.termId });
}

/** A slug free in the write's language, made from `wanted` (term writes of a taxonomy take turns: see lockFor below). */
async function uniqueSlug(tx: Tx, ctx: TermWriteContext, wanted: string, termId: number | null): Promise<string> {
  const base = slugify(wanted) || ctx.config.fallbackSlug;
  return firstFreeSlug(base, async (candidates) => {
    const taken = await tx.termText.findMany({
      where: { taxonomy: ctx.config.taxonomy, language: ctx.language, slug: { in: candidates }, ...(termId !== null ? { termId: { not: termId } } : {}) },
      select: { slug: true },
    });
    return taken.map((row) => row.slug!);
  });
}

function refuseSlugWithoutLetters(slug: string | undefined): void {
  const problems = new ParamProblems();
  checkSlugHasLetters(slug, problems);
  problems.throwIfAny();
}

/**
 * Writes of a taxonomy's terms take turns (an advisory lock on PostgreSQL; SQLite writes one at a
 * time anyway): a name must be free among its siblings and a slug in its language, which a check
 * then a write could not ensure between two concurrent writes.
 */
const takeTurns = (db: Database, tx: Tx, config: TaxonomyConfig) => lockFor(db, tx, `term-names:${config.taxonomy}`);

/** Creates a term, in a transaction that has taken the taxonomy's turn (see takeTurns); its id. */
async function insertTerm(tx: Tx, ctx: TermWriteContext, given: Schemas["CreateCategoryRequest"]): Promise<number> {
  const input = filtered(given, ctx.markup);
  const parentId = ctx.config.hierarchical && input.parent ? input.parent : null;
  if (ctx.config.hierarchical && input.parent !== undefined) await checkParent(tx, null, input.parent);
  await checkNameFree(tx, ctx, input.name, parentId, null);
  const slug = await uniqueSlug(tx, ctx, input.slug ?? input.name, null);
  const term = await tx.term.create({
    data: { taxonomy: ctx.config.taxonomy, parentId, sourceLanguage: ctx.language, createdAt: ctx.now, modifiedAt: ctx.now },
    select: { id: true, taxonomy: true, sourceLanguage: true },
  });
  await writeTexts(tx, { ...term, texts: [] }, ctx, { name: input.name, description: input.description ?? null, slug });
  return term.id;
}

export async function createTerm(db: Database, ctx: TermWriteContext, input: Schemas["CreateCategoryRequest"]): Promise<TermRecord> {
  refuseSlugWithoutLetters(input.slug);
  return inTransaction(db, async (tx) => {
    await takeTurns(db, tx, ctx.config);
    const id = await insertTerm(tx, ctx, input);
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
  const rows = await tx.termText.findMany({
    where: { taxonomy: ctx.config.taxonomy, OR: [{ slug: { in: texts } }, { sortKey: { in: texts.map(sortKeyOf) } }] },
    select: { termId: true, slug: true, sortKey: true, language: true },
    orderBy: { termId: "asc" },
  });
  const rank = (language: string) => (language === ctx.language ? 0 : language === ctx.defaultLanguage ? 1 : 2);
  const best = (matches: typeof rows) => [...matches].sort((a, b) => rank(a.language) - rank(b.language))[0];
  for (const text of texts) {
    const match = best(rows.filter((row) => row.slug === text)) ?? best(rows.filter((row) => row.sortKey === sortKeyOf(text)));
    if (match) found.set(text, match.termId);
  }
  return found;
}

/** How an event write names a term: by id (a number), or by slug or name. */
export type TermRef = number | string;

/**
 * The ids of the terms an event write names in `param` (tec-rest-v1.md §7.1), in its order and
 * once each, in the write's transaction: ids as given (the event store checks they are of the
 * taxonomy), slugs and names looked up, and names that match no term made into new terms of the
 * request language, when the writer may manage the taxonomy (`mayCreate`; else 403).
 */
export async function termIdsOf(db: Database, tx: Tx, ctx: TermWriteContext & { mayCreate: boolean }, param: string, refs: TermRef[], problems: ParamProblems): Promise<number[]> {
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
      const id = madeByKey.get(key) ?? (await insertTerm(tx, ctx, { name }));
      madeByKey.set(key, id);
      found.set(name, id);
    }
  }
  return [...new Set(refs.map((ref) => (typeof ref === "number" ? ref : found.get(ref)!)))];
}

/** Changes what the input gives, and only that, under the term's lock. */
export async function updateTerm(db: Database, ctx: TermWriteContext, target: WriteTarget<TermRecord>, given: TermWrite): Promise<TermRecord> {
  refuseSlugWithoutLetters(given.slug);
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
      const shownName = input.name ?? effectiveText(term.texts, TERM_TEXT_FIELDS, { language: ctx.language, defaultLanguage: ctx.defaultLanguage, sourceLanguage: term.sourceLanguage }).name;
      if (shownName !== null) await checkNameFree(tx, ctx, shownName, parentId, id);
    }
    const change: Partial<Record<TermTextField, string | null>> = {};
    if (input.name !== undefined) change.name = input.name;
    if (input.description !== undefined) change.description = input.description;
    const wantedSlug = input.slug ?? nameForNewSlug(TERM_TEXT, term.texts, ctx.language, change);
    if (wantedSlug !== undefined) change.slug = await uniqueSlug(tx, ctx, wantedSlug, id);
    await tx.term.update({ where: { id }, data: { ...(parentId !== term.parentId ? { parentId } : {}), modifiedAt: ctx.now, version: { increment: 1 } } });
    await writeTexts(tx, term, ctx, change);
    return (await findTerm(tx, ctx.config.taxonomy, id))!;
  });
}

/**
 * Deletes a term for good; its children move up to its parent, and the events that had it count
 * it as a write of theirs (their representation changes). Returns it as it was.
 */
export async function deleteTerm(db: Database, config: TaxonomyConfig, target: WriteTarget<TermRecord>): Promise<TermRecord> {
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    await takeTurns(db, tx, config);
    const term = await lockTarget(db, tx, "Term", target, () => findTerm(tx, config.taxonomy, id));
    await tx.term.updateMany({ where: { parentId: id }, data: { parentId: term.parentId, version: { increment: 1 } } });
    await tx.event.updateMany({ where: { terms: { some: { termId: id } } }, data: { version: { increment: 1 } } });
    await tx.term.delete({ where: { id } });
    return term;
  });
}
