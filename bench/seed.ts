// Seeds a benchmark database: N events with venues, organizers, categories, tags, translations,
// mixed statuses and dates over five years (2.5 years back to 2.5 years ahead). Rows are made by
// the data layer's own functions (per-language text, search text, sort keys, time zones) and
// written with Prisma in batches (on PostgreSQL the events through COPY: pg-copy.ts); the same
// seed gives the same data.
import BetterSqlite3 from "better-sqlite3";
import { DateTime } from "luxon";
import { sqlitePath, type Database } from "../src/db/database";
import { sqliteRunner } from "../src/db/data-migrations";
import { inTransaction } from "../src/db/transaction";
import { formatWallClock, zoneAbbreviation } from "../src/dates/date-input";
import { localizedRows, type LocalizedRow, type RowsSpec } from "../src/i18n/localized-rows";
import type { Language } from "../src/i18n/languages";
import {
  rebuildEventSearch,
  searchDocumentsParams,
  searchDocumentsSql,
} from "../src/resources/events/event-search-sql";
import { EVENT_TEXT } from "../src/resources/events/event-record";
import { ORGANIZER_TEXT } from "../src/resources/organizers/organizer-record";
import { VENUE_TEXT } from "../src/resources/venues/venue-record";
import { slugify } from "../src/text/slug";
import { openCopier } from "./pg-copy";
import type { LanguageSearchText } from "../src/text/search-tokens";

const BATCH = 500;
/** Changes whenever the seeded data would: cached benchmark databases are named after it. */
export const SEED_VERSION = 4;
const ZONES = ["America/New_York", "Europe/Lisbon", "America/Sao_Paulo", "Europe/Madrid", "UTC"];
const ADJECTIVES = [
  "Summer",
  "Winter",
  "Late",
  "Open-air",
  "Acoustic",
  "Grand",
  "Little",
  "Midnight",
  "Sunday",
  "Family",
  "Electric",
  "Candlelight",
  "Community",
  "Jazz",
  "Classical",
  "Indie",
];
const NOUNS = [
  "Concert",
  "Festival",
  "Workshop",
  "Market",
  "Exhibition",
  "Talk",
  "Screening",
  "Tour",
  "Reading",
  "Party",
  "Session",
  "Fair",
  "Recital",
  "Meetup",
  "Showcase",
  "Gala",
];
const THEMES = [
  "in the Park",
  "at the Museum",
  "by the River",
  "for Kids",
  "of Lights",
  "on the Roof",
  "with Friends",
  "under the Stars",
  "at Dawn",
  "in the Garden",
];
const COMMON_WORDS =
  "the and of a to in for with on at by from this our your all join us music art people city evening food local artists guests program stage open free tickets family workshop wine dance night morning garden theatre cinema poetry festival street market craft".split(
    " ",
  );
const SYLLABLES =
  "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge gi go la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po ra re ri ro ru sa se si so ta te ti to va ve vi vo za ze zo an en in on ar er or al el il ol".split(
    " ",
  );
const CITIES = [
  { city: "New York", lat: 40.71, lng: -74.0 },
  { city: "Lisbon", lat: 38.72, lng: -9.14 },
  { city: "São Paulo", lat: -23.55, lng: -46.63 },
  { city: "Madrid", lat: 40.42, lng: -3.7 },
  { city: "Buenos Aires", lat: -34.6, lng: -58.38 },
];

/** mulberry32: a small, fast, seeded PRNG, so that seeds are reproducible. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state |= 0;
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedSizes {
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
}

export function seedSizes(events: number): SeedSizes {
  return {
    events,
    venues: Math.max(20, Math.round(events / 50)),
    organizers: Math.max(10, Math.round(events / 100)),
    categories: 30,
    tags: 100,
  };
}

type TextData<F extends string> = { language: Language } & { [K in F]: string | null } & {
  searchText: string;
  sortKey: string;
};

/** Every language's row of an item written in English and then translated into `translations`. */
function texts<F extends string>(
  spec: RowsSpec<F>,
  english: Partial<Record<F, string | null>>,
  translations: Array<[Language, Partial<Record<F, string | null>>]>,
  shared: string[] = [],
): Array<TextData<F>> {
  const order = { defaultLanguage: "en" as Language, sourceLanguage: "en" };
  let rows: Array<LocalizedRow<F>> = localizedRows(spec, [], "en", english, order, shared);
  for (const [language, change] of translations) {
    rows = localizedRows(
      spec,
      rows.map((row) => ({ language: row.language, ...row.own })),
      language,
      change,
      order,
      shared,
    );
  }
  return rows.map(
    (row) => ({ language: row.language, ...row.own, searchText: row.searchText, sortKey: row.sortKey }) as TextData<F>,
  );
}

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)];
}

/**
 * Descriptions draw from a vocabulary like a real one: a few very common words and a long tail
 * of rarer ones (Zipf's law over a few thousand made-up words), so that the search index holds
 * what real text would make it hold.
 */
const VOCABULARY = (() => {
  const rnd = random(7);
  const words = new Set<string>();
  while (words.size < 5000)
    words.add(Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => pick(rnd, SYLLABLES)).join(""));
  return [...COMMON_WORDS, ...words];
})();
const ZIPF_CUMULATIVE = (() => {
  let sum = 0;
  return VOCABULARY.map((_, rank) => (sum += 1 / (rank + 1)));
})();

function vocabularyWord(rnd: () => number): string {
  const target = rnd() * ZIPF_CUMULATIVE[ZIPF_CUMULATIVE.length - 1];
  let low = 0;
  let high = ZIPF_CUMULATIVE.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ZIPF_CUMULATIVE[middle] < target) low = middle + 1;
    else high = middle;
  }
  return VOCABULARY[low];
}

function sentence(rnd: () => number, words: number): string {
  const chosen = Array.from({ length: words }, () => vocabularyWord(rnd));
  return `${chosen.join(" ")}.`.replace(/^./, (c) => c.toUpperCase());
}

const abbreviations = new Map<string, string>();
function abbreviation(zone: string, at: Date): string {
  const key = `${zone}|${DateTime.fromJSDate(at, { zone }).offset}`;
  let value = abbreviations.get(key);
  if (value === undefined) abbreviations.set(key, (value = zoneAbbreviation(zone, at)));
  return value;
}

async function inBatches<T>(items: T[], write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await write(items.slice(i, i + BATCH));
}

export async function seed(
  db: Database,
  databaseUrl: string,
  eventCount: number,
  now: Date,
  log: (message: string) => void,
): Promise<SeedSizes> {
  const sizes = seedSizes(eventCount);
  const rnd = random(20261121);
  const w = db.write;
  const started = Date.now();

  const authors = [];
  for (const [i, role] of ["administrator", "editor", "author", "author", "contributor"].entries()) {
    authors.push(await w.user.create({ data: { login: `bench-${i}`, displayName: `Bench ${role}`, role } }));
  }
  const authorIds = authors.map((user) => user.id);

  // Categories (a third of them children of the first ten) and tags, some translated.
  const terms: Array<{ id: number; taxonomy: string }> = [];
  for (const [taxonomy, count] of [
    ["category", sizes.categories],
    ["tag", sizes.tags],
  ] as const) {
    for (let i = 0; i < count; i += 1) {
      const name = `${pick(rnd, ADJECTIVES)} ${pick(rnd, NOUNS)} ${taxonomy} ${i + 1}`;
      const parentId = taxonomy === "category" && i >= 20 ? terms[i - 20].id : null;
      const term = await w.term.create({ data: { taxonomy, parentId, sourceLanguage: "en" } });
      const spec: RowsSpec<"name" | "description" | "slug"> = {
        fields: ["name", "description", "slug"],
        nameField: "name",
        searchFields: ["name", "slug"],
      };
      const rows = texts(
        spec,
        { name, description: null, slug: slugify(name) },
        i % 3 === 0 ? [["es", { name: `${name} (es)`, slug: `${slugify(name)}-es` }]] : [],
      );
      await w.termText.createMany({
        data: rows.map((row) => ({ ...row, termId: term.id, taxonomy, slugKey: row.slug ?? slugify(name) })),
      });
      terms.push({ id: term.id, taxonomy });
    }
  }
  const categories = terms.filter((t) => t.taxonomy === "category").map((t) => t.id);
  const tags = terms.filter((t) => t.taxonomy === "tag").map((t) => t.id);

  // Venues around five cities, organizers.
  const venues = Array.from({ length: sizes.venues }, (_, i) => {
    const place = pick(rnd, CITIES);
    return {
      id: i + 1,
      authorId: pick(rnd, authorIds),
      status: rnd() < 0.95 ? "publish" : "draft",
      sourceLanguage: "en",
      slug: `venue-${i + 1}`,
      postDate: new Date(now.getTime() - rnd() * 3 * 365 * 86400_000),
      modifiedAt: now,
      address: `${Math.floor(rnd() * 900) + 1} ${pick(rnd, ["Main", "Oak", "River", "Market"])} Street`,
      city: place.city,
      country: "Somewhere",
      zip: String(10000 + Math.floor(rnd() * 89999)),
      phone: `+1 555 ${String(Math.floor(rnd() * 9999)).padStart(4, "0")}`,
      geoLat: place.lat + (rnd() - 0.5) * 0.4,
      geoLng: place.lng + (rnd() - 0.5) * 0.4,
    };
  });
  await inBatches(venues, (batch) => w.venue.createMany({ data: batch }));
  await inBatches(
    venues.flatMap((venue) =>
      texts(
        VENUE_TEXT,
        { name: `Venue ${venue.id} ${pick(rnd, NOUNS)} Hall`, description: sentence(rnd, 12), slug: venue.slug },
        venue.id % 4 === 0 ? [["es", { name: `Sala ${venue.id}`, slug: `sala-${venue.id}` }]] : [],
        [venue.address, venue.city, venue.zip, venue.phone],
      ).map((row) => ({ ...row, venueId: venue.id })),
    ),
    (batch) => w.venueText.createMany({ data: batch }),
  );
  const organizers = Array.from({ length: sizes.organizers }, (_, i) => ({
    id: i + 1,
    authorId: pick(rnd, authorIds),
    status: "publish",
    sourceLanguage: "en",
    slug: `organizer-${i + 1}`,
    postDate: new Date(now.getTime() - rnd() * 3 * 365 * 86400_000),
    modifiedAt: now,
    email: `organizer${i + 1}@example.org`,
    phone: `+1 555 ${String(i).padStart(4, "0")}`,
  }));
  await inBatches(organizers, (batch) => w.organizer.createMany({ data: batch }));
  await inBatches(
    organizers.flatMap((organizer) =>
      texts(
        ORGANIZER_TEXT,
        { name: `Organizer ${organizer.id} Society`, description: sentence(rnd, 10), slug: organizer.slug },
        [],
        [organizer.email, organizer.phone],
      ).map((row) => ({ ...row, organizerId: organizer.id })),
    ),
    (batch) => w.organizerText.createMany({ data: batch }),
  );
  log(`seeded users, ${terms.length} terms, ${venues.length} venues, ${organizers.length} organizers`);

  // Events, in batches: the event rows, then their text rows and links. On PostgreSQL the term
  // counts are computed once at the end, as the migration that added their trigger does: the
  // trigger would update the same 130 term rows millions of times, each update a new row version
  // (the count is indexed), which the next updates wade through until a vacuum.
  // Likewise the search index takes its documents in bulk (GIN's pending list, which the service
  // turns off for its one-at-a-time writes): inserted one by one, they took most of the seeding.
  // And the events' words are written once at the end, their indexes made after them, as the
  // migration that added them does: kept by the texts' trigger batch by batch, 42 million rows
  // into their B-trees, a million events had done a quarter in 25 minutes (an hour in all now).
  const bulkLoad = db.provider === "postgresql";
  const copier = bulkLoad ? await openCopier(databaseUrl) : null;
  let wordIndexes: string[] = [];
  if (bulkLoad) {
    await w.$executeRawUnsafe(`ALTER TABLE "EventTerm" DISABLE TRIGGER "EventTerm_counts"`);
    await w.$executeRawUnsafe(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = on)`);
    await w.$executeRawUnsafe(`ALTER TABLE "EventText" DISABLE TRIGGER "EventText_search_words_insert"`);
    const indexes = await w.$queryRawUnsafe<Array<{ name: string; definition: string }>>(
      `SELECT indexname::text AS "name", indexdef AS "definition" FROM pg_indexes WHERE tablename = 'EventSearchWord'`,
    );
    for (const { name } of indexes) await w.$executeRawUnsafe(`DROP INDEX "${name}"`);
    wordIndexes = indexes.map(({ definition }) => definition);
  }
  const span = 5 * 365 * 86400_000;
  const from = now.getTime() - span / 2;
  for (let first = 1; first <= eventCount; first += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, eventCount - first + 1) }, (_, i) => first + i);
    const events = [];
    const textRows = [];
    const venueLinks: Array<{ eventId: number; venueId: number; position: number }> = [];
    const organizerLinks: Array<{ eventId: number; organizerId: number; position: number }> = [];
    const termLinks: Array<{ eventId: number; termId: number; position: number }> = [];
    const searchTexts = new Map<number, LanguageSearchText[]>();
    for (const id of ids) {
      const zone = pick(rnd, ZONES);
      const starts = new Date(Math.floor((from + rnd() * span) / 900_000) * 900_000);
      const hours = rnd() < 0.02 ? 24 * (1 + Math.floor(rnd() * 3)) : 1 + Math.floor(rnd() * 4);
      const ends = new Date(starts.getTime() + hours * 3600_000);
      const roll = rnd();
      const status =
        roll < 0.85 ? "publish" : roll < 0.9 ? "draft" : roll < 0.94 ? "pending" : roll < 0.97 ? "private" : "future";
      const title = `${pick(rnd, ADJECTIVES)} ${pick(rnd, NOUNS)} ${pick(rnd, THEMES)}`;
      events.push({
        id,
        authorId: pick(rnd, authorIds),
        status,
        sourceLanguage: "en",
        postDate: new Date(Math.min(starts.getTime(), now.getTime()) - rnd() * 60 * 86400_000),
        modifiedAt: now,
        startLocal: formatWallClock(starts, zone),
        endLocal: formatWallClock(ends, zone),
        startsAt: starts,
        endsAt: ends,
        timezone: zone,
        timezoneAbbr: abbreviation(zone, starts),
        allDay: false,
        cost: rnd() < 0.3 ? "Free" : `$${5 + Math.floor(rnd() * 60)}`,
        featured: rnd() < 0.1,
        ticketed: rnd() < 0.2,
        hideFromListings: rnd() < 0.01,
      });
      const translations: Array<[Language, Partial<Record<"title" | "description" | "excerpt" | "slug", string>>]> = [];
      if (rnd() < 0.3)
        translations.push([
          "es",
          { title: `${title} (es)`, description: sentence(rnd, 20), slug: `${slugify(title)}-es-${id}` },
        ]);
      if (rnd() < 0.2) translations.push(["pt-br", { title: `${title} (pt)` }]);
      for (const row of texts(
        EVENT_TEXT,
        {
          title,
          description: `${sentence(rnd, 25)} ${sentence(rnd, 15)}`,
          excerpt: null,
          slug: `${slugify(title)}-${id}`,
        },
        translations,
      )) {
        textRows.push({ ...row, eventId: id });
        searchTexts.set(id, [...(searchTexts.get(id) ?? []), { language: row.language, searchText: row.searchText }]);
      }
      if (rnd() < 0.9) venueLinks.push({ eventId: id, venueId: 1 + Math.floor(rnd() * venues.length), position: 0 });
      const organizerCount = rnd() < 0.8 ? 1 + Math.floor(rnd() * 2) : 0;
      for (const organizerId of new Set(
        Array.from({ length: organizerCount }, () => 1 + Math.floor(rnd() * organizers.length)),
      )) {
        organizerLinks.push({
          eventId: id,
          organizerId,
          position: organizerLinks.filter((l) => l.eventId === id).length,
        });
      }
      const eventTerms = new Set([
        pick(rnd, categories),
        ...(rnd() < 0.4 ? [pick(rnd, categories)] : []),
        ...Array.from({ length: Math.floor(rnd() * 4) }, () => pick(rnd, tags)),
      ]);
      [...eventTerms].forEach((termId, position) => termLinks.push({ eventId: id, termId, position }));
    }
    if (copier) {
      await copier.copy("Event", events);
      await copier.copy("EventText", textRows);
    } else {
      await w.event.createMany({ data: events });
      await w.eventText.createMany({ data: textRows });
    }
    // SQLite's documents are written at the end, in their keys' order (see rebuildEventSearch).
    if (db.provider === "postgresql") {
      await w.$executeRawUnsafe(
        searchDocumentsSql(db.provider, ids.length),
        ...searchDocumentsParams(ids.map((eventId) => ({ eventId, texts: searchTexts.get(eventId)! }))),
      );
    }
    if (copier) {
      await copier.copy("EventVenue", venueLinks);
      await copier.copy("EventOrganizer", organizerLinks);
      await copier.copy("EventTerm", termLinks);
    } else {
      await w.eventVenue.createMany({ data: venueLinks });
      await w.eventOrganizer.createMany({ data: organizerLinks });
      await w.eventTerm.createMany({ data: termLinks });
    }
    if ((first - 1) % 50_000 === 0 && first > 1)
      log(`seeded ${first - 1} events (${Math.round((Date.now() - started) / 1000)} s)`);
  }

  await copier?.end();
  if (db.provider === "sqlite") {
    // In one transaction of its own connection, so that FTS5 takes the documents in one run.
    const connection = new BetterSqlite3(sqlitePath(databaseUrl), { timeout: 60_000 });
    try {
      connection.exec("BEGIN IMMEDIATE");
      await rebuildEventSearch(sqliteRunner(connection));
      connection.exec("COMMIT");
    } finally {
      connection.close();
    }
    log(`wrote the search documents (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  if (bulkLoad) {
    await w.$executeRawUnsafe(`SELECT 1 FROM "event_search_words"(ARRAY(SELECT "id" FROM "Event"))`);
    for (const definition of wordIndexes) await w.$executeRawUnsafe(definition);
    await w.$executeRawUnsafe(`ALTER TABLE "EventText" ENABLE TRIGGER "EventText_search_words_insert"`);
    log(`wrote the events' words (${Math.round((Date.now() - started) / 1000)} s)`);
    // The VACUUM below moves the pending list into the index.
    await w.$executeRawUnsafe(`ALTER INDEX "EventSearch_tokens_idx" SET (fastupdate = off)`);
    await w.$executeRawUnsafe(`ALTER TABLE "EventTerm" ENABLE TRIGGER "EventTerm_counts"`);
    await w.$executeRawUnsafe(`UPDATE "Term" SET "count" = (
      SELECT COUNT(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId"
      WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish')`);
  }
  // The seeded items' changes, logged by the triggers, take their position (as a write's do as it ends).
  await inTransaction(db, async () => undefined);
  // Id sequences past the explicit ids:
  if (db.provider === "postgresql") {
    for (const table of ["Event", "Venue", "Organizer"]) {
      await w.$executeRawUnsafe(
        `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT MAX(id) FROM "${table}"))`,
      );
    }
    // The small tables every event write updates (day counts, term counts, the longest duration)
    // took a new row version per seeded event: compacted, as after a restore, they are read in a
    // few pages again (the day counts had grown to 14 MB for 12,000 rows, 6 ms per list total).
    await w.$executeRawUnsafe(`VACUUM FULL "EventDayCount", "Term", "EventStat", "SyncChange"`);
    // As autovacuum would in time: statistics, and the visibility map that lets counts read indexes only.
    await w.$executeRawUnsafe("VACUUM ANALYZE");
  } else {
    await w.$executeRawUnsafe("ANALYZE");
  }
  log(`seeded ${eventCount} events in ${Math.round((Date.now() - started) / 1000)} s`);
  return sizes;
}
