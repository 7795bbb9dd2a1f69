// Occurrences that follow their series show the series' texts (issue 60): stored once, so that an
// edit of a series' texts is one write whatever its occurrences and its texts' length; read
// through the item, the lists (ordered by title too), the other languages and the feed; found by
// search on the index's path and the general one, in date order, with exact totals; the past and
// the occurrences edited on their own keep the texts they had.
import { Prisma } from "../generated/prisma/sqlite/client";
import { NOW } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(90_000);

let now = NOW;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: () => now });
});
afterAll(() => server.close());

const root = "/calendar/events/v1";
const DECEMBER = "start_date=2026-12-01&end_date=2026-12-31 23:59";

interface Listed {
  id: number;
  title: string;
  description: string;
  slug: string;
  start_date: string;
  detached: boolean;
}

async function send(method: "POST" | "PATCH", path: string, body: Record<string, unknown>) {
  const response = await server.raw(method, path, { body, headers: ADMIN_HEADERS });
  expect([response.status, response.status < 300 ? "" : response.text]).toEqual([method === "POST" ? 201 : 200, ""]);
  return response.body;
}

async function list(query: string, headers: Record<string, string> = {}, prefix = "") {
  const response = await server.raw("GET", `${prefix}${root}/events?${query}`, { headers });
  expect([response.status, response.status === 200 ? "" : response.text]).toEqual([200, ""]);
  return response.body as { total: number; total_pages: number; events: Listed[] };
}

/** Every event a list finds, page after page of `perPage`, with the total it gave. */
async function everything(query: string, headers: Record<string, string> = {}, perPage = 7) {
  const first = await list(`${query}&per_page=${perPage}`, headers);
  const found = [...first.events];
  for (let page = 2; page <= first.total_pages; page += 1)
    found.push(...(await list(`${query}&per_page=${perPage}&page=${page}`, headers)).events);
  return { total: first.total, found };
}

const ANONYMOUS = {};

/** The occurrences' text rows that hold a copy of a text (a title, a description or a search text). */
async function copiedTextRows(seriesId: number): Promise<number> {
  const [row] = await server.db.direct.rows<{ n: number | bigint }>(
    Prisma.sql`SELECT COUNT(*) AS "n" FROM "EventText" "t" JOIN "Event" "e" ON "e"."id" = "t"."eventId"
      WHERE "e"."parentId" = ${seriesId} AND ("t"."title" IS NOT NULL OR "t"."description" IS NOT NULL OR "t"."searchText" <> '')`,
  );
  return Number(row.n);
}

async function textRowsOf(eventId: number): Promise<number> {
  const [row] = await server.db.direct.rows<{ n: number | bigint }>(
    Prisma.sql`SELECT COUNT(*) AS "n" FROM "EventText" WHERE "eventId" = ${eventId}`,
  );
  return Number(row.n);
}

describe("a daily series' texts", () => {
  let series: { id: number; slug: string };
  let concert: { id: number };
  let occurrences: Listed[];

  beforeAll(async () => {
    series = await send("POST", `${root}/events`, {
      title: "Harbour yoga",
      description: "<p>Stretching by the water, every morning.</p>",
      start_date: "2026-12-01 08:00",
      end_date: "2026-12-01 09:00",
      timezone: "Europe/Lisbon",
      recurrence: { rrule: "FREQ=DAILY;COUNT=20" },
    });
    await send("PATCH", `/es${root}/events/${series.id}`, { title: "Yoga del puerto" });
    concert = await send("POST", `${root}/events`, {
      title: "Harbour concert",
      start_date: "2026-12-05 20:00",
      end_date: "2026-12-05 22:00",
      timezone: "Europe/Lisbon",
    });
    await send("POST", `${root}/events`, {
      title: "Art walk by the harbour",
      start_date: "2026-12-06 10:00",
      end_date: "2026-12-06 12:00",
      timezone: "Europe/Lisbon",
    });
    occurrences = (await list(`post_parent=${series.id}&${DECEMBER}&per_page=50`)).events;
  });

  it("are stored once: the occurrences hold their slugs alone, and show the series' texts everywhere", async () => {
    expect(occurrences).toHaveLength(19);
    expect(await copiedTextRows(series.id)).toBe(0);
    if (server.db.provider === "postgresql") {
      const [words] = await server.db.direct.rows<{ n: number | bigint }>(
        Prisma.sql`SELECT COUNT(*) AS "n" FROM "EventSearchWord" "w" JOIN "Event" "e" ON "e"."id" = "w"."eventId" WHERE "e"."parentId" = ${series.id}`,
      );
      expect(Number(words.n)).toBe(0);
    }
    const third = occurrences[2];
    expect(third).toMatchObject({ title: "Harbour yoga", slug: "harbour-yoga-2026-12-04" });
    const item = (await server.raw("GET", `${root}/events/${third.id}`)).body;
    expect(item).toMatchObject({
      title: "Harbour yoga",
      description: "<p>Stretching by the water, every morning.</p>",
    });
    expect((await server.raw("GET", `${root}/events/by-slug/harbour-yoga-2026-12-04`)).body.id).toBe(third.id);
    // The language the series was given after its occurrences were made (the slug stays the first one's).
    const spanish = (await server.raw("GET", `/es${root}/events/${third.id}`)).body;
    expect(spanish).toMatchObject({ title: "Yoga del puerto", slug: "harbour-yoga-2026-12-04" });
    const spanishList = await list(`post_parent=${series.id}&${DECEMBER}&per_page=50`, ANONYMOUS, "/es");
    expect(new Set(spanishList.events.map((event) => event.title))).toEqual(new Set(["Yoga del puerto"]));
    // Ordered by title with the other events: the occurrences sort by the series' title.
    const byTitle = await list(`${DECEMBER}&orderby=title&order=asc&per_page=50`);
    expect(byTitle.events.map((event) => event.title)).toEqual([
      "Art walk by the harbour",
      "Harbour concert",
      ...Array(20).fill("Harbour yoga"),
    ]);
    // The feed writes the series once, with its title.
    const feed = await server.raw("GET", `${root}/events?ical=1&${DECEMBER}`);
    expect(feed.text.match(/^SUMMARY:Harbour yoga\r?$/gm)).toHaveLength(1);
    expect(feed.text).toMatch(/^RRULE:FREQ=DAILY;COUNT=20\r?$/m);
  });

  it("are found by search, every occurrence once, in date order, with exact totals", async () => {
    const dates = (events: Listed[]) => events.map((event) => event.start_date);
    const expected = [
      ...["01", "02", "03", "04", "05"].map((day) => `2026-12-${day} 08:00:00`),
      "2026-12-05 20:00:00",
      "2026-12-06 08:00:00",
      "2026-12-06 10:00:00",
    ];
    // Anonymous: the index's own path; a filter more, or signed in: the general one.
    for (const [query, headers] of [
      [`search=harbour&${DECEMBER}`, ANONYMOUS],
      [`search=harbour&${DECEMBER}&featured=false`, ANONYMOUS],
      [`search=harbour&${DECEMBER}`, ADMIN_HEADERS],
    ] as const) {
      const { total, found } = await everything(query, headers);
      expect(total).toBe(22);
      expect(new Set(found.map((event) => event.id)).size).toBe(22);
      expect(dates(found).slice(0, 8)).toEqual(expected);
      expect(dates(found)).toEqual([...dates(found)].sort());
    }
    // Two words, in another language, and a window that cuts the series.
    const twoWords = await everything(`search=harbour yoga&start_date=2026-12-10&end_date=2026-12-12 23:59`, {});
    expect(twoWords.total).toBe(3);
    expect(dates(twoWords.found)).toEqual(["2026-12-10 08:00:00", "2026-12-11 08:00:00", "2026-12-12 08:00:00"]);
    const spanish = await list(`search=puerto&${DECEMBER}&per_page=50`, ANONYMOUS, "/es");
    expect(spanish.total).toBe(20);
    expect((await list(`search=concert&${DECEMBER}`)).events.map((event) => event.id)).toEqual([concert.id]);
    // Descending, the last ones first.
    const last = await list(`search=yoga&${DECEMBER}&order=desc&per_page=2`);
    expect(dates(last.events)).toEqual(["2026-12-20 08:00:00", "2026-12-19 08:00:00"]);
  });

  it("change for the occurrences to come with one edit of the series; the past keeps what it had", async () => {
    // From here on, the 10th of December at noon.
    now = new Date("2026-12-10T12:00:00Z");
    await send("PATCH", `${root}/events/${series.id}`, { title: "Harbour pilates" });
    const after = (await list(`post_parent=${series.id}&${DECEMBER}&per_page=50`)).events;
    const title = (day: string) => after.find((event) => event.start_date.startsWith(day))!.title;
    expect([title("2026-12-09"), title("2026-12-10"), title("2026-12-11")]).toEqual([
      "Harbour yoga",
      "Harbour yoga",
      "Harbour pilates",
    ]);
    // The past (the 2nd to the 10th, begun) took a copy of what it showed, in each of its languages; the rest hold none.
    expect(await copiedTextRows(series.id)).toBe(9 * (await textRowsOf(series.id)));
    // The series itself (the 1st) is what was edited.
    for (const headers of [ANONYMOUS, ADMIN_HEADERS]) {
      expect((await list(`search=yoga&${DECEMBER}`, headers)).total).toBe(9);
      expect((await list(`search=pilates&${DECEMBER}`, headers)).total).toBe(1 + 10);
      expect((await list(`search=yoga&${DECEMBER}&featured=false`, headers)).total).toBe(9);
    }
  });

  it("stay as they were for an occurrence edited on its own", async () => {
    const fifteenth = occurrences.find((event) => event.start_date.startsWith("2026-12-15"))!;
    const edited = await send("PATCH", `${root}/events/${fifteenth.id}`, { cost: "5 EUR" });
    expect(edited).toMatchObject({ detached: true, title: "Harbour pilates", slug: "harbour-yoga-2026-12-15" });
    await send("PATCH", `${root}/events/${series.id}`, { title: "Harbour tai chi" });
    const sixteenth = occurrences.find((event) => event.start_date.startsWith("2026-12-16"))!;
    expect((await server.raw("GET", `${root}/events/${fifteenth.id}`)).body.title).toBe("Harbour pilates");
    expect((await server.raw("GET", `${root}/events/${sixteenth.id}`)).body.title).toBe("Harbour tai chi");
    for (const headers of [ANONYMOUS, ADMIN_HEADERS]) {
      expect((await list(`search=pilates&${DECEMBER}`, headers)).events.map((event) => event.id)).toEqual([
        fifteenth.id,
      ]);
      // The series, and the 11th to the 20th but the 15th.
      expect((await list(`search=tai chi&${DECEMBER}&per_page=50`, headers)).total).toBe(1 + 9);
    }
  });

  it("leave the occurrences' links and fields to an edit that changes them, each on its own", async () => {
    const venue = await send("POST", `${root}/venues`, { venue: "Harbour steps" });
    await send("PATCH", `${root}/events/${series.id}`, { venue: venue.id });
    await send("PATCH", `${root}/events/${series.id}`, { cost: "3 EUR" });
    await send("PATCH", `${root}/events/${series.id}`, { excerpt: "Bring a mat." });
    const eighteenth = occurrences.find((event) => event.start_date.startsWith("2026-12-18"))!;
    const read = (await server.raw("GET", `${root}/events/${eighteenth.id}`)).body;
    expect(read).toMatchObject({ cost: "3 EUR", venue: { venue: "Harbour steps" }, excerpt: "<p>Bring a mat.</p>" });
    const past = occurrences.find((event) => event.start_date.startsWith("2026-12-08"))!;
    expect((await server.raw("GET", `${root}/events/${past.id}`)).body).toMatchObject({ cost: "", venue: [] });
  });

  it("are shared again by occurrences that held copies (an earlier version's) at the series' next edit", async () => {
    const following = (await list(`post_parent=${series.id}&${DECEMBER}&per_page=50`)).events.filter(
      (event) => !event.detached && event.start_date > "2026-12-11",
    );
    expect(following).toHaveLength(9);
    const ids = following.map((event) => event.id);
    // As an earlier version stored them: every occurrence with a copy of the series' texts.
    await server.db.write.$executeRaw(
      Prisma.sql`UPDATE "Event" SET "textOwnerId" = NULL WHERE "id" IN (${Prisma.join(ids)})`,
    );
    await server.db.write.$executeRaw(
      Prisma.sql`UPDATE "EventText" SET "title" = 'Harbour tai chi', "searchText" = 'harbour tai chi', "sortKey" = 'harbour tai chi'
        WHERE "eventId" IN (${Prisma.join(ids)}) AND "language" = 'en'`,
    );
    await send("PATCH", `${root}/events/${series.id}`, { title: "Harbour qigong" });
    // The past's copies and the 15th's remain.
    expect(await copiedTextRows(series.id)).toBe(10 * (await textRowsOf(series.id)));
    const found = await everything(`search=qigong&${DECEMBER}`);
    expect(found.total).toBe(1 + following.length);
    expect(new Set(found.found.map((event) => event.title))).toEqual(new Set(["Harbour qigong"]));
  });
});
