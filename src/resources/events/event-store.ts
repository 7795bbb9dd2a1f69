import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import { inTransaction, type Tx } from "../../db/transaction";
import { canEditItem } from "../../auth/post-permissions";
import type { PostType } from "../../auth/roles";
import { canReadItem } from "../../auth/visibility";
import { ApiError, invalidParam, ParamProblems } from "../../http/errors";
import { isItemId, type ItemRef, type Schemas, type WriteTarget } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { noneIfEmpty } from "../../i18n/localized-rows";
import type { Language } from "../../i18n/languages";
import { slugify } from "../../text/slug";
import { changedColumns } from "../post-kernel/item-columns";
import { lockRows, lockTarget, type OwnedRow } from "../post-kernel/item-lock";
import { nameForNewSlug, textRowsToWrite } from "../post-kernel/item-texts";
import { resolvePostFields, type PostWriteContext } from "../post-kernel/post-fields";
import { itemBySlugSql } from "../post-kernel/slug-lookup";
import { freeSlug, retryOnSlugClash, slugBase } from "../post-kernel/unique-slug";
import { storedCost } from "./event-cost";
import { countEvents, countSql, dayCountSql } from "./event-counts";
import { resolveEventTimes } from "./event-dates";
import { eventListSql, eventOrderSql, type EventFilters, type EventOrderBy } from "./event-query";
import { EVENT_TEXT, readEvent, readEventNamed, readEventPage, type EventRecord, type EventTextField } from "./event-record";
import { writeEventSearch } from "./event-search";

/** What a write body of an event may hold (the spec's fields; a create's has the required ones). */
export type EventWrite = Schemas["EventFields"];

/**
 * The event a request names: by id, or by slug (the one rule of slugs: the request language's,
 * then the default language's, then any). The only place an event is looked up by reference.
 */
export async function resolveEvent(db: Database, ref: ItemRef, order: { language: Language; defaultLanguage: Language }): Promise<EventRecord | null> {
  if ("slug" in ref) return readEventNamed(db, itemBySlugSql("EventText", ref.slug, order.language, order.defaultLanguage));
  return isItemId(ref.id) ? readEvent(db.provider, db.read, ref.id) : null;
}

const NO_SUCH_EVENT = {
  en: "Must be the id of an existing event.",
  "pt-br": "Deve ser o id de um evento existente.",
  es: "Debe ser el id de un evento existente.",
};

/**
 * The id of the event a filter of another resource names (`event` of venues and organizers,
 * `post`/`event` of terms): an event the caller may read, and, when it is password-protected,
 * may edit (its list entry hides what it links to, so these filters do too); else `400` naming the
 * parameter, as for an unknown id.
 */
export async function eventFilterOf(db: Database, id: number, param: string, ctx: RequestContext): Promise<number> {
  const event = await resolveEvent(db, { id }, ctx);
  const shown = event !== null && canReadItem(ctx.principal, "events", event) && (event.passwordHash === null || (ctx.principal !== null && canEditItem(ctx.principal, "events", event)));
  if (!shown) throw invalidParam(param, "rest_event_not_found", NO_SUCH_EVENT, "notFound");
  return id;
}

export interface EventPage {
  filters: EventFilters;
  orderBy: EventOrderBy;
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

/**
 * A page of events and the total: one statement for the page (records included) and one that
 * counts from the day counts; or, when those cannot answer, one statement for both.
 */
export async function listEvents(db: Database, page: EventPage): Promise<{ items: EventRecord[]; total: number }> {
  const list = eventListSql(page.filters, db.provider);
  const parts = { ...list, order: eventOrderSql(page.orderBy, page.order, page.filters.language) };
  const fromDays = dayCountSql(db.provider, page.filters);
  if (fromDays) {
    const [{ records }, total] = await Promise.all([readEventPage(db, parts, page.limit, page.offset, false), countEvents(db, fromDays)]);
    return { items: records, total };
  }
  const { records, total } = await readEventPage(db, parts, page.limit, page.offset, true);
  // An empty first page means none at all; past the last page, the total takes a count of its own.
  return { items: records, total: total ?? (page.offset === 0 ? 0 : await countEvents(db, countSql(list))) };
}

const NO_SUCH_ITEM = {
  en: "Every id must be of an existing item of this kind that you may see (not in the trash).",
  "pt-br": "Cada id deve ser de um item existente deste tipo que você possa ver (fora da lixeira).",
  es: "Cada id debe ser de un elemento existente de este tipo que puedas ver (fuera de la papelera).",
};

const ids = (links: Array<{ id: number }>) => links.map((link) => link.id);

/** The ids an event links to now, per kind. */
function currentLinks(event: EventRecord | null) {
  const terms = event?.terms.map((link) => link.term) ?? [];
  return {
    venue: ids(event?.venues.map((link) => link.venue) ?? []),
    organizer: ids(event?.organizers.map((link) => link.organizer) ?? []),
    categories: ids(terms.filter((term) => term.taxonomy === "category")),
    tags: ids(terms.filter((term) => term.taxonomy === "tag")),
  };
}

type LinkKind = keyof ReturnType<typeof currentLinks>;

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/** The link lists a write replaces: those it gives that differ from the current ones. */
function linkChanges(input: EventWrite, event: EventRecord | null): Partial<Record<LinkKind, number[]>> {
  const current = currentLinks(event);
  const changes: Partial<Record<LinkKind, number[]>> = {};
  for (const kind of ["venue", "organizer", "categories", "tags"] as const) {
    const wanted = input[kind];
    if (wanted !== undefined && !sameList(wanted, current[kind])) changes[kind] = wanted;
  }
  return changes;
}

const PROBLEM_OF_PARAM = (problems: ParamProblems, param: string) => problems.add(param, "rest_linked_item_not_found", NO_SUCH_ITEM, "notFound");

/**
 * Checks that the venues, organizers and parent a write links to exist and that the writer may see
 * them (venues and organizers outside the trash), each unknown or hidden one a problem of its
 * parameter (a contributor cannot link another's draft venue), and holds them until the write
 * commits, so that none can go meanwhile: a venue being trashed or deleted makes the link a 400,
 * not a broken link or a foreign-key failure. Done before the event's row is written, which
 * references the parent.
 */
async function checkItemLinks(db: Database, tx: Tx, ctx: PostWriteContext, changes: Partial<Record<LinkKind, number[]>>, event: EventRecord | null, parent: number | null | undefined, problems: ParamProblems): Promise<void> {
  const readable = (type: PostType, rows: OwnedRow[]) => new Set(rows.filter((row) => canReadItem(ctx.principal, type, row)).map((row) => row.id));
  const live = Prisma.sql`"status" <> 'trash'`;
  for (const [param, table, type] of [["venue", "Venue", "venues"], ["organizer", "Organizer", "organizers"]] as const) {
    const wanted = changes[param];
    if (wanted && readable(type, await lockRows(db, tx, table, wanted, "share", live)).size !== new Set(wanted).size) PROBLEM_OF_PARAM(problems, param);
  }
  if (parent && parent !== event?.parentId) {
    const found = parent === event?.id ? new Set() : readable("events", await lockRows(db, tx, "Event", [parent], "key share"));
    if (found.size === 0) PROBLEM_OF_PARAM(problems, "post_parent");
  }
}

/**
 * Checks that the terms a write links exist in their taxonomy, and locks, in id order, every term
 * whose count the write may change (those it links and those it unlinks), as the count triggers
 * would take them, so that writers relinking the same terms queue instead of deadlocking. Done
 * after the event's row is written: its triggers take the day counts first, then the terms, and
 * every write must take them in that order.
 */
async function checkTermLinks(db: Database, tx: Tx, changes: Partial<Record<LinkKind, number[]>>, event: EventRecord | null, problems: ParamProblems): Promise<void> {
  const current = currentLinks(event);
  const touched = [...(changes.categories ?? []), ...(changes.tags ?? []), ...(changes.categories ? current.categories : []), ...(changes.tags ? current.tags : [])];
  if (touched.length === 0) return;
  const lock = db.provider === "postgresql" ? Prisma.sql` FOR NO KEY UPDATE` : Prisma.empty;
  const rows = await tx.$queryRaw<Array<{ id: number; taxonomy: string }>>(Prisma.sql`SELECT "id", "taxonomy" FROM "Term" WHERE "id" IN (${Prisma.join([...new Set(touched)])}) ORDER BY "id"${lock}`);
  const taxonomies = new Map(rows.map((row) => [Number(row.id), row.taxonomy]));
  for (const [param, taxonomy] of [["categories", "category"], ["tags", "tag"]] as const) {
    const wanted = changes[param];
    if (wanted && wanted.some((id) => taxonomies.get(id) !== taxonomy)) PROBLEM_OF_PARAM(problems, param);
  }
}

/** Replaces the links that changed, keeping the order given. */
async function writeLinks(tx: Tx, eventId: number, changes: Partial<Record<LinkKind, number[]>>): Promise<void> {
  if (changes.venue) {
    await tx.eventVenue.deleteMany({ where: { eventId } });
    await tx.eventVenue.createMany({ data: changes.venue.map((venueId, position) => ({ eventId, venueId, position })) });
  }
  if (changes.organizer) {
    await tx.eventOrganizer.deleteMany({ where: { eventId } });
    await tx.eventOrganizer.createMany({ data: changes.organizer.map((organizerId, position) => ({ eventId, organizerId, position })) });
  }
  for (const [taxonomy, termIds] of [["category", changes.categories], ["tag", changes.tags]] as const) {
    if (!termIds) continue;
    await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    // In term order, the order checkLinks locked them in (the count triggers update each term).
    const links = termIds.map((termId, position) => ({ eventId, termId, position }));
    await tx.eventTerm.createMany({ data: links.sort((a, b) => a.termId - b.termId) });
  }
}

/** The columns of the event itself (shared by every language) that the input gives. */
function eventColumns(input: EventWrite, passwordHash: PasswordWrite): Prisma.EventUncheckedUpdateInput {
  const data: Prisma.EventUncheckedUpdateInput = {};
  if (passwordHash !== undefined) data.passwordHash = passwordHash;
  if (input.image !== undefined) data.image = noneIfEmpty(input.image);
  if (input.website !== undefined) data.website = noneIfEmpty(input.website);
  if (input.cost !== undefined) data.cost = storedCost(input.cost);
  if (input.show_map !== undefined) data.showMap = input.show_map;
  if (input.show_map_link !== undefined) data.showMapLink = input.show_map_link;
  if (input.hide_from_listings !== undefined) data.hideFromListings = input.hide_from_listings;
  if (input.sticky !== undefined) data.sticky = input.sticky;
  if (input.featured !== undefined) data.featured = input.featured;
  if (input.ticketed !== undefined) data.ticketed = input.ticketed;
  if (input.post_parent !== undefined) data.parentId = input.post_parent || null;
  return data;
}

function textChange(input: EventWrite): Partial<Record<EventTextField, string | null>> {
  const change: Partial<Record<EventTextField, string | null>> = {};
  if (input.title !== undefined) change.title = input.title.trim();
  if (input.description !== undefined) change.description = noneIfEmpty(input.description);
  if (input.excerpt !== undefined) change.excerpt = noneIfEmpty(input.excerpt);
  return change;
}

async function takenSlugs(tx: Tx, language: Language, candidates: string[], eventId: number | null): Promise<string[]> {
  const rows = await tx.eventText.findMany({
    where: { language, slug: { in: candidates }, ...(eventId !== null ? { eventId: { not: eventId } } : {}) },
    select: { slug: true },
  });
  return rows.map((row) => row.slug!);
}

function checkSlug(input: EventWrite, problems: ParamProblems): void {
  if (input.slug !== undefined && slugify(input.slug) === "") {
    problems.add("slug", "rest_invalid_slug", {
      en: "Must contain at least one letter or digit.",
      "pt-br": "Deve conter pelo menos uma letra ou um dígito.",
      es: "Debe contener al menos una letra o un dígito.",
    });
  }
}

/**
 * The text change of a write in the context's language, with its slug: the one given (made
 * unique), or, for a language that has no slug of its own yet, one made from the title.
 */
async function textChangeWithSlug(db: Database, tx: Tx, ctx: PostWriteContext, input: EventWrite, event: EventRecord | null) {
  const change = textChange(input);
  const wanted = input.slug ?? nameForNewSlug(EVENT_TEXT, event?.texts ?? [], ctx.language, change);
  if (wanted !== undefined) {
    change.slug = await freeSlug(db, tx, `event:${ctx.language}`, slugBase(wanted, "event"), (candidates) => takenSlugs(tx, ctx.language, candidates, event?.id ?? null));
  }
  return change;
}

/** Writes the text rows that change, and the search document when what search finds changes. */
async function writeTexts(db: Database, tx: Tx, eventId: number, sourceLanguage: string, current: EventRecord["texts"], ctx: PostWriteContext, change: Partial<Record<EventTextField, string | null>>): Promise<void> {
  const { rows, all, searchChanged } = textRowsToWrite(EVENT_TEXT, current, ctx.language, change, { defaultLanguage: ctx.defaultLanguage, sourceLanguage });
  for (const row of rows) {
    const data = { ...row.own, searchText: row.searchText, sortKey: row.sortKey };
    await tx.eventText.upsert({
      where: { eventId_language: { eventId, language: row.language } },
      create: { eventId, language: row.language, ...data },
      update: data,
    });
  }
  if (searchChanged) await writeEventSearch(db.provider, tx, eventId, all.map((row) => row.searchText));
}

/**
 * The stored password of a write (see auth/event-passwords.ts): undefined, unchanged; null,
 * removed. Hashed before the transaction opens: a password hash takes tens of milliseconds.
 */
export type PasswordWrite = string | null | undefined;

export async function createEvent(db: Database, ctx: PostWriteContext, input: Schemas["CreateEventRequest"], passwordHash: PasswordWrite): Promise<EventRecord> {
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const problems = new ParamProblems();
      const fields = await resolvePostFields(tx, input, ctx, problems);
      const times = resolveEventTimes(input, null, ctx.siteTimezone, ctx.now, problems);
      checkSlug(input, problems);
      const links = linkChanges(input, null);
      await checkItemLinks(db, tx, ctx, links, null, input.post_parent, problems);
      problems.throwIfAny();
      const created = await tx.event.create({
        data: { ...(eventColumns(input, passwordHash) as Prisma.EventUncheckedCreateInput), ...fields, ...times!, sourceLanguage: ctx.language, modifiedAt: ctx.now },
        select: { id: true },
      });
      await checkTermLinks(db, tx, links, null, problems);
      problems.throwIfAny();
      const change = await textChangeWithSlug(db, tx, ctx, input, null);
      await writeTexts(db, tx, created.id, ctx.language, [], ctx, change);
      await writeLinks(tx, created.id, links);
      return (await readEvent(db.provider, tx, created.id))!;
    }),
  );
}

/**
 * Changes what the input gives, and only that, under the event's lock: concurrent updates of
 * different fields all take effect, one after the other. Only the columns and text rows whose
 * values change are written, so the day counts and the search index are rewritten only when
 * what they hold changes.
 */
export async function updateEvent(db: Database, ctx: PostWriteContext, target: WriteTarget<EventRecord>, input: EventWrite, passwordHash: PasswordWrite): Promise<EventRecord> {
  const id = target.record.id;
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const current = await lockTarget(db, tx, "Event", target, () => readEvent(db.provider, tx, id));
      const problems = new ParamProblems();
      const fields = await resolvePostFields(tx, input, ctx, problems, current);
      const times = resolveEventTimes(input, current, ctx.siteTimezone, ctx.now, problems);
      checkSlug(input, problems);
      const links = linkChanges(input, current);
      await checkItemLinks(db, tx, ctx, links, current, input.post_parent, problems);
      problems.throwIfAny();
      const columns = changedColumns(current, { ...eventColumns(input, passwordHash), ...fields, ...times! });
      await tx.event.update({ where: { id }, data: { ...columns, modifiedAt: ctx.now, version: { increment: 1 } } });
      await checkTermLinks(db, tx, links, current, problems);
      problems.throwIfAny();
      await writeTexts(db, tx, id, current.sourceLanguage, current.texts, ctx, await textChangeWithSlug(db, tx, ctx, input, current));
      await writeLinks(tx, id, links);
      return (await readEvent(db.provider, tx, id))!;
    }),
  );
}

/** Moves the event to the trash (410 when it is there already). */
export function trashEvent(db: Database, now: Date, target: WriteTarget<EventRecord>): Promise<EventRecord> {
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    const current = await lockTarget(db, tx, "Event", target, () => readEvent(db.provider, tx, id));
    if (current.status === "trash") throw new ApiError("event-is-in-trash");
    await tx.event.update({ where: { id }, data: { status: "trash", modifiedAt: now, version: { increment: 1 } } });
    return (await readEvent(db.provider, tx, id))!;
  });
}

/** Deletes the event for good; answers with it as it was. */
export function destroyEvent(db: Database, target: WriteTarget<EventRecord>): Promise<EventRecord> {
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    const current = await lockTarget(db, tx, "Event", target, () => readEvent(db.provider, tx, id));
    await tx.event.delete({ where: { id } });
    return current;
  });
}
