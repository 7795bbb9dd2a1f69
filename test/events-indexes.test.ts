// What makes event lists fast must not change their answers: totals counted from the day counts
// (kept by triggers) against the events actually listed, after all kinds of writes; and the
// search index (maintained with the texts, rebuilt by migration and command) against the exact
// substring rules of search.
import { Prisma } from "../generated/prisma/sqlite/client";
import { prismaRunner } from "../src/db/data-migrations";
import { migrate } from "../src/db/migrate";
import { reindexStaleSearchDocuments } from "../src/resources/events/event-repository";
import { rebuildEventSearch } from "../src/resources/events/event-search-sql";
import { createEventVia, fixedClock, ids, NOW, type EventCreateBody, type EventJson } from "./support/events";
import { writeEarlierSearchDocument } from "./support/search-documents";
import { testDatabaseProvider } from "./support/test-database";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());
afterEach(async () => {
  await server.db.write.event.deleteMany({});
});

const HOUR = 3_600_000;
const wall = (at: number) => new Date(at).toISOString().slice(0, 19).replace("T", " ");

/** mulberry32, so that the random cases are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function list(query: string, headers: Record<string, string> = {}) {
  const response = await server.raw("GET", `/calendar/events/v1/events${query}`, { headers });
  expect(response.status).toBe(200);
  return response.body as { total: number; total_pages: number; events: EventJson[] };
}

/** Every event a list query lists, page after page, and the total it reported. */
async function everything(
  query: string,
  headers: Record<string, string> = {},
  perPage = 50,
): Promise<{ total: number; listed: number[] }> {
  const first = await list(`${query}&per_page=${perPage}`, headers);
  const listed = ids(first.events);
  for (let page = 2; page <= first.total_pages; page += 1)
    listed.push(...ids((await list(`${query}&per_page=${perPage}&page=${page}`, headers)).events));
  return { total: first.total, listed };
}

describe("list totals from the day counts, and searches", () => {
  interface Shape {
    start: number;
    end: number;
    status: NonNullable<EventCreateBody["status"]>;
    hidden: boolean;
    /** Whether its title has the word the searches look for. */
    lantern?: boolean;
  }

  async function create(shape: Shape): Promise<EventJson> {
    return createEventVia(server, {
      title: shape.lantern ? "Counted lanterns" : "Counted",
      start_date: wall(shape.start),
      end_date: wall(shape.end),
      status: shape.status,
      hide_from_listings: shape.hidden,
    });
  }

  function expected(
    shapes: Map<number, Shape>,
    from: number,
    until: number,
    statuses: string[],
    lantern = false,
  ): number[] {
    return [...shapes]
      .filter(([, s]) => !s.hidden && statuses.includes(s.status) && s.start >= from && s.end <= until)
      .filter(([, s]) => !lantern || s.lantern)
      .sort(([a, x], [b, y]) => x.start - y.start || a - b)
      .map(([id]) => id);
  }

  async function check(shapes: Map<number, Shape>, rnd: () => number): Promise<void> {
    const day0 = Date.UTC(2026, 10, 21);
    for (let i = 0; i < 8; i += 1) {
      const from = day0 + Math.floor(rnd() * 20 * 24) * HOUR + Math.floor(rnd() * 60) * 60_000;
      const until = from + Math.floor((2 + rnd() * 25) * 24) * HOUR;
      const query = `?start_date=${encodeURIComponent(wall(from))}&end_date=${encodeURIComponent(wall(until))}&strict_dates=true`;
      const anonymous = await everything(query);
      expect(anonymous.listed).toEqual(expected(shapes, from, until, ["publish"]));
      expect(anonymous.total).toBe(anonymous.listed.length);
      const editor = await everything(query, ADMIN_HEADERS);
      expect(editor.listed).toEqual(
        expected(shapes, from, until, ["publish", "draft", "pending", "private", "future"]),
      );
      expect(editor.total).toBe(editor.listed.length);
      // Searches: everyone's (answered by the index's keys on SQLite) and an editor's, a few per page
      // so that pages end inside a minute; both orders.
      const search = `${query}&search=lantern`;
      const found = expected(shapes, from, until, ["publish"], true);
      for (const [order, want] of [
        ["asc", found],
        ["desc", [...found].reverse()],
      ] as const) {
        expect(await everything(`${search}&order=${order}`, {}, 3)).toEqual({ total: want.length, listed: want });
      }
      const edited = await everything(search, ADMIN_HEADERS, 4);
      expect(edited.listed).toEqual(
        expected(shapes, from, until, ["publish", "draft", "pending", "private", "future"], true),
      );
      expect(edited.total).toBe(edited.listed.length);
    }
    // The default window (from yesterday, two years on), whole days.
    const defaults = await everything("?page=1");
    expect(defaults.total).toBe(defaults.listed.length);
    expect(defaults.listed).toEqual(
      expected(shapes, Date.UTC(2026, 10, 20), Date.UTC(2028, 10, 21, 23, 59, 59), ["publish"]),
    );
    const searched = expected(shapes, Date.UTC(2026, 10, 20), Date.UTC(2028, 10, 21, 23, 59, 59), ["publish"], true);
    expect(await everything("?search=lantern", {}, 5)).toEqual({ total: searched.length, listed: searched });
  }

  it("match the events listed and searched, through creates, moves, status changes, hiding, trashing and deletes", async () => {
    const rnd = random(42);
    const shapes = new Map<number, Shape>();
    const statuses: Array<Shape["status"]> = ["publish", "publish", "publish", "draft", "pending", "private"];
    const randomShape = (): Shape => {
      // Quarters of an hour, some to the second: a minute's events are ordered by second, then id.
      const start =
        Date.UTC(2026, 10, 18) +
        Math.floor(rnd() * 40 * 24 * 4) * (HOUR / 4) +
        (rnd() < 0.3 ? Math.floor(rnd() * 60) * 1000 : 0);
      // Mostly short; some days long, one very long (it widens the stretch the count re-checks).
      const hours = rnd() < 0.15 ? 24 * (1 + Math.floor(rnd() * 6)) : 1 + Math.floor(rnd() * 5);
      return {
        start,
        end: start + hours * HOUR,
        status: statuses[Math.floor(rnd() * statuses.length)],
        hidden: rnd() < 0.1,
        lantern: rnd() < 0.6,
      };
    };
    for (let i = 0; i < 45; i += 1) {
      const shape = randomShape();
      shapes.set((await create(shape)).id, shape);
    }
    const long: Shape = {
      start: Date.UTC(2026, 10, 25, 9),
      end: Date.UTC(2027, 0, 10, 9),
      status: "publish",
      hidden: false,
    };
    shapes.set((await create(long)).id, long);
    await check(shapes, rnd);

    const admin = (method: "PATCH" | "DELETE", id: number, body?: unknown, query = "") =>
      server.raw(method, `/calendar/events/v1/events/${id}${query}`, { body, headers: ADMIN_HEADERS });
    for (const [id, shape] of [...shapes].slice(0, 30)) {
      const roll = rnd();
      if (roll < 0.3) {
        const moved = randomShape();
        expect((await admin("PATCH", id, { start_date: wall(moved.start), end_date: wall(moved.end) })).status).toBe(
          200,
        );
        Object.assign(shape, { start: moved.start, end: moved.end });
      } else if (roll < 0.5) {
        const status = shape.status === "publish" ? "draft" : "publish";
        expect((await admin("PATCH", id, { status })).status).toBe(200);
        shape.status = status;
      } else if (roll < 0.65) {
        expect((await admin("PATCH", id, { hide_from_listings: !shape.hidden })).status).toBe(200);
        shape.hidden = !shape.hidden;
      } else if (roll < 0.8) {
        expect((await admin("DELETE", id)).status).toBe(200);
        shape.status = "trash";
      } else {
        // Deleting for good takes a trashed event (force is ignored on a live one).
        if (shape.status !== "trash") expect((await admin("DELETE", id)).status).toBe(200);
        expect((await admin("DELETE", id, undefined, "?force=true")).status).toBe(200);
        shapes.delete(id);
      }
    }
    await check(shapes, rnd);
  });

  it("count events that start on the window's first or last day, or exactly on its bounds", async () => {
    const from = Date.UTC(2026, 11, 1, 10);
    const until = Date.UTC(2026, 11, 9, 18);
    const cases: Array<[Shape, boolean]> = [
      [{ start: from, end: from + HOUR, status: "publish", hidden: false }, true],
      [{ start: from - 60_000, end: from + HOUR, status: "publish", hidden: false }, false],
      [{ start: from + 5 * HOUR, end: from + 6 * HOUR, status: "publish", hidden: false }, true],
      [{ start: until - HOUR, end: until, status: "publish", hidden: false }, true],
      [{ start: until - HOUR, end: until + 60_000, status: "publish", hidden: false }, false],
      [{ start: Date.UTC(2026, 11, 9, 1), end: Date.UTC(2026, 11, 9, 2), status: "publish", hidden: false }, true],
      [{ start: Date.UTC(2026, 11, 5), end: Date.UTC(2026, 11, 12), status: "publish", hidden: false }, false],
      [{ start: Date.UTC(2026, 11, 5), end: Date.UTC(2026, 11, 6), status: "publish", hidden: true }, false],
    ];
    const included: number[] = [];
    for (const [shape, inside] of cases) {
      const event = await create(shape);
      if (inside) included.push(event.id);
    }
    const query = `?start_date=${encodeURIComponent(wall(from))}&end_date=${encodeURIComponent(wall(until))}&strict_dates=true`;
    const result = await everything(query);
    expect(result.listed.sort((a, b) => a - b)).toEqual(included);
    expect(result.total).toBe(included.length);
  });
});

describe("the search index", () => {
  const search = async (words: string, language = "en") =>
    ids((await list(`?search=${encodeURIComponent(words)}&i18n_language=${language}`)).events);
  // What reads the documents: on PostgreSQL an editor's search (the general way; an anonymous
  // one reads the events' words instead, see publicSearchSql), on SQLite anyone's.
  const documentSearch = async (words: string) =>
    ids(
      (await list(`?search=${encodeURIComponent(words)}`, server.db.provider === "postgresql" ? ADMIN_HEADERS : {}))
        .events,
    );
  const event = (title: string, fields: Record<string, unknown> = {}) =>
    createEventVia(server, {
      title,
      start_date: wall(NOW.getTime() + 48 * HOUR),
      end_date: wall(NOW.getTime() + 50 * HOUR),
      ...fields,
    });

  it("finds any part of a word, every word, short and long words, exactly as a substring search", async () => {
    const candle = await event("Candlelight Recital", {
      description: "<p>Music by <em>candles</em>, café included.</p>",
    });
    const long = await event("Supercalifragilisticexpialidocious night");
    const almost = await event("Supercalifragilistic-different night");
    const dj = await event("DJ set at 100% volume");
    expect(await search("ndlelig")).toEqual([candle.id]);
    expect(await search("recital candle")).toEqual([candle.id]);
    expect(await search("recital nothing")).toEqual([]);
    expect(await search("CAFÉ")).toEqual([candle.id]);
    expect(await search("supercalifragilistic")).toEqual([long.id, almost.id]);
    // Longer than the index keeps of a word: the index finds both, the text check keeps one.
    expect(await search("supercalifragilisticexpiali")).toEqual([long.id]);
    expect(await search("dj")).toEqual([dj.id]);
    expect(await search("100%")).toEqual([dj.id]);
    expect(await search("night")).toEqual([long.id, almost.id]);
    // The page and the total come from one statement; a later page has the same total.
    expect(await list("?search=night&per_page=1&page=2")).toMatchObject({
      total: 2,
      total_pages: 2,
      events: [{ id: almost.id }],
    });
    // Not across words: the index holds words, and so does the text check.
    expect(await search("recitalcandle")).toEqual([]);
  });

  it("follows writes: new titles, translations in their language only, deletes", async () => {
    const concert = await event("Harbour concert");
    expect(await search("harbour")).toEqual([concert.id]);
    await server.raw("PATCH", `/calendar/events/v1/events/${concert.id}`, {
      body: { title: "Riverside concert" },
      headers: ADMIN_HEADERS,
    });
    expect(await search("harbour")).toEqual([]);
    expect(await search("riverside")).toEqual([concert.id]);
    await server.raw("PATCH", `/es/calendar/events/v1/events/${concert.id}`, {
      body: { title: "Concierto ribereño" },
      headers: ADMIN_HEADERS,
    });
    expect(await search("ribereno", "es")).toEqual([concert.id]);
    expect(await search("ribereno", "en")).toEqual([]);
    expect(await search("riverside", "es")).toEqual([]);
    expect(await search("riverside", "pt-br")).toEqual([concert.id]);
    for (const query of ["", "?force=true"])
      await server.raw("DELETE", `/calendar/events/v1/events/${concert.id}${query}`, { headers: ADMIN_HEADERS });
    const [documents] = await server.db.read.$queryRawUnsafe<Array<{ n: number | bigint }>>(
      `SELECT COUNT(*) AS "n" FROM "EventSearch"`,
    );
    expect(Number(documents.n)).toBe(0);
  });

  it("is rebuilt from the texts by the migration that creates it, and on demand", async () => {
    const first = await event("Lantern parade");
    const second = await event("Lantern workshop");
    await server.db.write.$executeRawUnsafe(`DELETE FROM "EventSearch"`);
    // What an earlier version wrote is replaced, on SQLite taken out from under its earlier key.
    await writeEarlierSearchDocument(server.db, first.id, ["lantern", "parade"]);
    expect(await documentSearch("lantern")).toEqual([]);
    expect(await rebuildEventSearch(prismaRunner(server.db))).toBe(2);
    expect(await documentSearch("lantern")).toEqual([first.id, second.id]);
    const [documents] = await server.db.read.$queryRawUnsafe<Array<{ n: number | bigint }>>(
      `SELECT COUNT(*) AS "n" FROM "EventSearch"`,
    );
    expect(Number(documents.n)).toBe(2);
    if (server.db.provider === "postgresql") {
      // PostgreSQL's words, which a public search reads, are written again too.
      await server.db.write.$executeRawUnsafe(`DELETE FROM "EventSearchWord"`);
      expect(await search("lantern")).toEqual([]);
      await rebuildEventSearch(prismaRunner(server.db));
      expect(await search("lantern")).toEqual([first.id, second.id]);
    }

    // An existing database that gets the index's last migration: its events are indexed by it.
    const last =
      server.db.provider === "postgresql"
        ? "20261126010000_event_search_by_language"
        : "20261126100000_event_search_by_start";
    const drops =
      server.db.provider === "postgresql"
        ? [`DELETE FROM "EventSearch"`]
        : [
            `DROP TRIGGER "Event_search_move"`,
            `DROP TABLE "EventSearchVocab"`,
            `DROP TABLE "EventSearchMoved"`,
            `DELETE FROM "EventSearch"`,
          ];
    for (const sql of [...drops, `DELETE FROM "_prisma_migrations" WHERE "migration_name" = '${last}'`]) {
      await server.db.write.$executeRawUnsafe(sql);
    }
    expect((await migrate(server.config.databaseUrl)).applied).toEqual([last]);
    expect(await documentSearch("lantern")).toEqual([first.id, second.id]);
    expect(await documentSearch("workshop")).toEqual([second.id]);
    if (server.db.provider === "postgresql") {
      // Rebuilt through GIN's pending list, which is then emptied and turned off again, as the service's writes want it.
      const [index] = await server.db.direct.rows<{ options: string[] }>(
        Prisma.sql`SELECT "reloptions" AS "options" FROM "pg_class" WHERE "relname" = 'EventSearch_tokens_idx'`,
      );
      expect(index.options).toEqual(["fastupdate=off"]);
    }
  });

  it("writes again, once, the documents an earlier version wrote beside this one", async () => {
    const lantern = await event("Lantern festival");
    await writeEarlierSearchDocument(server.db, lantern.id, ["lantern", "festival"]);
    expect(await documentSearch("lantern")).toEqual([]);
    expect(await reindexStaleSearchDocuments(server.db)).toBe(1);
    expect(await documentSearch("lantern")).toEqual([lantern.id]);
    expect(await documentSearch("tival")).toEqual([lantern.id]);
    expect(await reindexStaleSearchDocuments(server.db)).toBe(0);
    if (server.db.provider === "sqlite") {
      const [documents] = await server.db.read.$queryRawUnsafe<Array<{ n: number | bigint }>>(
        `SELECT COUNT(*) AS "n" FROM "EventSearch"`,
      );
      expect(Number(documents.n)).toBe(1);
    }
  });

  it("follows an event moved outside the service's transactions at the next background pass", async () => {
    const walk = await event("Lantern walk");
    const later = NOW.getTime() + 240 * HOUR;
    await server.db.write.event.update({
      where: { id: walk.id },
      data: { startsAt: new Date(later), endsAt: new Date(later + HOUR) },
    });
    // PostgreSQL's document follows its event at once (a trigger); SQLite's is written again by the service.
    expect(await search("lantern")).toEqual(server.db.provider === "postgresql" ? [walk.id] : []);
    expect(await reindexStaleSearchDocuments(server.db)).toBe(server.db.provider === "postgresql" ? 0 : 1);
    expect(await search("lantern")).toEqual([walk.id]);
    expect((await list(`?search=lantern&start_date=${encodeURIComponent(wall(later))}`)).total).toBe(1);
  });

  it("finds for anyone what the general way finds among published events, however the words are written", async () => {
    const made = [
      await event("Candlelight Recital", { description: "<p>Music by <em>candles</em>, café included.</p>" }),
      await event("Jazz & Blues: late set", { description: "Doors at 9 p.m. (free entry) — https://example.org/jazz" }),
      await event("Festival of lights", { description: "A festival. Festivals, festivities; lights!" }),
      await event("Noite de fado", { description: "Fado ao vivo, às 21h" }),
    ];
    await server.raw("PATCH", `/es/calendar/events/v1/events/${made[3].id}`, {
      body: { title: "Noche de fado", description: "Fado en vivo" },
      headers: ADMIN_HEADERS,
    });
    const queries = [
      "fest",
      "festival",
      "festivals",
      "ival",
      "lights",
      "l",
      "café",
      "cafe",
      "jazz blues",
      "(free",
      "9",
      "p.m.",
      "example.org/jazz",
      "fado",
      "noche",
      "vivo",
      "candle recital",
      "zz",
      "&",
      "—",
    ];
    for (const language of ["en", "es", "pt-br"])
      for (const words of queries) {
        const general = ids(
          (await list(`?search=${encodeURIComponent(words)}&i18n_language=${language}`, ADMIN_HEADERS)).events,
        );
        expect([language, words, await search(words, language)]).toEqual([language, words, general]);
      }
  });

  it("ranks by relevance when asked: the whole search in the title, then every word, one word, the rest", async () => {
    const at = (hours: number) => ({
      start_date: wall(NOW.getTime() + hours * HOUR),
      end_date: wall(NOW.getTime() + (hours + 1) * HOUR),
    });
    const phraseFirst = await event("Jazz night under the stars", at(60));
    const phraseSecond = await event("Late JAZZ Night", at(70));
    const everyWord = await event("Night of jazz", at(50));
    const oneWord = await event("Jazz brunch", { ...at(40), description: "Until night falls" });
    const text = await event("Sunday brunch", { ...at(30), description: "Jazz all night" });
    await event("Jazz nightly", { ...at(20), status: "draft" });
    const ranked = async (query: string) =>
      ids((await list(`?search=${encodeURIComponent("jazz night")}&orderby=relevance${query}`)).events);
    // Within a group, by start date, in the direction asked; the groups stay in their order.
    expect(await ranked("")).toEqual([phraseFirst.id, phraseSecond.id, everyWord.id, oneWord.id, text.id]);
    expect(await ranked("&order=desc")).toEqual([phraseSecond.id, phraseFirst.id, everyWord.id, oneWord.id, text.id]);
    // The titles of the request language, the default language's where an event has none.
    await server.raw("PATCH", `/es/calendar/events/v1/events/${text.id}`, {
      body: { title: "Jazz night en domingo", description: "Jazz toda la noche" },
      headers: ADMIN_HEADERS,
    });
    expect((await ranked("&i18n_language=es")).slice(0, 3)).toEqual([text.id, phraseFirst.id, phraseSecond.id]);
    const unranked = await server.raw("GET", "/calendar/events/v1/events?orderby=relevance");
    expect([unranked.status, unranked.body.code, Object.keys(unranked.body.data.params)]).toEqual([
      400,
      "rest_invalid_param",
      ["search"],
    ]);
  });

  it("looks for every word in the asked language's text, the index answering alone", async () => {
    const harbour = await event("Harbour concert");
    await server.raw("PATCH", `/es/calendar/events/v1/events/${harbour.id}`, {
      body: { title: "Concierto del puerto" },
      headers: ADMIN_HEADERS,
    });
    expect(await search("harbour concert")).toEqual([harbour.id]);
    expect(await search("concierto puerto", "es")).toEqual([harbour.id]);
    // Part of a word is found; a word is not reduced to its stem.
    expect(await search("conc")).toEqual([harbour.id]);
    expect(await search("concerts")).toEqual([]);
    // One word of each language's text: neither text has both.
    expect(await search("harbour concierto")).toEqual([]);
    expect(await search("harbour concierto", "es")).toEqual([]);
    expect(await search("puerto", "en")).toEqual([]);
  });

  // PostgreSQL compiled a broad search's plan on every execution (25 to 180 ms of 110).
  (testDatabaseProvider() === "postgresql" ? it : it.skip)(
    "runs on PostgreSQL connections without JIT, with room for a large search's bitmap",
    async () => {
      const [setting] = await server.db.direct.rows<{ jit: string }>(Prisma.sql`SHOW jit`);
      expect(setting.jit).toBe("off");
      const [memory] = await server.db.direct.rows<{ work_mem: string }>(Prisma.sql`SHOW work_mem`);
      expect(memory.work_mem).toBe("32MB");
    },
  );

  it("pages in date order to the second, within one minute too, and leaves out what everyone may not find", async () => {
    const minute = NOW.getTime() + 48 * HOUR;
    const made: Array<{ id: number; second: number }> = [];
    // Made in an order that is not the seconds': within a minute, the index orders its documents by id.
    for (const second of [50, 10, 30, 0, 40, 10]) {
      const { id } = await event("Lantern walk", {
        start_date: wall(minute + second * 1000),
        end_date: wall(minute + HOUR),
        // "lan" is then in two words of these events' texts.
        ...(second === 10 ? { description: "Bring a blanket" } : {}),
      });
      made.push({ id, second });
    }
    const inOrder = made.sort((a, b) => a.second - b.second || a.id - b.id).map(({ id }) => id);
    const locked = await event("Lantern walk", {
      start_date: wall(minute + 20_000),
      end_date: wall(minute + HOUR),
      password: "glow",
    });
    const draft = await event("Lantern walk", { start_date: wall(minute + 5_000), status: "draft" });
    // One search word, found in one word of the texts or in two; two search words, each found in
    // one word; two, one of them found in two words.
    for (const words of ["lantern", "lan", "lantern walk", "lan walk"])
      for (const perPage of [1, 2, 4]) {
        expect(await everything(`?search=${encodeURIComponent(words)}`, {}, perPage)).toEqual({
          total: 6,
          listed: inOrder,
        });
        expect(await everything(`?search=${encodeURIComponent(words)}&order=desc`, {}, perPage)).toEqual({
          total: 6,
          listed: [...inOrder].reverse(),
        });
      }
    const pastTheLast = await server.raw("GET", "/calendar/events/v1/events?search=lantern&per_page=4&page=3");
    expect([pastTheLast.status, (pastTheLast.body as { code: string }).code]).toEqual([
      404,
      "event-archive-page-not-found",
    ]);
    // The password opens its event to the search; an editor finds the draft too.
    expect(ids((await list("?search=lantern&password=glow")).events)).toContain(locked.id);
    expect(ids((await list("?search=lantern", ADMIN_HEADERS)).events)).toEqual(
      expect.arrayContaining([locked.id, draft.id, ...inOrder]),
    );
    // Published, moved, hidden: the index follows.
    const admin = (id: number, body: unknown) =>
      server.raw("PATCH", `/calendar/events/v1/events/${id}`, { body, headers: ADMIN_HEADERS });
    expect((await admin(draft.id, { status: "publish" })).status).toBe(200);
    expect(ids((await list("?search=lantern")).events)[1]).toBe(draft.id);
    expect((await admin(draft.id, { start_date: wall(minute + 55_000), end_date: wall(minute + HOUR) })).status).toBe(
      200,
    );
    expect(ids((await list("?search=lantern")).events).at(-1)).toBe(draft.id);
    expect((await admin(draft.id, { hide_from_listings: true })).status).toBe(200);
    expect(await everything("?search=lantern", {}, 4)).toEqual({ total: 6, listed: inOrder });
  });

  it("finds a word whose prefix begins more of the index's terms than are looked up one by one", async () => {
    // Each word of the description gives the index terms that begin with "qq".
    const many = await event("Glossary", {
      description: Array.from({ length: 80 }, (_, i) => `qq${i.toString(36)}x`).join(" "),
    });
    const one = await event("Word qqz");
    expect(await search("qq")).toEqual([many.id, one.id]);
    expect(await search("qq1")).toEqual([many.id]);
    expect((await list("?search=qq&per_page=1&page=2")).total).toBe(2);
  });

  it("keeps the list's order unless relevance is asked", async () => {
    const later = await event("Opera opera opera", {
      start_date: wall(NOW.getTime() + 96 * HOUR),
      end_date: wall(NOW.getTime() + 97 * HOUR),
    });
    const sooner = await event("Garden party", { description: "Arias from an opera" });
    expect(await search("opera")).toEqual([sooner.id, later.id]);
    expect(ids((await list("?search=opera&orderby=title&order=desc")).events)).toEqual([later.id, sooner.id]);
    expect(ids((await list("?search=opera&orderby=relevance")).events)).toEqual([later.id, sooner.id]);
  });
});

// Planning was 40 % of an event read's time on PostgreSQL: each statement is prepared once per
// connection, unless a pooler that cannot keep prepared statements asks for them unnamed.
(testDatabaseProvider() === "postgresql" ? describe : describe.skip)("statements prepared on PostgreSQL", () => {
  const preparedOnItsConnection = async (env: Record<string, string>) => {
    // One connection, so that the statement below sees what the requests before it prepared.
    const server = await startTestServer({ DATABASE_POOL_SIZE: "1", ...env });
    try {
      const created = await createEventVia(server, {
        title: "Prepared once",
        start_date: "2031-05-01 10:00:00",
        end_date: "2031-05-01 11:00:00",
      });
      expect((await fetch(`${server.origin}/calendar/events/v1/events/${created.id}`)).status).toBe(200);
      const rows = await server.db.direct.rows<{ statement: string }>(
        Prisma.sql`SELECT "statement" FROM pg_prepared_statements WHERE "statement" LIKE ${'%FROM "Event" "e"%'}`,
      );
      return rows.length;
    } finally {
      await server.close();
    }
  };

  it("prepares the service's statements once per connection", async () => {
    expect(await preparedOnItsConnection({})).toBeGreaterThan(0);
  });

  it("sends them unnamed with DATABASE_PREPARED_STATEMENTS=false", async () => {
    expect(await preparedOnItsConnection({ DATABASE_PREPARED_STATEMENTS: "false" })).toBe(0);
  });
});
