import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database, Db, Provider } from "../../db/database";
import { columns, jsonSql, revive } from "../../db/sql-json";
import type { Tx } from "../../db/transaction";
import type { EventOrderSql } from "./event-query";
import type { EventRecord } from "./event-store";

/**
 * Reading events with everything a representation needs (texts, venues, organizers, terms and
 * their texts) in one statement per page: the database assembles each record as JSON. Prisma's
 * nested `select` would take about eight statements per page instead, each with a fixed cost
 * larger than the work itself (see bench/). The record has the shape of `eventSelect`.
 */

const EVENT_COLUMNS = [
  "id", "authorId", "status", "passwordHash", "sourceLanguage", "postDate", "modifiedAt", "startLocal", "endLocal", "startsAt", "endsAt",
  "timezone", "timezoneAbbr", "allDay", "cost", "website", "image", "showMap", "showMapLink", "hideFromListings", "sticky", "featured",
  "ticketed", "parentId",
] as const;
const VENUE_COLUMNS = [
  "id", "authorId", "status", "sourceLanguage", "slug", "postDate", "modifiedAt", "address", "city", "country", "province", "state", "zip",
  "phone", "stateprovince", "website", "image", "showMap", "showMapLink", "geoLat", "geoLng",
] as const;
const ORGANIZER_COLUMNS = ["id", "authorId", "status", "sourceLanguage", "slug", "postDate", "modifiedAt", "phone", "website", "email", "image"] as const;
const TERM_COLUMNS = ["id", "taxonomy", "parentId", "count", "sourceLanguage"] as const;

const DATES = new Set(["postDate", "modifiedAt", "startsAt", "endsAt"]);
const BOOLEANS = new Set(["allDay", "showMap", "showMapLink", "hideFromListings", "sticky", "featured", "ticketed"]);

const recordSql = new Map<Provider, string>();

/** The JSON expression of the record of the event aliased "e". */
function eventRecordSql(provider: Provider): string {
  let sql = recordSql.get(provider);
  if (sql) return sql;
  const json = jsonSql(provider);
  const texts = (table: string, key: string, alias: string, fields: string[]) =>
    json.array(json.object(columns("t", ["language", ...fields])), `"${table}" "t" WHERE "t"."${key}" = "${alias}"."id"`, `"t"."language"`);
  const linked = (link: string, key: string, table: string, name: string, cols: readonly string[], textTable: string, textKey: string, textFields: string[]) =>
    json.array(
      json.object({ [name]: json.object({ ...columns("i", cols), texts: texts(textTable, textKey, "i", textFields) }) }),
      `"${link}" "l" JOIN "${table}" "i" ON "i"."id" = "l"."${key}" WHERE "l"."eventId" = "e"."id"`,
      `"l"."position"`,
    );
  sql = json.object({
    ...columns("e", EVENT_COLUMNS),
    texts: texts("EventText", "eventId", "e", ["title", "description", "excerpt", "slug"]),
    venues: linked("EventVenue", "venueId", "Venue", "venue", VENUE_COLUMNS, "VenueText", "venueId", ["name", "description"]),
    organizers: linked("EventOrganizer", "organizerId", "Organizer", "organizer", ORGANIZER_COLUMNS, "OrganizerText", "organizerId", ["name", "description"]),
    terms: linked("EventTerm", "termId", "Term", "term", TERM_COLUMNS, "TermText", "termId", ["name", "description", "slug"]),
  });
  recordSql.set(provider, sql);
  return sql;
}

type Client = Db | Tx;

async function records(client: Client, provider: Provider, rest: Prisma.Sql): Promise<EventRecord[]> {
  const rows = await client.$queryRaw<Array<{ record: unknown }>>`SELECT ${Prisma.raw(eventRecordSql(provider))} AS "record" FROM ${rest}`;
  return rows.map((row) => revive<EventRecord>(row.record, DATES, BOOLEANS));
}

export interface EventListParts {
  from: Prisma.Sql;
  where: Prisma.Sql;
  order: EventOrderSql;
}

/**
 * A page of the events that `from` and `where` select, in `order`. The page's ids are found
 * first and the records built for them only: built in the same query, they would be built for
 * every event the database sorts, not just for those it returns. With `countAll`, the same
 * statement counts every event selected (a window function over the rows it sorts anyway), so
 * that a list the day counts cannot total does not go through its events twice; the total is
 * null when the page is empty (past the last one).
 */
export async function loadEventPage(db: Database, parts: EventListParts, limit: number, offset: number, countAll: boolean): Promise<{ records: EventRecord[]; total: number | null }> {
  const { key, direction, join } = parts.order;
  const total = countAll ? Prisma.sql`, COUNT(*) OVER () AS "total"` : Prisma.empty;
  const page = Prisma.sql`SELECT "e"."id" AS "id", ${Prisma.raw(key)} AS "k"${total} FROM ${parts.from} ${join} ${parts.where}
    ORDER BY ${Prisma.raw(`${key} ${direction}, "e"."id" ${direction}`)} LIMIT ${limit} OFFSET ${offset}`;
  const totalColumn = countAll ? Prisma.sql`, "p"."total" AS "total"` : Prisma.empty;
  const rows = await db.read.$queryRaw<Array<{ record: unknown; total?: number | bigint }>>`SELECT ${Prisma.raw(eventRecordSql(db.provider))} AS "record"${totalColumn}
    FROM (${page}) "p" JOIN "Event" "e" ON "e"."id" = "p"."id" ORDER BY ${Prisma.raw(`"p"."k" ${direction}, "p"."id" ${direction}`)}`;
  return {
    records: rows.map((row) => revive<EventRecord>(row.record, DATES, BOOLEANS)),
    total: countAll && rows.length > 0 ? Number(rows[0].total) : null,
  };
}

/** The event a slug names: in `language` first, then in `defaultLanguage`, then in any. */
export async function loadEventBySlug(db: Database, slug: string, language: string, defaultLanguage: string): Promise<EventRecord | null> {
  const named = Prisma.sql`SELECT "t"."eventId" FROM "EventText" "t" WHERE "t"."slug" = ${slug}
    ORDER BY CASE "t"."language" WHEN ${language} THEN 0 WHEN ${defaultLanguage} THEN 1 ELSE 2 END, "t"."language" LIMIT 1`;
  const [record] = await records(db.read, db.provider, Prisma.sql`"Event" "e" WHERE "e"."id" = (${named})`);
  return record ?? null;
}

export async function loadEvent(db: Database, id: number, tx?: Tx): Promise<EventRecord | null> {
  const [record] = await records(tx ?? db.read, db.provider, Prisma.sql`"Event" "e" WHERE "e"."id" = ${id}`);
  return record ?? null;
}
