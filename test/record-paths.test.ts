// Each resource's record is read two ways: through Prisma (its select, on its own routes) and through
// the raw JSON statement that builds an event's record with its venues, organizers and terms in the
// database (event-repository.ts, typed back by each record's value-type map). The two must give the
// same record, value for value and type for type: a column added to a record's select without its
// value type (a date left as text, a flag as 0/1) fails here. (An occurrence that follows its series
// is read with the series' texts by the raw statement; its Prisma rows hold its slugs alone.)
import { readCommittedEvent } from "../src/resources/events/event-repository";
import { eventSelect } from "../src/resources/events/event-record";
import { organizerSelect } from "../src/resources/organizers/organizer-record";
import { organizerRepository } from "../src/resources/organizers/organizer-repository";
import { termSelect } from "../src/resources/terms/term-record";
import { findTerm } from "../src/resources/terms/term-repository";
import { venueSelect } from "../src/resources/venues/venue-record";
import { venueRepository } from "../src/resources/venues/venue-repository";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

let server: TestServer;
let eventId: number;
beforeAll(async () => {
  server = await startTestServer();
  const venue = await createLinkedVia(server, "venues", {
    venue: "Hall",
    show_map: true,
    geo_lat: 38.7,
    geo_lng: -9.1,
    city: "Lisbon",
  });
  const organizer = await createLinkedVia(server, "organizers", { organizer: "Ana", email: "ana@example.org" });
  const category = await createTermVia(server, "categories", { name: "Music" });
  const tag = await createTermVia(server, "tags", { name: "Free" });
  const created = await server.raw("POST", "/calendar/events/v1/events", {
    headers: ADMIN_HEADERS,
    body: {
      title: "Concert",
      description: "<p>Loud</p>",
      start_date: "2026-12-01 20:00",
      end_date: "2026-12-01 22:00",
      all_day: false,
      featured: true,
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
      recurrence: { rules: [{ type: "weekly", end_type: "count", end_count: 3 }] },
    },
  });
  expect([created.status, created.status === 201 ? "" : created.text]).toEqual([201, ""]);
  eventId = created.body.id;
});
afterAll(async () => {
  await server.close();
});

/** The record with its text lists in one order (the raw statement orders them by language; Prisma does not promise one). */
function sorted<T>(record: T): T {
  return JSON.parse(
    JSON.stringify(record, (_key, value) =>
      Array.isArray(value) && value.every((item) => item && typeof item === "object" && "language" in item)
        ? [...value].sort((a, b) => a.language.localeCompare(b.language))
        : value,
    ),
    (_key, value) =>
      typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) ? new Date(value) : value,
  );
}

/** The value types of a record, key by key (what JSON would blur: a Date and a string, a boolean and a number). */
function typesOf(value: unknown): unknown {
  if (value instanceof Date) return "date";
  if (Array.isArray(value)) return value.map(typesOf);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, typesOf(inner)]));
  return value === null ? "null" : typeof value;
}

describe("records read through Prisma and through the raw path", () => {
  it("give the same event, with its venue, organizer and terms", async () => {
    const raw = await readCommittedEvent(server.db, eventId);
    const prisma = await server.db.read.event.findUnique({ where: { id: eventId }, select: eventSelect });
    expect(raw).not.toBeNull();
    expect(typesOf(raw)).toEqual(typesOf(prisma));
    expect(sorted(raw)).toEqual(sorted(prisma));
  });

  it("give the same venue, organizer, category and tag, embedded and alone, as Prisma's selects", async () => {
    const { db } = server;
    const event = (await readCommittedEvent(db, eventId))!;
    const venue = event.venues[0].venue;
    const organizer = event.organizers[0].organizer;
    const prismaVenue = await db.read.venue.findUnique({ where: { id: venue.id }, select: venueSelect });
    const prismaOrganizer = await db.read.organizer.findUnique({
      where: { id: organizer.id },
      select: organizerSelect,
    });
    for (const raw of [venue, await venueRepository.find(db, venue.id)]) {
      expect(typesOf(raw)).toEqual(typesOf(prismaVenue));
      expect(sorted(raw)).toEqual(sorted(prismaVenue));
    }
    for (const raw of [organizer, await organizerRepository.find(db, organizer.id)]) {
      expect(typesOf(raw)).toEqual(typesOf(prismaOrganizer));
      expect(sorted(raw)).toEqual(sorted(prismaOrganizer));
    }
    for (const { term } of event.terms) {
      const prismaTerm = await db.read.term.findUnique({ where: { id: term.id }, select: termSelect });
      const alone = await findTerm(db, term.taxonomy as "category" | "tag", term.id);
      for (const raw of [term, alone]) expect(sorted(raw)).toEqual(sorted(prismaTerm));
    }
    expect(event.terms).toHaveLength(2);
  });

  it("give the same occurrence of a series (dates of the recurrence, the detached flag)", async () => {
    const occurrences = await server.db.read.event.findMany({ where: { parentId: eventId }, select: { id: true } });
    expect(occurrences.length).toBeGreaterThan(0);
    const raw = await readCommittedEvent(server.db, occurrences[0].id);
    const prisma = (await server.db.read.event.findUnique({ where: { id: occurrences[0].id }, select: eventSelect }))!;
    // It shows its series' texts: its own rows hold its slugs, the rest is the series' rows'.
    expect(prisma.textOwnerId).toBe(eventId);
    const series = await server.db.read.eventText.findMany({ where: { eventId } });
    const shown = {
      ...prisma,
      texts: prisma.texts.map((text) => {
        const { title, description, excerpt } = series.find((row) => row.language === text.language)!;
        return { ...text, title, description, excerpt };
      }),
    };
    expect(typesOf(raw)).toEqual(typesOf(shown));
    expect(sorted(raw)).toEqual(sorted(shown));
  });
});
