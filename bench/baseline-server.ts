// The benchmark's baseline: GET /events/{id} and the default-window GET /events, answered with the
// same JSON as the service, from the same database, by raw prepared statements (better-sqlite3 or
// pg) behind the same HTTP framework (Express), with no spec validation. It builds the records the
// service's serializer takes and calls that serializer, so the difference measured is what the
// service's stack (validation, Prisma, middleware) costs.
//   node --import tsx bench/baseline-server.ts   (DATABASE_URL, PORT)
import BetterSqlite3 from "better-sqlite3";
import express from "express";
import { Pool } from "pg";
import { providerOf, sqlitePath } from "../src/db/database";
import { collectionLinks, echoedQuery, setCollectionHeaders, totalPagesOf } from "../src/http/collection";
import { LANGUAGES } from "../src/i18n/languages";
import type { RequestContext } from "../src/http/request-context";
import { ParamProblems } from "../src/http/errors";
import { eventWindow } from "../src/resources/events/event-dates";
import { serializeEvent } from "../src/resources/events/event-serializer";
import type { EventRecord } from "../src/resources/events/event-record";

type Row = Record<string, unknown>;

interface Queries {
  event(id: number): Promise<Row | undefined>;
  page(from: Date, until: Date, limit: number, offset: number): Promise<Row[]>;
  count(from: Date, until: Date): Promise<number>;
  texts(table: "EventText" | "VenueText" | "OrganizerText" | "TermText", key: string, ids: number[]): Promise<Row[]>;
  links(kind: "venue" | "organizer" | "term", eventIds: number[]): Promise<Row[]>;
}

const LINKS = {
  venue: { table: "EventVenue", item: "Venue", key: "venueId" },
  organizer: { table: "EventOrganizer", item: "Organizer", key: "organizerId" },
  term: { table: "EventTerm", item: "Term", key: "termId" },
} as const;

const TEXT_COLUMNS = {
  EventText: `"language", "title", "description", "excerpt", "slug"`,
  VenueText: `"language", "name", "description"`,
  OrganizerText: `"language", "name", "description"`,
  TermText: `"language", "name", "description", "slug"`,
};

const WINDOW = `"status" = 'publish' AND "hideFromListings" = $false AND "startsAt" >= $from AND "endsAt" <= $until`;

function sqliteQueries(url: string): Queries {
  const db = new BetterSqlite3(sqlitePath(url), { readonly: true });
  // Prisma keeps SQLite dates as ISO 8601 text with an explicit offset.
  const iso = (date: Date) => date.toISOString().replace("Z", "+00:00");
  const window = WINDOW.replace("$false", "0").replace("$from", "?").replace("$until", "?");
  const byId = db.prepare(`SELECT * FROM "Event" WHERE "id" = ?`);
  const page = db.prepare(`SELECT * FROM "Event" WHERE ${window} ORDER BY "startsAt", "id" LIMIT ? OFFSET ?`);
  const count = db.prepare(`SELECT COUNT(*) AS "total" FROM "Event" WHERE ${window}`);
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepared = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const list = (ids: number[]) => ids.map(() => "?").join(",");
  return {
    event: async (id) => byId.get(id) as Row | undefined,
    page: async (from, until, limit, offset) => page.all(iso(from), iso(until), limit, offset) as Row[],
    count: async (from, until) => (count.get(iso(from), iso(until)) as { total: number }).total,
    texts: async (table, key, ids) =>
      prepared(`SELECT "${key}", ${TEXT_COLUMNS[table]} FROM "${table}" WHERE "${key}" IN (${list(ids)})`).all(
        ...ids,
      ) as Row[],
    links: async (kind, eventIds) => {
      const { table, item, key } = LINKS[kind];
      return prepared(
        `SELECT l."eventId", i.* FROM "${table}" l JOIN "${item}" i ON i."id" = l."${key}" WHERE l."eventId" IN (${list(eventIds)}) ORDER BY l."eventId", l."position"`,
      ).all(...eventIds) as Row[];
    },
  };
}

function pgQueries(url: string): Queries {
  const pool = new Pool({ connectionString: url, max: 10 });
  const window = WINDOW.replace("$false", "false").replace("$from", "$1").replace("$until", "$2");
  const query = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows as Row[];
  return {
    event: async (id) => (await query("event", `SELECT * FROM "Event" WHERE "id" = $1`, [id]))[0],
    page: (from, until, limit, offset) =>
      query("page", `SELECT * FROM "Event" WHERE ${window} ORDER BY "startsAt", "id" LIMIT $3 OFFSET $4`, [
        from,
        until,
        limit,
        offset,
      ]),
    count: async (from, until) =>
      Number((await query("count", `SELECT COUNT(*) AS "total" FROM "Event" WHERE ${window}`, [from, until]))[0].total),
    texts: (table, key, ids) =>
      query(`texts-${table}`, `SELECT "${key}", ${TEXT_COLUMNS[table]} FROM "${table}" WHERE "${key}" = ANY($1)`, [
        ids,
      ]),
    links: (kind, eventIds) => {
      const { table, item, key } = LINKS[kind];
      return query(
        `links-${kind}`,
        `SELECT l."eventId", i.* FROM "${table}" l JOIN "${item}" i ON i."id" = l."${key}" WHERE l."eventId" = ANY($1) ORDER BY l."eventId", l."position"`,
        [eventIds],
      );
    },
  };
}

const toDate = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));
const toBool = (value: unknown) => value === true || value === 1;

function datesAndFlags(row: Row): Row {
  const out: Row = { ...row };
  for (const key of ["postDate", "modifiedAt", "startsAt", "endsAt", "createdAt"])
    if (key in out) out[key] = toDate(out[key]);
  for (const key of ["allDay", "showMap", "showMapLink", "hideFromListings", "sticky", "featured", "ticketed"])
    if (key in out) out[key] = toBool(out[key]);
  return out;
}

function group(rows: Row[], key: string): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const id = Number(row[key]);
    const list = groups.get(id) ?? [];
    list.push(row);
    groups.set(id, list);
  }
  return groups;
}

/** The records of these events, with their texts and linked items: what the service's findMany returns. */
async function records(queries: Queries, events: Row[]): Promise<EventRecord[]> {
  if (events.length === 0) return [];
  const ids = events.map((event) => Number(event.id));
  const [texts, venueLinks, organizerLinks, termLinks] = await Promise.all([
    queries.texts("EventText", "eventId", ids),
    queries.links("venue", ids),
    queries.links("organizer", ids),
    queries.links("term", ids),
  ]);
  const itemIds = (rows: Row[]) => [...new Set(rows.map((row) => Number(row.id)))];
  const [venueTexts, organizerTexts, termTexts] = await Promise.all([
    venueLinks.length ? queries.texts("VenueText", "venueId", itemIds(venueLinks)) : [],
    organizerLinks.length ? queries.texts("OrganizerText", "organizerId", itemIds(organizerLinks)) : [],
    termLinks.length ? queries.texts("TermText", "termId", itemIds(termLinks)) : [],
  ]);
  const textsBy = {
    event: group(texts, "eventId"),
    venue: group(venueTexts, "venueId"),
    organizer: group(organizerTexts, "organizerId"),
    term: group(termTexts, "termId"),
  };
  const linked = (rows: Row[], kind: "venue" | "organizer" | "term") =>
    group(
      rows.map((row) => ({ ...datesAndFlags(row), texts: textsBy[kind].get(Number(row.id)) ?? [] })),
      "eventId",
    );
  const venues = linked(venueLinks, "venue");
  const organizers = linked(organizerLinks, "organizer");
  const terms = linked(termLinks, "term");
  return events.map((event) => {
    const id = Number(event.id);
    return {
      ...datesAndFlags(event),
      texts: textsBy.event.get(id) ?? [],
      venues: (venues.get(id) ?? []).map((venue) => ({ venue })),
      organizers: (organizers.get(id) ?? []).map((organizer) => ({ organizer })),
      terms: (terms.get(id) ?? []).map((term) => ({ term })),
    } as unknown as EventRecord;
  });
}

function context(req: express.Request): RequestContext {
  const origin = `${req.protocol}://${req.get("host")}`;
  const apiBase = `${origin}/calendar/events/v1`;
  return {
    language: "en",
    defaultLanguage: "en",
    siteTimezone: "UTC",
    principal: null,
    apiBase,
    siteUrl: origin,
    languagePrefix: "",
    apiBaseIn: (language) => `${origin}/${language}/calendar/events/v1`,
  };
}

const url = process.env.DATABASE_URL ?? "file:./data/calendar.db";
const queries = providerOf(url) === "postgresql" ? pgQueries(url) : sqliteQueries(url);
const app = express();
app.disable("x-powered-by");

app.get("/calendar/events/v1/events/:id", async (req, res) => {
  const row = await queries.event(Number(req.params.id));
  if (!row || row.status !== "publish") return void res.status(404).json({ code: "rest-event-not-found" });
  const [record] = await records(queries, [row]);
  res.json(serializeEvent(record, context(req), { jsonLd: true, translations: true }));
});

app.get("/calendar/events/v1/events", async (req, res) => {
  const perPage = Math.min(Number(req.query.per_page ?? 10), 50);
  const page = Number(req.query.page ?? 1);
  const window = eventWindow({}, "UTC", new Date(), true, new ParamProblems());
  const [rows, total] = await Promise.all([
    queries.page(window.startsFrom!, window.endsUntil!, perPage, (page - 1) * perPage),
    queries.count(window.startsFrom!, window.endsUntil!),
  ]);
  const ctx = context(req);
  const events = (await records(queries, rows)).map((record) => serializeEvent(record, ctx, { jsonLd: false }));
  const pageRequest = { page, perPage };
  const totalPages = totalPagesOf(total, perPage);
  const links = collectionLinks(ctx, "/events", echoedQuery(req, pageRequest, window.echo), pageRequest, totalPages);
  setCollectionHeaders(res, total, totalPages, links);
  res.json({ events, ...links, total, total_pages: totalPages });
});

const server = app.listen(Number(process.env.PORT ?? 8090), "127.0.0.1", () =>
  console.log(JSON.stringify({ msg: "listening", languages: LANGUAGES.length })),
);
process.once("SIGTERM", () => server.close(() => process.exit(0)));
