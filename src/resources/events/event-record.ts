import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database, Db, Provider } from "../../db/database";
import { columns, jsonSql, revive } from "../../db/sql-json";
import type { Tx } from "../../db/transaction";
import type { RowsSpec } from "../../i18n/localized-rows";
import type { LoggedItem } from "../../sync/representation-cache";
import type { FallbackOrder } from "../../i18n/localized-text";
import { ORGANIZER_COLUMNS, organizerSelect } from "../organizers/organizer-record";
import { POST_COLUMNS } from "../post-kernel/post-record";
import { TERM_COLUMNS, termSelect } from "../terms/term-record";
import { VENUE_COLUMNS, venueSelect } from "../venues/venue-record";
import { yieldToEventLoop } from "../../event-loop";

/**
 * An event as stored: its own columns, its text in every language, and what it links to. One
 * source for both ways of reading it: the Prisma select below, and the statement that builds the
 * same record as JSON in the database (one statement per page instead of Prisma's eight).
 */

/** The event's own columns. */
export const EVENT_COLUMNS = {
  ...POST_COLUMNS,
  passwordHash: true,
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
  recurrence: true,
  recurrenceUntil: true,
  recurrenceId: true,
  detached: true,
} as const satisfies Prisma.EventSelect;

export const EVENT_TEXT_COLUMNS = { language: true, title: true, description: true, excerpt: true, slug: true } as const satisfies Prisma.EventTextSelect;

export const eventSelect = {
  ...EVENT_COLUMNS,
  texts: { select: EVENT_TEXT_COLUMNS },
  venues: { orderBy: { position: "asc" }, select: { venue: { select: venueSelect } } },
  organizers: { orderBy: { position: "asc" }, select: { organizer: { select: organizerSelect } } },
  terms: { orderBy: { position: "asc" }, select: { term: { select: termSelect } } },
} satisfies Prisma.EventSelect;

export type EventRecord = Prisma.EventGetPayload<{ select: typeof eventSelect }>;

/** The items a representation of the event shows, as the change log names them: itself and what it embeds. */
export function itemsShownBy(event: EventRecord): LoggedItem[] {
  return [
    `events:${event.id}`,
    ...event.venues.map(({ venue }): LoggedItem => `venues:${venue.id}`),
    ...event.organizers.map(({ organizer }): LoggedItem => `organizers:${organizer.id}`),
    ...event.terms.map(({ term }): LoggedItem => `${term.taxonomy === "category" ? "categories" : "tags"}:${term.id}`),
  ];
}

export type EventTextField = "title" | "description" | "excerpt" | "slug";

export const EVENT_TEXT: RowsSpec<EventTextField> = {
  fields: ["title", "description", "excerpt", "slug"],
  nameField: "title",
  // As WordPress searches posts: title, excerpt and content.
  searchFields: ["title", "excerpt", "description"],
};

// Columns whose JSON form is not the record's: SQLite has no booleans, and dates come as text.
const DATES = new Set(["postDate", "modifiedAt", "startsAt", "endsAt", "recurrenceUntil", "recurrenceId"]);
const BOOLEANS = new Set(["allDay", "showMap", "showMapLink", "hideFromListings", "sticky", "featured", "ticketed", "detached"]);

const names = (select: object) => Object.keys(select);

const recordSql = new Map<string, string>();

/**
 * The JSON expression of the record of the event aliased "e". With `shownIn`, each text list holds
 * only the rows a representation in that language can show (its own, the default language's, the
 * item's source language's: localized-text.ts's fallback order); a list's items need no more, and
 * the other languages' rows were most of what a page built, parsed and revived.
 */
function eventRecordSql(provider: Provider, shownIn?: FallbackLanguages): string {
  const cacheKey = shownIn ? `${provider}:${shownIn.language}:${shownIn.defaultLanguage}` : provider;
  let sql = recordSql.get(cacheKey);
  if (sql) return sql;
  const json = jsonSql(provider);
  // The languages are the closed set of LANGUAGES (never request text), quoted as SQL literals.
  const languages = shownIn ? [...new Set([shownIn.language, shownIn.defaultLanguage])].map((language) => `'${language}'`).join(", ") : "";
  const texts = (table: string, key: string, alias: string, fields: string[]) =>
    json.array(
      json.object(columns("t", fields)),
      `"${table}" "t" WHERE "t"."${key}" = "${alias}"."id"${shownIn ? ` AND ("t"."language" IN (${languages}) OR "t"."language" = "${alias}"."sourceLanguage")` : ""}`,
      `"t"."language"`,
    );
  const linked = (link: string, key: string, table: string, name: string, cols: string[], textTable: string, textKey: string, textFields: string[]) =>
    json.array(
      json.object({ [name]: json.object({ ...columns("i", cols), texts: texts(textTable, textKey, "i", textFields) }) }),
      `"${link}" "l" JOIN "${table}" "i" ON "i"."id" = "l"."${key}" WHERE "l"."eventId" = "e"."id"`,
      `"l"."position"`,
    );
  sql = json.object({
    ...columns("e", names(EVENT_COLUMNS)),
    texts: texts("EventText", "eventId", "e", names(EVENT_TEXT_COLUMNS)),
    venues: linked("EventVenue", "venueId", "Venue", "venue", names(VENUE_COLUMNS), "VenueText", "venueId", names(venueSelect.texts.select)),
    organizers: linked("EventOrganizer", "organizerId", "Organizer", "organizer", names(ORGANIZER_COLUMNS), "OrganizerText", "organizerId", names(organizerSelect.texts.select)),
    terms: linked("EventTerm", "termId", "Term", "term", names(TERM_COLUMNS), "TermText", "termId", names(termSelect.texts.select)),
  });
  recordSql.set(cacheKey, sql);
  return sql;
}

/** The languages a representation falls back through, but the item's own source language. */
type FallbackLanguages = Omit<FallbackOrder, "sourceLanguage">;

type Client = Db | Tx;

function reviveRecord(value: unknown): EventRecord {
  return revive<EventRecord>(value, DATES, BOOLEANS);
}

function recordsSql(provider: Provider, rest: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT ${Prisma.raw(eventRecordSql(provider))} AS "record" FROM ${rest}`;
}

/** The records of the events that `rest` (FROM ... WHERE ..., the event aliased "e") selects, in a transaction. */
async function readRecords(client: Client, provider: Provider, rest: Prisma.Sql): Promise<EventRecord[]> {
  const rows = await client.$queryRaw<Array<{ record: unknown }>>(recordsSql(provider, rest));
  return rows.map((row) => reviveRecord(row.record));
}

/** The same, outside a write: straight through the driver. */
async function readCommittedRecords(db: Database, rest: Prisma.Sql): Promise<EventRecord[]> {
  const rows = await db.direct.rows<{ record: unknown }>(recordsSql(db.provider, rest));
  return rows.map((row) => reviveRecord(row.record));
}

/** One event by id, through `client` (a transaction's, to read what it wrote). */
export async function readEvent(provider: Provider, client: Client, id: number): Promise<EventRecord | null> {
  const [record] = await readRecords(client, provider, Prisma.sql`"Event" "e" WHERE "e"."id" = ${id}`);
  return record ?? null;
}

/** One event by id, as committed. */
export async function readCommittedEvent(db: Database, id: number): Promise<EventRecord | null> {
  const [record] = await readCommittedRecords(db, Prisma.sql`"Event" "e" WHERE "e"."id" = ${id}`);
  return record ?? null;
}

/** The event whose slug `named` (a statement selecting one "eventId") finds. */
export async function readEventNamed(db: Database, named: Prisma.Sql): Promise<EventRecord | null> {
  const [record] = await readCommittedRecords(db, Prisma.sql`"Event" "e" WHERE "e"."id" = (${named})`);
  return record ?? null;
}

/** How a page is ordered: by `key` (an SQL expression), ties broken by id, in `direction`. */
export interface EventOrderSql {
  /** What `key` needs joined. */
  join: Prisma.Sql;
  key: string;
  direction: "ASC" | "DESC";
}

export interface EventPageSql {
  /** The language the page is shown in: its records hold the texts that language shows only. */
  shownIn: FallbackLanguages;
  from: Prisma.Sql;
  where: Prisma.Sql;
  order: EventOrderSql;
}

/**
 * A list of ids as one parameter, so that the statement is the same whatever their number: one
 * compiled statement kept, not one per length (each holds a compiled copy of the record's JSON).
 */
function idList(provider: Provider, ids: number[]): Prisma.Sql {
  return provider === "postgresql" ? Prisma.sql`SELECT unnest(${ids}::integer[])` : Prisma.sql`SELECT "value" FROM json_each(${JSON.stringify(ids)})`;
}

/**
 * A page of the events that `from` and `where` select, in `order`: their ids, in order, and the
 * records of those `needed` (all, unless told; a representation kept before needs none). The
 * page's ids are found first and the records built for them only: built in the same query, they
 * would be built for every event the database sorts, not just for those it returns. With
 * `countAll`, the same statement counts every event selected (a window function over the rows it
 * sorts anyway), so that a list the day counts cannot total does not go through its events
 * twice; the total is null when the page is empty (past the last one). An event deleted between
 * the two statements is left out of `records`.
 */
const RECORDS_PER_READ = 100;

export async function readEventPage(
  db: Database,
  parts: EventPageSql,
  page: { limit: number; offset: number; countAll: boolean; needed?: (id: number) => boolean },
): Promise<{ ids: number[]; records: EventRecord[]; total: number | null }> {
  const { key, direction, join } = parts.order;
  const total = page.countAll ? Prisma.sql`, COUNT(*) OVER () AS "total"` : Prisma.empty;
  const rows = await db.direct.rows<{ id: number | string; total?: number | bigint | string }>(Prisma.sql`SELECT "e"."id" AS "id"${total} FROM ${parts.from} ${join} ${parts.where}
    ORDER BY ${Prisma.raw(`${key} ${direction}, "e"."id" ${direction}`)} LIMIT ${page.limit} OFFSET ${page.offset}`);
  const ids = rows.map((row) => Number(row.id));
  const needed = page.needed ? ids.filter(page.needed) : ids;
  const byId = new Map<number, EventRecord>();
  // A feed's thousand records are read a hundred at a time, the event loop free in between
  // (better-sqlite3 reads synchronously: one statement would hold it for 150 ms).
  for (let first = 0; first < needed.length; first += RECORDS_PER_READ) {
    if (first > 0) await yieldToEventLoop();
    const read = await db.direct.rows<{ record: unknown }>(
      Prisma.sql`SELECT ${Prisma.raw(eventRecordSql(db.provider, parts.shownIn))} AS "record" FROM "Event" "e" WHERE "e"."id" IN (${idList(db.provider, needed.slice(first, first + RECORDS_PER_READ))})`,
    );
    for (const row of read) {
      const record = reviveRecord(row.record);
      byId.set(record.id, record);
    }
  }
  return {
    ids,
    records: needed.flatMap((id) => byId.get(id) ?? []),
    total: page.countAll && rows.length > 0 ? Number(rows[0].total) : null,
  };
}
