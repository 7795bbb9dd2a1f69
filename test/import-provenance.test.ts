// Data from elsewhere is the source's claim (issue 57): a source writes only what its site brought.
// A site whose events' lineage ends in another site's global id, or whose venues and organizers are
// named after ones made here, links to them and never rewrites, re-addresses, re-mails or trashes
// them; a second source of one site (or a copy of it elsewhere) writes nothing again; a site's
// sources deleted and added again find what they brought; a site in three languages brings one
// category with three names; an event far ahead, or hidden after it arrived, stays.
import { startFeedServer, type FeedServer } from "./support/feed-server";
import { admin, IMPORT_ENV, LIST_END, ok, ROOT, startSites } from "./support/import-sites";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

const root = ROOT;
const END = LIST_END;

let a: TestServer;
let b: TestServer;
let c: TestServer;
let fixtures: FeedServer;

beforeAll(async () => {
  [a, b, c] = await startSites(["a", "b", "c"]);
  fixtures = await startFeedServer();
});
afterAll(async () => {
  await Promise.all([a, b, c].map((server) => server?.close()));
  await fixtures?.close();
});

type Json = Record<string, any>;

const read = async (server: TestServer, path: string) =>
  (await ok(server.raw("GET", `${root}${path}`, { headers: ADMIN_HEADERS }))).body;

async function source(server: TestServer, url: string, extra: Json = {}): Promise<number> {
  return (await admin(server, "POST", "/imports", { url, frequency: "manual", ...extra })).body.id;
}

const run = async (server: TestServer, id: number) => (await admin(server, "POST", `/imports/${id}/run`)).body;

/** Every event of a site, any status, any date, by title. */
async function everything(server: TestServer): Promise<Json[]> {
  const events: Json[] = [];
  for (let page = 1; ; page++) {
    const answer = await read(
      server,
      `/events?start_date=2000-01-01&end_date=2999-12-31&status=publish,draft,future,pending,private,trash&per_page=50&page=${page}`,
    );
    events.push(...answer.events);
    if (page >= answer.total_pages) return events;
  }
}

/** An event as this service's list gives it, from a site of the fixture server. */
function ourEvent(site: string, id: number, fields: Json = {}): Json {
  const globalId = `${site}?id=${id}&type=event`;
  return {
    id,
    global_id: globalId,
    global_id_lineage: [globalId],
    title: `Event ${id} of ${site}`,
    description: "",
    start_date: "2027-06-10 20:00:00",
    end_date: "2027-06-10 22:00:00",
    timezone: "UTC",
    all_day: false,
    url: `http://${site}/event/${id}/`,
    website: `http://${site}/event/${id}/`,
    image: false,
    cost: "",
    featured: false,
    sticky: false,
    hide_from_listings: false,
    show_map: true,
    show_map_link: true,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    recurrence: null,
    post_parent: 0,
    recurrence_id: null,
    detached: false,
    ...fields,
  };
}

/** A site of the fixture server shaped as this service, whose list is `events()` (read afresh at each request). */
function ourSite(path: string, events: () => Json[]) {
  fixtures.dynamic.set(`${path}/calendar/events/v1/events`, () => ({
    body: JSON.stringify({ events: events(), total: events().length, total_pages: 1 }),
  }));
  return fixtures.urlOf(`${path}/calendar/events/v1/events`);
}

describe("a source that claims another site's items", () => {
  let concert: Json;
  let fromA: number;
  let evilEvents: Json[];
  let hall: Json;
  let ana: Json;

  beforeAll(async () => {
    concert = (
      await admin(a, "POST", "/events", {
        title: "Concert",
        start_date: "2027-05-01 20:00",
        end_date: "2027-05-01 22:00",
        venue: { venue: "Aula Magna", city: "Lisboa" },
      })
    ).body;
    fromA = await source(c, a.base);
    expect(await run(c, fromA)).toMatchObject({ status: "succeeded", created: 1, failed: 0 });
    // Made here, by hand: a draft venue and an organizer with an address of its own.
    hall = (await admin(c, "POST", "/venues", { venue: "Coliseu", address: "Rua A 1", status: "draft" })).body;
    ana = (await admin(c, "POST", "/organizers", { organizer: "Ana Lopes", email: "ana@here.example" })).body;
    evilEvents = [
      // Its lineage ends in the concert's global id at a.example: a claim to be that event.
      ourEvent("evil.example", 1, {
        title: "EVIL takeover",
        global_id_lineage: ["evil.example?id=1&type=event", concert.global_id],
      }),
      ourEvent("evil.example", 2, {
        title: "Evil's own night",
        venue: { venue: "Coliseu", address: "Evil Street 666", global_id: "evil.example?id=20&type=venue" },
        organizer: [
          { organizer: "Ana Lopes", email: "ana@evil.example", global_id: "evil.example?id=21&type=organizer" },
        ],
      }),
    ];
  });

  const concertHere = async () =>
    (await everything(c)).find((event) => event.global_id_lineage.includes(concert.global_id))!;

  it("links an event by its lineage and never rewrites it", async () => {
    const before = await concertHere();
    const evil = await source(
      c,
      ourSite("/evil", () => evilEvents),
    );
    expect(await run(c, evil)).toMatchObject({ status: "succeeded", created: 1, updated: 0, failed: 0 });
    const after = await concertHere();
    expect([after.id, after.title, after.modified, after.status]).toEqual([
      before.id,
      "Concert",
      before.modified,
      "publish",
    ]);
    expect((await everything(c)).filter((event) => event.title === "EVIL takeover")).toEqual([]);
  });

  it("never trashes it when the item leaves that source, and the site that brought it keeps it", async () => {
    const evil = await source(
      c,
      ourSite("/evil-2", () => [evilEvents[0]]),
    );
    await run(c, evil);
    fixtures.dynamic.set("/evil-2/calendar/events/v1/events", () => ({
      body: JSON.stringify({ events: [], total: 0, total_pages: 1 }),
    }));
    expect(await run(c, evil)).toMatchObject({ status: "succeeded", removed: 0 });
    expect((await concertHere()).status).toBe("publish");
    await admin(a, "POST", `/events/${concert.id}`, { title: "Concert, new date" });
    expect(await run(c, fromA)).toMatchObject({ updated: 1 });
    expect((await concertHere()).title).toBe("Concert, new date");
  });

  it("links a venue and an organizer made here by their names, and never rewrites them", async () => {
    const venue = await read(c, `/venues/${hall.id}`);
    const organizer = await read(c, `/organizers/${ana.id}`);
    const evilNight = (await everything(c)).find((event) => event.title === "Evil's own night")!;
    expect([evilNight.venue.id, evilNight.organizer.map((item: Json) => item.id)]).toEqual([hall.id, [ana.id]]);
    // It changes them there: the next run writes nothing of it here.
    evilEvents[1] = {
      ...evilEvents[1],
      venue: { ...evilEvents[1].venue, address: "Evil Avenue 1", city: "Nowhere" },
      organizer: [{ ...evilEvents[1].organizer[0], email: "boss@evil.example", phone: "666" }],
    };
    const evil = (await read(c, "/imports?per_page=50")).imports.find((item: Json) => item.url.includes("/evil/"));
    expect(await run(c, evil.id)).toMatchObject({ status: "succeeded", failed: 0 });
    expect(await read(c, `/venues/${hall.id}`)).toMatchObject({
      status: "draft",
      address: "Rua A 1",
      city: null,
      modified: venue.modified,
      global_id_lineage: [venue.global_id],
    });
    expect(await read(c, `/organizers/${ana.id}`)).toMatchObject({
      email: "ana@here.example",
      phone: null,
      modified: organizer.modified,
      global_id_lineage: [organizer.global_id],
    });
    // Anonymous readers see what was made here.
    const shown = (await ok(c.raw("GET", `${root}/organizers/${ana.id}`))).body;
    expect(shown.email).toBe("ana@here.example");
  });
});

describe("one site by several paths", () => {
  let festival: Json;
  let first: number;

  beforeAll(async () => {
    festival = (
      await admin(b, "POST", "/events", {
        title: "Festival",
        start_date: "2027-07-01 12:00",
        end_date: "2027-07-01 23:00",
        categories: ["Festivals"],
        tags: ["outdoors"],
        organizer: [{ organizer: "Festival team", email: "team@festival.example" }],
      })
    ).body;
    first = await source(c, b.base);
    expect(await run(c, first)).toMatchObject({ status: "succeeded", created: 1 });
  });

  const festivalHere = async () =>
    (await everything(c)).filter((event) => event.global_id_lineage.includes(festival.global_id));

  it("writes nothing again through a second source of the site, in another form, nor through a copy elsewhere", async () => {
    const [before] = await festivalHere();
    const changes = (await ok(c.raw("GET", `${root}/events?per_page=1`))).headers.get("x-wp-total");
    const second = await source(c, `${b.origin}/?rest_route=/calendar/events/v1/events`);
    expect(await run(c, second)).toMatchObject({ status: "succeeded", created: 0, updated: 0, failed: 0 });
    // A plain copy of its list at another address: the same global ids, the same items.
    const copy = (await ok(b.raw("GET", `${root}/events?${END}&per_page=50&page=1`))).text;
    fixtures.dynamic.set("/copy/calendar/events/v1/events", () => ({ body: copy }));
    const mirror = await source(c, fixtures.urlOf("/copy/calendar/events/v1/events"));
    expect(await run(c, mirror)).toMatchObject({ status: "succeeded", created: 0, updated: 0, failed: 0 });
    const after = await festivalHere();
    expect(after.map((event) => [event.id, event.modified])).toEqual([[before.id, before.modified]]);
    expect((await ok(c.raw("GET", `${root}/events?per_page=1`))).headers.get("x-wp-total")).toBe(changes);
  });

  it("writes a change there once, whichever source runs", async () => {
    await admin(b, "POST", `/events/${festival.id}`, { title: "Festival, two days" });
    const sources = (await read(c, "/imports?per_page=50")).imports.filter((item: Json) =>
      item.url.startsWith(b.origin),
    );
    const runs = [];
    for (const item of sources) runs.push(await run(c, item.id));
    expect(runs.reduce((sum, ran) => sum + ran.updated, 0)).toBe(1);
    expect((await festivalHere()).map((event) => event.title)).toEqual(["Festival, two days"]);
  });

  it("finds what the site brought when its sources are deleted and one is added again, and writes nothing", async () => {
    const [before] = await festivalHere();
    for (let round = 0; round < 3; round++) {
      for (const item of (await read(c, "/imports?per_page=50")).imports.filter((i: Json) =>
        i.url.startsWith(b.origin),
      ))
        await admin(c, "DELETE", `/imports/${item.id}`);
      const again = await source(c, `${b.base}/events`);
      expect(await run(c, again)).toMatchObject({ status: "succeeded", created: 0, updated: 0, failed: 0 });
    }
    expect((await festivalHere()).map((event) => [event.id, event.modified])).toEqual([[before.id, before.modified]]);
    // And keeps it in step, as the first source did.
    await admin(b, "POST", `/events/${festival.id}`, { cost: "12 €" });
    const last = (await read(c, "/imports?per_page=50")).imports.find((i: Json) => i.url.startsWith(b.origin));
    expect(await run(c, last.id)).toMatchObject({ updated: 1 });
    expect((await festivalHere())[0].cost).toBe("12 €");
  });
});

describe("a site in three languages", () => {
  it("brings one category with its names in each, and each event once with its translations", async () => {
    const music = (await admin(a, "POST", "/categories", { name: "Live music" })).body;
    await ok(
      a.raw("POST", `/pt-br${root}/categories/${music.id}`, {
        body: { name: "Música ao vivo" },
        headers: ADMIN_HEADERS,
      }),
    );
    await ok(
      a.raw("POST", `/es${root}/categories/${music.id}`, { body: { name: "Música en vivo" }, headers: ADMIN_HEADERS }),
    );
    const gig = (
      await admin(a, "POST", "/events", {
        title: "Gig",
        start_date: "2027-08-01 21:00",
        end_date: "2027-08-01 23:00",
        categories: [music.id],
      })
    ).body;
    await ok(a.raw("POST", `/es${root}/events/${gig.id}`, { body: { title: "Concierto" }, headers: ADMIN_HEADERS }));
    const here = await startTestServer({ ...IMPORT_ENV, SITE_URL: "http://d.example" });
    try {
      for (const [language, prefix] of [
        ["en", ""],
        ["pt-br", "/pt-br"],
        ["es", "/es"],
      ])
        expect(
          (
            await ok(
              here.raw(
                "POST",
                `${root}/imports/${await source(here, `${a.origin}${prefix}${root}`, { language })}/run`,
                {
                  headers: ADMIN_HEADERS,
                },
              ),
            )
          ).body,
        ).toMatchObject({ status: "succeeded", failed: 0 });
      const categories = (await read(here, "/categories?per_page=50&hide_empty=false")).categories;
      expect(categories.map((term: Json) => term.name)).toEqual(["Live music"]);
      const inSpanish = (await ok(here.raw("GET", `/es${root}/categories/${categories[0].id}`))).body;
      expect(inSpanish.name).toBe("Música en vivo");
      const events = (await everything(here)).filter((event) => event.global_id_lineage.includes(gig.global_id));
      expect(events.map((event) => [event.title, event.categories.map((term: Json) => term.name)])).toEqual([
        ["Gig", ["Live music"]],
      ]);
      const spanish = (await ok(here.raw("GET", `/es${root}/events/${events[0].id}`))).body;
      expect([spanish.title, spanish.categories[0].name]).toEqual(["Concierto", "Música en vivo"]);
    } finally {
      await here.close();
    }
  });
});

describe("a site running The Events Calendar", () => {
  const tribeEvent = (id: number, fields: Json = {}): Json => ({
    id,
    global_id: `tec2.example?id=${id}`,
    global_id_lineage: [`tec2.example?id=${id}`],
    title: `Event ${id}`,
    description: "",
    start_date: "2027-05-10 18:00:00",
    end_date: "2027-05-10 20:00:00",
    utc_start_date: "2027-05-10 18:00:00",
    utc_end_date: "2027-05-10 20:00:00",
    timezone: "UTC+0",
    all_day: false,
    url: `https://tec2.example/event/${id}/`,
    website: `https://tec2.example/event/${id}/`,
    image: false,
    cost: "",
    categories: [{ name: "Food &amp; Drink", slug: "food-drink", taxonomy: "tribe_events_cat", id: 5 }],
    tags: [],
    venue: [],
    organizer: [],
    hide_from_listings: false,
    modified: "2026-11-20 10:00:00",
    ...fields,
  });
  const LIST = `/tec2/wp-json/tribe/events/v1/events?${END}&per_page=50&page=1`;
  const page = (events: Json[]) => JSON.stringify({ events, total: events.length, total_pages: 1 });
  let id: number;

  beforeAll(async () => {
    // Three years ahead: its list ends 24 months ahead unless asked otherwise, and this one is asked.
    fixtures.feeds.set(
      LIST,
      page([
        tribeEvent(1),
        tribeEvent(2, {
          start_date: "2029-12-01 10:00:00",
          end_date: "2029-12-01 12:00:00",
          utc_start_date: "2029-12-01 10:00:00",
          utc_end_date: "2029-12-01 12:00:00",
        }),
      ]),
    );
    id = await source(c, fixtures.urlOf("/tec2/wp-json"));
  });

  const fromTec = async () =>
    (await everything(c)).filter((event) =>
      event.global_id_lineage.some((globalId: string) => globalId.startsWith("tec2.example")),
    );

  it("brings events more than 24 months ahead, and its terms' names as names (not HTML)", async () => {
    expect(await run(c, id)).toMatchObject({ status: "succeeded", created: 2, failed: 0 });
    const events = await fromTec();
    expect(
      events.map((event) => [
        event.title,
        event.start_date.slice(0, 4),
        event.categories.map((term: Json) => term.name),
      ]),
    ).toEqual([
      ["Event 1", "2027", ["Food & Drink"]],
      ["Event 2", "2029", ["Food & Drink"]],
    ]);
    // A later write of the same name finds that category.
    const written = (
      await admin(c, "POST", "/events", {
        title: "Tasting",
        start_date: "2027-09-01 18:00",
        end_date: "2027-09-01 19:00",
        categories: ["Food & Drink"],
      })
    ).body;
    expect(written.categories.map((term: Json) => term.id)).toEqual(events[0].categories.map((term: Json) => term.id));
  });

  it("keeps an event hidden there after it arrived, hidden here too, and removes one gone there", async () => {
    // Hidden: its lists leave it out, WordPress still lists it, its own page shows it.
    fixtures.feeds.set(
      "/tec2/wp-json/wp/v2/tribe_events?_fields=id%2Cmodified&per_page=100&page=1",
      JSON.stringify([{ id: 1, modified: "2026-11-21T09:00:00" }]),
    );
    fixtures.feeds.set(`/tec2/wp-json/tribe/events/v1/events?${END}&include=1&per_page=50`, page([]));
    fixtures.feeds.set(
      "/tec2/wp-json/tribe/events/v1/events/1",
      JSON.stringify(tribeEvent(1, { hide_from_listings: true, modified: "2026-11-21 09:00:00" })),
    );
    const [first] = await fromTec();
    expect(await run(c, id)).toMatchObject({ status: "succeeded", updated: 1, removed: 1, failed: 0 });
    // Lists leave a hidden event out here too: it is read by its id.
    const hidden = await read(c, `/events/${first.id}`);
    expect([hidden.title, hidden.status, hidden.hide_from_listings]).toEqual(["Event 1", "publish", true]);
    expect((await fromTec()).map((event) => [event.title, event.status])).toEqual([["Event 2", "trash"]]);
  });
});

describe("an item that reaches this site by two paths", () => {
  it("is one event whichever path comes first: by its origin, the last of its lineage, not its first id", async () => {
    const lecture = (
      await admin(a, "POST", "/events", {
        title: "Lecture",
        start_date: "2027-10-01 18:00",
        end_date: "2027-10-01 19:00",
      })
    ).body;
    // b imports a: its copy's lineage is [its own id at b, the lecture's at a].
    expect(await run(b, await source(b, a.base))).toMatchObject({ status: "succeeded", failed: 0 });
    const here = await startTestServer({ ...IMPORT_ENV, SITE_URL: "http://e.example" });
    try {
      const direct = await ok(
        here.raw("POST", `${root}/imports`, { body: { url: a.base, frequency: "manual" }, headers: ADMIN_HEADERS }),
        201,
      );
      await ok(here.raw("POST", `${root}/imports/${direct.body.id}/run`, { headers: ADMIN_HEADERS }));
      const through = await ok(
        here.raw("POST", `${root}/imports`, { body: { url: b.base, frequency: "manual" }, headers: ADMIN_HEADERS }),
        201,
      );
      await ok(here.raw("POST", `${root}/imports/${through.body.id}/run`, { headers: ADMIN_HEADERS }));
      const lectures = (await everything(here)).filter((event) => event.title === "Lecture");
      expect(lectures.map((event) => event.global_id_lineage.slice(1))).toEqual([[lecture.global_id]]);
    } finally {
      await here.close();
    }
  });
});
