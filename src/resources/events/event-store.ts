import type { Prisma } from "../../../generated/prisma/sqlite/client";
import { hashSecret } from "../../auth/password-hash";
import type { Database } from "../../db/database";
import { inTransaction, type Tx } from "../../db/transaction";
import { localizedRows, noneIfEmpty, type RowsSpec } from "../../i18n/localized-rows";
import type { Language } from "../../i18n/languages";
import { slugify } from "../../text/slug";
import { organizerSelect } from "../organizers/organizer-store";
import type { LinkedPostGuard, LinkedPostWriteContext } from "../posts/linked-post-store";
import { ParamProblems, resolvePostFields, type PostFieldsInput } from "../posts/post-write";
import { freeSlug, retryOnSlugClash, slugBase } from "../posts/unique-slug";
import { termSelect } from "../terms/term-store";
import { venueSelect } from "../venues/venue-store";
import { storedCost } from "./event-cost";
import { resolveEventTimes, type EventTimesInput } from "./event-dates";
import { countEvents, countSql, dayCountSql } from "./event-counts";
import { eventListSql, eventOrderSql, type EventFilters, type EventOrderBy } from "./event-query";
import { loadEvent, loadEventBySlug, loadEventPage } from "./event-reads";
import { writeEventSearch } from "./event-search";

export const eventSelect = {
  id: true,
  authorId: true,
  status: true,
  passwordHash: true,
  sourceLanguage: true,
  postDate: true,
  modifiedAt: true,
  startLocal: true,
  endLocal: true,
  startsAt: true,
  endsAt: true,
  timezone: true,
  timezoneAbbr: true,
  allDay: true,
  cost: true,
  website: true,
  image: true,
  showMap: true,
  showMapLink: true,
  hideFromListings: true,
  sticky: true,
  featured: true,
  ticketed: true,
  parentId: true,
  texts: { select: { language: true, title: true, description: true, excerpt: true, slug: true } },
  venues: { orderBy: { position: "asc" }, select: { venue: { select: venueSelect } } },
  organizers: { orderBy: { position: "asc" }, select: { organizer: { select: organizerSelect } } },
  terms: { orderBy: { position: "asc" }, select: { term: { select: termSelect } } },
} satisfies Prisma.EventSelect;

export type EventRecord = Prisma.EventGetPayload<{ select: typeof eventSelect }>;

type EventTextField = "title" | "description" | "excerpt" | "slug";

export const EVENT_TEXT: RowsSpec<EventTextField> = {
  fields: ["title", "description", "excerpt", "slug"],
  nameField: "title",
  // As WordPress searches posts: title, excerpt and content.
  searchFields: ["title", "excerpt", "description"],
};

export interface EventInput extends PostFieldsInput, EventTimesInput {
  title?: string;
  description?: string | null;
  excerpt?: string | null;
  slug?: string;
  image?: string | null;
  cost?: string | string[] | null;
  website?: string | null;
  show_map?: boolean;
  show_map_link?: boolean;
  hide_from_listings?: boolean;
  sticky?: boolean;
  featured?: boolean;
  ticketed?: boolean;
  post_parent?: number | null;
  password?: string | null;
  categories?: number[];
  tags?: number[];
  venue?: number[];
  organizer?: number[];
}

export function findEvent(db: Database, id: number): Promise<EventRecord | null> {
  return loadEvent(db, id);
}

/** The event a slug names: in the request language first, then the default one, then any. */
export function findEventBySlug(db: Database, slug: string, language: Language, defaultLanguage: Language): Promise<EventRecord | null> {
  return loadEventBySlug(db, slug, language, defaultLanguage);
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
    const [{ records }, total] = await Promise.all([loadEventPage(db, parts, page.limit, page.offset, false), countEvents(db, fromDays)]);
    return { items: records, total };
  }
  const { records, total } = await loadEventPage(db, parts, page.limit, page.offset, true);
  // An empty first page means none at all; past the last page, the total takes a count of its own.
  return { items: records, total: total ?? (page.offset === 0 ? 0 : await countEvents(db, countSql(list))) };
}

const NO_SUCH_ITEM = {
  en: "Every id must be of an existing item of this kind (not in the trash).",
  "pt-br": "Cada id deve ser de um item existente deste tipo (fora da lixeira).",
  es: "Cada id debe ser de un elemento existente de este tipo (fuera de la papelera).",
};

/** Checks the ids an event write links to; each unknown one is a problem of its parameter. */
async function checkLinks(tx: Tx, input: EventInput, eventId: number | null, problems: ParamProblems): Promise<void> {
  const check = async (param: string, ids: number[] | undefined, count: (ids: number[]) => Promise<number>) => {
    if (ids && ids.length > 0 && (await count(ids)) !== new Set(ids).size) problems.add(param, "rest_linked_item_not_found", NO_SUCH_ITEM, "notFound");
  };
  await check("venue", input.venue, (ids) => tx.venue.count({ where: { id: { in: ids }, status: { not: "trash" } } }));
  await check("organizer", input.organizer, (ids) => tx.organizer.count({ where: { id: { in: ids }, status: { not: "trash" } } }));
  await check("categories", input.categories, (ids) => tx.term.count({ where: { id: { in: ids }, taxonomy: "category" } }));
  await check("tags", input.tags, (ids) => tx.term.count({ where: { id: { in: ids }, taxonomy: "tag" } }));
  if (input.post_parent) {
    const parent = input.post_parent === eventId ? null : await tx.event.findUnique({ where: { id: input.post_parent }, select: { id: true } });
    if (!parent) problems.add("post_parent", "rest_linked_item_not_found", NO_SUCH_ITEM, "notFound");
  }
}

/**
 * The hash of the password a write sets (undefined: unchanged; null: removed). Computed before
 * the transaction opens: a password hash takes tens of milliseconds.
 */
async function passwordHashOf(input: EventInput): Promise<string | null | undefined> {
  if (input.password === undefined) return undefined;
  return input.password ? hashSecret(input.password) : null;
}

/** The columns of the event itself (shared by every language) that the input sets. */
function eventColumns(input: EventInput, passwordHash: string | null | undefined): Prisma.EventUncheckedUpdateInput {
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

function textChange(input: EventInput, slug: string | undefined): Partial<Record<EventTextField, string | null>> {
  const change: Partial<Record<EventTextField, string | null>> = {};
  if (input.title !== undefined) change.title = input.title.trim();
  if (input.description !== undefined) change.description = noneIfEmpty(input.description);
  if (input.excerpt !== undefined) change.excerpt = noneIfEmpty(input.excerpt);
  if (slug !== undefined) change.slug = slug;
  return change;
}

/** Writes a change of the texts in the context's language: every language's row, and the search document. */
async function writeTexts(db: Database, tx: Tx, event: { id: number; sourceLanguage: string; texts: EventRecord["texts"] }, ctx: LinkedPostWriteContext, change: Partial<Record<EventTextField, string | null>>): Promise<void> {
  if (Object.keys(change).length === 0) return;
  const rows = localizedRows(EVENT_TEXT, event.texts, ctx.language, change, { defaultLanguage: ctx.defaultLanguage, sourceLanguage: event.sourceLanguage });
  for (const row of rows) {
    const data = { ...row.own, searchText: row.searchText, sortKey: row.sortKey };
    await tx.eventText.upsert({
      where: { eventId_language: { eventId: event.id, language: row.language } },
      create: { eventId: event.id, language: row.language, ...data },
      update: data,
    });
  }
  await writeEventSearch(db.provider, tx, event.id, rows.map((row) => row.searchText));
}

/** Replaces the links the input gives (an empty list removes them all), keeping their order. */
async function writeLinks(tx: Tx, eventId: number, input: EventInput): Promise<void> {
  if (input.venue) {
    await tx.eventVenue.deleteMany({ where: { eventId } });
    await tx.eventVenue.createMany({ data: input.venue.map((venueId, position) => ({ eventId, venueId, position })) });
  }
  if (input.organizer) {
    await tx.eventOrganizer.deleteMany({ where: { eventId } });
    await tx.eventOrganizer.createMany({ data: input.organizer.map((organizerId, position) => ({ eventId, organizerId, position })) });
  }
  for (const [taxonomy, ids] of [["category", input.categories], ["tag", input.tags]] as const) {
    if (!ids) continue;
    await tx.eventTerm.deleteMany({ where: { eventId, term: { taxonomy } } });
    // In term order: database triggers count the links into their terms (see the term_counts
    // migration), locking each term's row; writers that lock in one order never deadlock.
    const links = ids.map((termId, position) => ({ eventId, termId, position }));
    await tx.eventTerm.createMany({ data: links.sort((a, b) => a.termId - b.termId) });
  }
}

async function takenSlugs(tx: Tx, language: Language, candidates: string[], eventId: number | null): Promise<string[]> {
  const rows = await tx.eventText.findMany({
    where: { language, slug: { in: candidates }, ...(eventId !== null ? { eventId: { not: eventId } } : {}) },
    select: { slug: true },
  });
  return rows.map((row) => row.slug!);
}

function checkSlug(input: EventInput, problems: ParamProblems): void {
  if (input.slug !== undefined && slugify(input.slug) === "") {
    problems.add("slug", "rest_invalid_slug", {
      en: "Must contain at least one letter or digit.",
      "pt-br": "Deve conter pelo menos uma letra ou um dígito.",
      es: "Debe contener al menos una letra o un dígito.",
    });
  }
}

export async function createEvent(db: Database, ctx: LinkedPostWriteContext, input: EventInput & { title: string }): Promise<EventRecord> {
  const passwordHash = await passwordHashOf(input);
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const problems = new ParamProblems();
      const fields = await resolvePostFields(tx, input, ctx, problems);
      const times = resolveEventTimes(input, null, ctx.siteTimezone, ctx.now, problems);
      checkSlug(input, problems);
      await checkLinks(tx, input, null, problems);
      problems.throwIfAny();
      const slug = await freeSlug(db, tx, `event:${ctx.language}`, slugBase(input.slug ?? input.title, "event"), (candidates) => takenSlugs(tx, ctx.language, candidates, null));
      const created = await tx.event.create({
        data: { ...(eventColumns(input, passwordHash) as Prisma.EventUncheckedCreateInput), ...fields, ...times!, sourceLanguage: ctx.language, modifiedAt: ctx.now },
        select: { id: true, sourceLanguage: true },
      });
      await writeTexts(db, tx, { ...created, texts: [] }, ctx, textChange(input, slug));
      await writeLinks(tx, created.id, input);
      return (await loadEvent(db, created.id, tx))!;
    }),
  );
}

export async function updateEvent(db: Database, ctx: LinkedPostWriteContext, id: number, input: EventInput, guard: LinkedPostGuard<EventRecord>): Promise<EventRecord> {
  const passwordHash = await passwordHashOf(input);
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const current = await loadEvent(db, id, tx);
      guard(current);
      const problems = new ParamProblems();
      const fields = await resolvePostFields(tx, input, ctx, problems, current);
      const times = resolveEventTimes(input, current, ctx.siteTimezone, ctx.now, problems);
      checkSlug(input, problems);
      await checkLinks(tx, input, id, problems);
      problems.throwIfAny();
      const slug = input.slug === undefined ? undefined : await freeSlug(db, tx, `event:${ctx.language}`, slugBase(input.slug, "event"), (candidates) => takenSlugs(tx, ctx.language, candidates, id));
      await tx.event.update({ where: { id }, data: { ...eventColumns(input, passwordHash), ...fields, ...times!, modifiedAt: ctx.now } });
      await writeTexts(db, tx, current, ctx, textChange(input, slug));
      await writeLinks(tx, id, input);
      return (await loadEvent(db, id, tx))!;
    }),
  );
}

export function trashEvent(db: Database, now: Date, id: number, guard: LinkedPostGuard<EventRecord>): Promise<EventRecord> {
  return inTransaction(db, async (tx) => {
    const current = await loadEvent(db, id, tx);
    guard(current);
    await tx.event.update({ where: { id }, data: { status: "trash", modifiedAt: now } });
    return (await loadEvent(db, id, tx))!;
  });
}

export function destroyEvent(db: Database, id: number, guard: LinkedPostGuard<EventRecord>): Promise<EventRecord> {
  return inTransaction(db, async (tx) => {
    const current = await loadEvent(db, id, tx);
    guard(current);
    await tx.event.delete({ where: { id } });
    return current;
  });
}
