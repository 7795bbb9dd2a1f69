// iCalendar import sources (issue 32): feeds served on loopback as Google Calendar, Outlook and
// Meetup export them become events (zones, all-day, series with exceptions and overrides,
// cancellations, venues, organizers, categories), kept in step run after run: an unchanged feed
// writes nothing, a changed or shortened one updates and removes what it should.
import { BRIDGES } from "../src/app";
import { createLogger } from "../src/logging/logger";
import { fetchFeed } from "../src/resources/imports/feed-fetch";
import { runDependencies } from "../src/resources/imports/import-operations";
import { ImportScheduler } from "../src/resources/imports/import-worker";
import { startFeedServer, type FeedServer } from "./support/feed-server";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";
import { createTermVia } from "./support/fixtures";
import { createUser as createUserWithCredentials } from "../src/resources/users/user-admin";

const root = "/calendar/events/v1";
const IMPORT_ENV = { IMPORT_ALLOW_PRIVATE_SOURCES: "true", IMPORT_TIMEOUT_MS: "2000", IMPORT_RUN_WAIT_MS: "20000" };

let server: TestServer;
let feeds: FeedServer;

beforeAll(async () => {
  server = await startTestServer(IMPORT_ENV);
  feeds = await startFeedServer();
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  server.raw(method, `${root}${path}`, { body, headers: ADMIN_HEADERS });

async function ok(response: Promise<RawResponse>, status = 200): Promise<RawResponse> {
  const answered = await response;
  expect([answered.status, answered.status === status ? "" : answered.text]).toEqual([status, ""]);
  return answered;
}

/** The lines of a feed as an exporter writes them (CRLF, folded at 75 octets is left to the parser's tolerance). */
const calendar = (lines: string[]) => [...lines, ""].join("\r\n");

const LISBON_VTIMEZONE = [
  "BEGIN:VTIMEZONE",
  "TZID:Europe/Lisbon",
  "X-LIC-LOCATION:Europe/Lisbon",
  "BEGIN:STANDARD",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0000",
  "TZNAME:WET",
  "DTSTART:19701025T020000",
  "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
  "END:STANDARD",
  "BEGIN:DAYLIGHT",
  "TZOFFSETFROM:+0000",
  "TZOFFSETTO:+0100",
  "TZNAME:WEST",
  "DTSTART:19700329T010000",
  "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
  "END:DAYLIGHT",
  "END:VTIMEZONE",
];

const FADO_SERIES = [
  "BEGIN:VEVENT",
  "DTSTART;TZID=Europe/Lisbon:20270105T190000",
  "DTEND;TZID=Europe/Lisbon:20270105T210000",
  "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6",
  "EXDATE;TZID=Europe/Lisbon:20270119T190000",
  "DTSTAMP:20261120T100000Z",
  "UID:fado-weekly@google.com",
  "CREATED:20261101T100000Z",
  "SUMMARY:Fado night",
  "LOCATION:Clube de Fado\\, Rua S. João da Praça 94\\, Lisboa",
  "GEO:38.7097;-9.1310",
  "ORGANIZER;CN=Ana Lopes:mailto:ana@example.org",
  "CATEGORIES:Music,Fado",
  "DESCRIPTION:Traditional fado.\\nDoors at 18:30.",
  "URL:https://example.org/fado",
  "STATUS:CONFIRMED",
  "SEQUENCE:0",
  "END:VEVENT",
];

/** A Google Calendar export: VTIMEZONE, X-WR-TIMEZONE, a weekly series with an EXDATE, a moved and a cancelled week, an all-day festival, a UTC time, a cancelled event. */
function googleFeed(options: { movedTitle?: string; withFestival?: boolean } = {}) {
  const { movedTitle = "Fado night (late show)", withFestival = true } = options;
  return calendar([
    "BEGIN:VCALENDAR",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "VERSION:2.0",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "X-WR-CALNAME:Clube de Fado",
    "X-WR-TIMEZONE:Europe/Lisbon",
    ...LISBON_VTIMEZONE,
    ...FADO_SERIES,
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Lisbon:20270126T203000",
    "DTEND;TZID=Europe/Lisbon:20270126T223000",
    "DTSTAMP:20261120T100000Z",
    "UID:fado-weekly@google.com",
    "RECURRENCE-ID;TZID=Europe/Lisbon:20270126T190000",
    `SUMMARY:${movedTitle}`,
    "LOCATION:Clube de Fado\\, Rua S. João da Praça 94\\, Lisboa",
    "STATUS:CONFIRMED",
    "SEQUENCE:1",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Lisbon:20270202T190000",
    "DTEND;TZID=Europe/Lisbon:20270202T210000",
    "DTSTAMP:20261120T100000Z",
    "UID:fado-weekly@google.com",
    "RECURRENCE-ID;TZID=Europe/Lisbon:20270202T190000",
    "SUMMARY:Fado night",
    "STATUS:CANCELLED",
    "SEQUENCE:1",
    "END:VEVENT",
    ...(withFestival
      ? [
          "BEGIN:VEVENT",
          "DTSTART;VALUE=DATE:20270210",
          "DTEND;VALUE=DATE:20270212",
          "DTSTAMP:20261120T100000Z",
          "UID:festival@google.com",
          "SUMMARY:Fado festival",
          "DESCRIPTION:Two days.",
          "TRANSP:TRANSPARENT",
          "END:VEVENT",
        ]
      : []),
    "BEGIN:VEVENT",
    "DTSTART:20270301T180000Z",
    "DTEND:20270301T193000Z",
    "DTSTAMP:20261120T100000Z",
    "UID:talk@google.com",
    "SUMMARY:Guitar talk",
    "X-ALT-DESC;FMTTYPE=text/html:<p>With <b>Pedro</b><script>alert(1)</script></p>",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "DTSTART;TZID=Europe/Lisbon:20270305T210000",
    "DTEND;TZID=Europe/Lisbon:20270305T230000",
    "DTSTAMP:20261120T100000Z",
    "UID:cancelled@google.com",
    "SUMMARY:Guest night",
    "STATUS:CANCELLED",
    "END:VEVENT",
    "END:VCALENDAR",
  ]);
}

interface Listed {
  id: number;
  title: string;
  description: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  all_day: boolean;
  timezone: string;
  status: string;
  website: string;
  modified: string;
  post_parent: number;
  recurrence_id: string | null;
  detached: boolean;
  recurrence: { rrule: string; rdate: string[]; exdate: string[] } | null;
  venue: { id: number; venue: string; geo_lat?: number; geo_lng?: number } | [];
  image: { url: string } | false;
  organizer: Array<{ id: number; organizer: string; email: string }>;
  categories: Array<{ id: number; name: string }>;
  tags: Array<{ id: number; name: string }>;
}

/** Every event an administrator sees, in date order. */
async function allEvents(): Promise<Listed[]> {
  const response = await ok(
    admin("GET", "/events?start_date=2020-01-01&end_date=2030-12-31&per_page=100&status=publish,draft,trash"),
  );
  return response.body.events;
}

const byTitle = (events: Listed[], title: string) => events.filter((event) => event.title === title);

async function createSource(body: Record<string, unknown>) {
  return (await ok(admin("POST", "/imports", body), 201)).body;
}

async function runSource(id: number) {
  return (await ok(admin("POST", `/imports/${id}/run`))).body;
}

describe("a Google Calendar export", () => {
  let source: { id: number };
  let music: { id: number };

  beforeAll(async () => {
    feeds.feeds.set("/google/basic.ics", googleFeed());
    music = await createTermVia(server, "tags", { name: "Imported" });
    source = await createSource({
      url: feeds.urlOf("/google/basic.ics"),
      frequency: "hourly",
      tags: [music.id],
      description: "Clube de Fado",
    });
  });

  it("becomes the right events", async () => {
    const run = await runSource(source.id);
    expect(run).toMatchObject({ status: "succeeded", fetch: "fetched", failed: 0, errors: [], error: null });
    // The series, the festival, the talk, the cancelled night; the moved week updates an occurrence.
    expect(run).toMatchObject({ created: 4, updated: 1, removed: 0 });
    const events = await allEvents();

    const [series] = events.filter((event) => event.title === "Fado night" && event.post_parent === 0);
    expect(series).toMatchObject({
      start_date: "2027-01-05 19:00:00",
      end_date: "2027-01-05 21:00:00",
      timezone: "Europe/Lisbon",
      status: "publish",
      website: "https://example.org/fado",
      recurrence: {
        rrule: "FREQ=WEEKLY;COUNT=6;BYDAY=TU",
        rdate: [],
        exdate: ["2027-01-19 19:00:00", "2027-02-02 19:00:00"],
      },
    });
    expect(series.description).toBe("<p>Traditional fado.<br />Doors at 18:30.</p>");
    // Google's form: the place's name, then its address.
    expect(series.venue).toMatchObject({ venue: "Clube de Fado", address: "Rua S. João da Praça 94", city: "Lisboa" });
    expect(series.organizer).toEqual([expect.objectContaining({ organizer: "Ana Lopes", email: "ana@example.org" })]);
    expect(series.categories.map((term) => term.name).sort()).toEqual(["Fado", "Music"]);
    expect(series.tags.map((term) => term.id)).toEqual([music.id]);

    // COUNT=6 from 5 January: the 12th, the moved 26th, the 9th of February (the 19th excluded, the 2nd cancelled).
    const occurrences = events.filter((event) => event.post_parent === series.id);
    expect(occurrences.map((event) => [event.recurrence_id, event.start_date, event.title, event.detached])).toEqual([
      ["2027-01-12 19:00:00", "2027-01-12 19:00:00", "Fado night", false],
      ["2027-01-26 19:00:00", "2027-01-26 20:30:00", "Fado night (late show)", true],
      ["2027-02-09 19:00:00", "2027-02-09 19:00:00", "Fado night", false],
    ]);

    const [festival] = byTitle(events, "Fado festival");
    expect(festival).toMatchObject({
      all_day: true,
      start_date: "2027-02-10 00:00:00",
      // DTEND is exclusive: two days, the 10th and the 11th.
      end_date: "2027-02-11 23:59:59",
      timezone: "Europe/Lisbon",
    });

    // A UTC time, in the calendar's zone (X-WR-TIMEZONE): Lisbon is at UTC+0 in March.
    const [talk] = byTitle(events, "Guitar talk");
    expect(talk).toMatchObject({ start_date: "2027-03-01 18:00:00", timezone: "Europe/Lisbon", venue: [] });
    // X-ALT-DESC's HTML, filtered as a contributor's.
    expect(talk.description).toBe("<p>With <b>Pedro</b></p>");

    // STATUS:CANCELLED: not published.
    expect(byTitle(events, "Guest night")).toEqual([expect.objectContaining({ status: "draft" })]);
    const anonymous = await ok(server.raw("GET", `${root}/events?start_date=2027-03-01&end_date=2027-03-31`));
    expect(anonymous.body.events.map((event: Listed) => event.title)).toEqual(["Guitar talk"]);
  });

  it("changes nothing when run again: not modified, then the same feed in full", async () => {
    const before = await allEvents();
    const notModified = await runSource(source.id);
    expect(notModified).toMatchObject({ status: "succeeded", fetch: "not_modified", created: 0, updated: 0 });
    expect(feeds.requests.at(-1)).toMatchObject({ status: 304 });
    expect(feeds.requests.at(-1)!.headers["if-none-match"]).toMatch(/^"/);

    // A source without validators: the feed is read in full, and every VEVENT is found unchanged.
    feeds.validators = false;
    try {
      const again = await runSource(source.id);
      expect(again).toMatchObject({ fetch: "fetched", created: 0, updated: 0, removed: 0, failed: 0, unchanged: 5 });
    } finally {
      feeds.validators = true;
    }
    expect(await allEvents()).toEqual(before);
  });
});

describe("an override whose RECURRENCE-ID is written in another zone than its series'", () => {
  it("replaces the occurrence at the same instant", async () => {
    // 19:00 in Lisbon in January is 14:00 in New York: the same instance of the series.
    const path = "/google/other-zone.ics";
    feeds.feeds.set(
      path,
      googleFeed()
        .replace(/@google\.com/g, "@zone.example")
        .replace(/Fado night/g, "Zoned night")
        .replace(
          "RECURRENCE-ID;TZID=Europe/Lisbon:20270126T190000",
          "RECURRENCE-ID;TZID=America/New_York:20270126T140000",
        ),
    );
    const source = await createSource({ url: feeds.urlOf(path), frequency: "manual" });
    expect(await runSource(source.id)).toMatchObject({ failed: 0 });
    const events = await allEvents();
    const [series] = events.filter((event) => event.title === "Zoned night" && event.post_parent === 0);
    const occurrences = events.filter((event) => event.post_parent === series.id);
    expect(occurrences.map((event) => [event.recurrence_id, event.start_date, event.title])).toEqual([
      ["2027-01-12 19:00:00", "2027-01-12 19:00:00", "Zoned night"],
      ["2027-01-26 19:00:00", "2027-01-26 20:30:00", "Zoned night (late show)"],
      ["2027-02-09 19:00:00", "2027-02-09 19:00:00", "Zoned night"],
    ]);
  });
});

describe("a Google Calendar export, kept in step", () => {
  let source: { id: number };
  const path = "/google/kept.ics";
  const counts = async () => ({
    changes: await server.db.write.syncChange.count(),
    outbox: await server.db.write.webhookOutbox.count(),
  });

  beforeAll(async () => {
    feeds.feeds.set(
      path,
      googleFeed()
        .replace(/fado-weekly@google\.com/g, "kept@google.com")
        .replace(/festival@google\.com/g, "kept-festival@google.com")
        .replace(/talk@google\.com/g, "kept-talk@google.com")
        .replace(/cancelled@google\.com/g, "kept-cancelled@google.com")
        .replace(/Fado night/g, "Kept night")
        .replace(/Fado festival/g, "Kept festival")
        .replace(/Guitar talk/g, "Kept talk"),
    );
    source = await createSource({ url: feeds.urlOf(path), frequency: "manual" });
    expect(await runSource(source.id)).toMatchObject({ created: 4, updated: 1, failed: 0 });
  });

  it("writes nothing for an unchanged feed: no modified date, no sync position, no webhook", async () => {
    const before = { events: await allEvents(), ...(await counts()) };
    feeds.validators = false;
    try {
      expect(await runSource(source.id)).toMatchObject({ created: 0, updated: 0, removed: 0, unchanged: 5 });
    } finally {
      feeds.validators = true;
    }
    expect({ events: await allEvents(), ...(await counts()) }).toEqual(before);
  });

  it("updates what changed and trashes what left, and brings back what returns", async () => {
    const original = String(feeds.feeds.get(path));
    const changed = original
      .replace("SUMMARY:Kept night (late show)", "SUMMARY:Kept night (later show)")
      .replace("DTSTART:20270301T180000Z", "DTSTART:20270301T190000Z")
      .replace("DTEND:20270301T193000Z", "DTEND:20270301T203000Z");
    const shortened = changed.replace(/BEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20270210[\s\S]*?END:VEVENT\r\n/, "");
    expect(shortened).not.toContain("kept-festival");
    feeds.feeds.set(path, shortened);
    const run = await runSource(source.id);
    expect(run).toMatchObject({ created: 0, updated: 2, removed: 1, failed: 0, unchanged: 2 });
    const events = await allEvents();
    expect(byTitle(events, "Kept night (later show)")).toEqual([
      expect.objectContaining({ start_date: "2027-01-26 20:30:00", detached: true }),
    ]);
    expect(byTitle(events, "Kept talk").find((event) => event.start_date === "2027-03-01 19:00:00")).toBeDefined();
    expect(byTitle(events, "Kept festival")).toEqual([expect.objectContaining({ status: "trash" })]);

    // The festival comes back: out of the trash, as the feed says.
    feeds.feeds.set(path, changed);
    expect(await runSource(source.id)).toMatchObject({ created: 0, updated: 1, removed: 0 });
    expect(byTitle(await allEvents(), "Kept festival")).toEqual([expect.objectContaining({ status: "publish" })]);
    feeds.feeds.set(path, original);
    await runSource(source.id);
  });

  it("gives a moved occurrence back to its series when its override leaves the feed", async () => {
    const original = String(feeds.feeds.get(path));
    const withoutOverride = original.replace(
      /BEGIN:VEVENT\r\nDTSTART;TZID=Europe\/Lisbon:20270126T203000[\s\S]*?END:VEVENT\r\n/,
      "",
    );
    feeds.feeds.set(path, withoutOverride);
    expect(await runSource(source.id)).toMatchObject({ updated: 1, removed: 0, failed: 0 });
    const [series] = byTitle(await allEvents(), "Kept night").filter((event) => event.post_parent === 0);
    const occurrences = (await allEvents()).filter((event) => event.post_parent === series.id);
    expect(occurrences.map((event) => [event.title, event.start_date, event.end_date])).toEqual([
      ["Kept night", "2027-01-12 19:00:00", "2027-01-12 21:00:00"],
      ["Kept night", "2027-01-26 19:00:00", "2027-01-26 21:00:00"],
      ["Kept night", "2027-02-09 19:00:00", "2027-02-09 21:00:00"],
    ]);
    feeds.feeds.set(path, original);
    expect(await runSource(source.id)).toMatchObject({ updated: 1, failed: 0 });
  });

  it("keeps local edits until the feed changes the event, and leaves an event trashed here in the trash", async () => {
    const [talk] = byTitle(await allEvents(), "Kept talk");
    await ok(admin("PATCH", `/events/${talk.id}`, { title: "Kept talk (edited here)", featured: true }));
    feeds.validators = false;
    try {
      await runSource(source.id);
      expect((await ok(admin("GET", `/events/${talk.id}`))).body).toMatchObject({
        title: "Kept talk (edited here)",
        featured: true,
      });
      // The feed changes the event: the feed's fields win, the others (featured) stay.
      const original = String(feeds.feeds.get(path));
      feeds.feeds.set(path, original.replace("SUMMARY:Kept talk", "SUMMARY:Kept talk and fado"));
      expect(await runSource(source.id)).toMatchObject({ updated: 1 });
      expect((await ok(admin("GET", `/events/${talk.id}`))).body).toMatchObject({
        title: "Kept talk and fado",
        featured: true,
      });
      // Trashed here: left alone, whatever the feed says of it later.
      await ok(admin("DELETE", `/events/${talk.id}`));
      feeds.feeds.set(path, original.replace("SUMMARY:Kept talk", "SUMMARY:Kept talk, again"));
      expect(await runSource(source.id)).toMatchObject({ updated: 0, created: 0 });
      expect((await allEvents()).find((event) => event.id === talk.id)).toMatchObject({
        title: "Kept talk and fado",
        status: "trash",
      });
      // Deleted for good here: not made again.
      await ok(admin("DELETE", `/events/${talk.id}?force=true`));
      feeds.feeds.set(path, original.replace("SUMMARY:Kept talk", "SUMMARY:Kept talk, once more"));
      expect(await runSource(source.id)).toMatchObject({ updated: 0, created: 0, failed: 0 });
      expect(byTitle(await allEvents(), "Kept talk, once more")).toEqual([]);
      feeds.feeds.set(path, original);
    } finally {
      feeds.validators = true;
    }
  });

  it("writes every event again in a source's new language", async () => {
    const [talk] = byTitle(await allEvents(), "Kept festival");
    expect(
      (await ok(server.raw("GET", `/es${root}/events/${talk.id}?i18n_language=es`))).headers.get("content-language"),
    ).toBe("es");
    await ok(admin("PATCH", `/imports/${source.id}`, { language: "es" }));
    // The validators are forgotten: the feed is read in full, and every VEVENT written in Spanish.
    const run = await runSource(source.id);
    expect(run).toMatchObject({ fetch: "fetched", failed: 0, created: 0 });
    expect(run.updated).toBeGreaterThanOrEqual(4);
    const rows = await server.db.write.eventText.findMany({
      where: { eventId: talk.id },
      orderBy: { language: "asc" },
    });
    expect(rows.map((row) => [row.language, row.title])).toEqual([
      ["en", "Kept festival"],
      ["es", "Kept festival"],
      ["pt-br", null],
    ]);
    expect(await runSource(source.id)).toMatchObject({ fetch: "not_modified", updated: 0 });
    await ok(admin("PATCH", `/imports/${source.id}`, { language: "en" }));
    await runSource(source.id);
  });

  it("keeps events that left the feed when the source says so", async () => {
    await ok(admin("PATCH", `/imports/${source.id}`, { on_removed: "keep" }));
    const original = String(feeds.feeds.get(path));
    feeds.feeds.set(
      path,
      original.replace(/BEGIN:VEVENT\r\nDTSTART;TZID=Europe\/Lisbon:20270305T210000[\s\S]*?END:VEVENT\r\n/, ""),
    );
    expect(await runSource(source.id)).toMatchObject({ removed: 0, failed: 0 });
    expect(byTitle(await allEvents(), "Guest night").length).toBeGreaterThan(0);
    expect(byTitle(await allEvents(), "Guest night").every((event) => event.status === "draft")).toBe(true);
    feeds.feeds.set(path, original);
  });
});

/** Central European time as Outlook writes it: today's rules, from 1601. */
const CENTRAL_EUROPE_OBSERVANCES = [
  "BEGIN:STANDARD",
  "DTSTART:16010101T030000",
  "TZOFFSETFROM:+0200",
  "TZOFFSETTO:+0100",
  "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10",
  "END:STANDARD",
  "BEGIN:DAYLIGHT",
  "DTSTART:16010101T020000",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0200",
  "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3",
  "END:DAYLIGHT",
];

/** An Outlook (Exchange) published calendar: Windows zone names, a zone of its own, a monthly series, an all-day event. */
const OUTLOOK_FEED = calendar([
  "BEGIN:VCALENDAR",
  "METHOD:PUBLISH",
  "PRODID:Microsoft Exchange Server 2010",
  "VERSION:2.0",
  "X-WR-CALNAME:University events",
  "BEGIN:VTIMEZONE",
  "TZID:W. Europe Standard Time",
  ...CENTRAL_EUROPE_OBSERVANCES,
  "END:VTIMEZONE",
  "BEGIN:VTIMEZONE",
  "TZID:Customized Time Zone",
  "BEGIN:STANDARD",
  "DTSTART:16010101T000000",
  "TZOFFSETFROM:+0530",
  "TZOFFSETTO:+0530",
  "END:STANDARD",
  "END:VTIMEZONE",
  "BEGIN:VEVENT",
  "DESCRIPTION:\\n",
  "RRULE:FREQ=MONTHLY;UNTIL=20270630T120000Z;INTERVAL=1;BYDAY=1WE",
  "UID:040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A601000000000000000010000000",
  "SUMMARY;LANGUAGE=en-US:Faculty colloquium",
  "DTSTART;TZID=W. Europe Standard Time:20270106T140000",
  "DTEND;TZID=W. Europe Standard Time:20270106T160000",
  "CLASS:PUBLIC",
  "PRIORITY:5",
  "DTSTAMP:20261120T100000Z",
  "TRANSP:OPAQUE",
  "STATUS:CONFIRMED",
  "SEQUENCE:0",
  "LOCATION;LANGUAGE=en-US:Aula Magna",
  "X-MICROSOFT-CDO-ALLDAYEVENT:FALSE",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A602000000000000000010000000",
  "SUMMARY;LANGUAGE=en-US:Open day",
  "DTSTART;VALUE=DATE:20270115",
  "DTEND;VALUE=DATE:20270116",
  "DTSTAMP:20261120T100000Z",
  "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A603000000000000000010000000",
  "SUMMARY:Visiting lecture",
  "DTSTART;TZID=Customized Time Zone:20270120T100000",
  "DTEND;TZID=Customized Time Zone:20270120T113000",
  "DTSTAMP:20261120T100000Z",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:every-minute@example.org",
  "SUMMARY:Every minute, for ever",
  "DTSTART:20270101T000000Z",
  "DTEND:20270101T000100Z",
  "RRULE:FREQ=MINUTELY",
  "DTSTAMP:20261120T100000Z",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A604000000000000000010000000",
  "SUMMARY:Nowhere lecture",
  "DTSTART;TZID=Atlantis Standard Time:20270121T100000",
  "DTEND;TZID=Atlantis Standard Time:20270121T113000",
  "DTSTAMP:20261120T100000Z",
  "END:VEVENT",
  "END:VCALENDAR",
]);

/** A Meetup group's calendar: Meetup's LOCATION form, GEO, URL, two events at one venue. */
const MEETUP_FEED = calendar([
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//Meetup//RemoteApi//EN",
  "CALSCALE:GREGORIAN",
  "METHOD:PUBLISH",
  "X-ORIGINAL-URL:https://www.meetup.com/lisbon-js/events/ical/",
  "X-WR-CALNAME:Events - Lisbon JS",
  "X-MS-OLK-FORCEINSPECTOROPEN:TRUE",
  ...LISBON_VTIMEZONE,
  ...[42, 43].flatMap((number, index) => [
    "BEGIN:VEVENT",
    "DTSTAMP:20261120T120000Z",
    `DTSTART;TZID=Europe/Lisbon:202701${14 + index * 14}T183000`,
    `DTEND;TZID=Europe/Lisbon:202701${14 + index * 14}T210000`,
    "STATUS:CONFIRMED",
    `SUMMARY:JS Meetup #${number}`,
    `DESCRIPTION:Lisbon JS\\nThursday at 6:30 PM\\n\\nTalks & pizza <3.\\n\\nDetails: https://www.meetup.com/lisbon-js/events/3000000${number}/`,
    "CLASS:PUBLIC",
    "GEO:38.7369;-9.1427",
    "LOCATION:Startup Lisboa (Rua da Prata 121\\, Lisboa\\, Portugal)",
    `URL:https://www.meetup.com/lisbon-js/events/3000000${number}/`,
    `UID:event_3000000${number}@meetup.com`,
    "END:VEVENT",
  ]),
  "END:VCALENDAR",
]);

describe("Outlook and Meetup exports", () => {
  it("read Windows zone names as their IANA zones, and a zone of the feed's own by its VTIMEZONE, and refuse a rule no event may have", async () => {
    feeds.feeds.set("/owa/calendar.ics", OUTLOOK_FEED);
    const source = await createSource({ url: feeds.urlOf("/owa/calendar.ics"), frequency: "daily" });
    const run = await runSource(source.id);
    expect(run).toMatchObject({ status: "succeeded", created: 3, failed: 2 });
    expect(run.errors).toEqual([
      {
        uid: "040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A604000000000000000010000000",
        recurrence_id: null,
        message: expect.stringContaining('unknown time zone "Atlantis Standard Time"'),
      },
      // A rule no event may have (FREQ=MINUTELY) is refused, as a write by hand would be.
      {
        uid: "every-minute@example.org",
        recurrence_id: null,
        message: expect.stringMatching(/^recurrence: .*\(rest_invalid_recurrence\)$/),
      },
    ]);
    const events = await allEvents();
    const [colloquium] = byTitle(events, "Faculty colloquium").filter((event) => event.post_parent === 0);
    expect(colloquium).toMatchObject({
      timezone: "Europe/Berlin",
      start_date: "2027-01-06 14:00:00",
      end_date: "2027-01-06 16:00:00",
      description: "",
      venue: expect.objectContaining({ venue: "Aula Magna" }),
    });
    expect(events.filter((event) => event.post_parent === colloquium.id).map((event) => event.start_date)).toEqual(
      ["2027-02-03", "2027-03-03", "2027-04-07", "2027-05-05", "2027-06-02"].map((day) => `${day} 14:00:00`),
    );
    expect(byTitle(events, "Open day")).toEqual([
      expect.objectContaining({ all_day: true, start_date: "2027-01-15 00:00:00", end_date: "2027-01-15 23:59:59" }),
    ]);
    // A zone of the feed's own, at +05:30 all year: the IANA zone that has been so longest (not Asia/Colombo, since 2006).
    expect(byTitle(events, "Visiting lecture")).toEqual([
      expect.objectContaining({
        start_date: "2027-01-20 10:00:00",
        end_date: "2027-01-20 11:30:00",
        timezone: "Asia/Kolkata",
        utc_start_date: "2027-01-20 04:30:00",
      }),
    ]);
    // The VEVENT that failed is tried again next time: the validators are not kept.
    await runSource(source.id);
    expect(feeds.requests.at(-1)).toMatchObject({ path: "/owa/calendar.ics", status: 200 });
    expect(feeds.requests.at(-1)!.headers["if-none-match"]).toBeUndefined();
  });

  it("make one venue of a LOCATION named twice, with its GEO, and escape plain-text descriptions", async () => {
    feeds.feeds.set("/meetup/ical", MEETUP_FEED);
    const source = await createSource({ url: feeds.urlOf("/meetup/ical"), status: "draft" });
    expect(await runSource(source.id)).toMatchObject({ created: 2, failed: 0 });
    const meetups = (await allEvents()).filter((event) => event.title.startsWith("JS Meetup"));
    expect(meetups.map((event) => [event.title, event.start_date, event.status])).toEqual([
      ["JS Meetup #42", "2027-01-14 18:30:00", "draft"],
      ["JS Meetup #43", "2027-01-28 18:30:00", "draft"],
    ]);
    const venues = meetups.map((event) => event.venue as { id: number; venue: string });
    expect(venues[0].id).toBe(venues[1].id);
    expect(venues[0]).toMatchObject({
      venue: "Startup Lisboa (Rua da Prata 121, Lisboa, Portugal)",
      geo_lat: 38.7369,
      geo_lng: -9.1427,
    });
    expect(meetups[0].website).toBe("https://www.meetup.com/lisbon-js/events/300000042/");
    expect(meetups[0].description).toContain("<p>Talks &amp; pizza &lt;3.</p>");
  });
});

describe("the import sources API", () => {
  it("creates, lists, shows, updates and deletes a source, its events staying", async () => {
    const category = await createTermVia(server, "categories", { name: "From feeds" });
    feeds.feeds.set(
      "/api/one.ics",
      MEETUP_FEED.replace(/lisbon-js/g, "api-one")
        .replace(/JS Meetup/g, "API meetup")
        .replace(/3000000/g, "4000000"),
    );
    const created = await ok(
      admin("POST", "/imports", {
        url: feeds.urlOf("/api/one.ics").replace("http://", "webcal://"),
        frequency: "weekly",
        categories: [category.id],
        language: "pt-br",
        description: "API test",
      }),
      201,
    );
    expect(created.headers.get("location")).toBe(created.body.rest_url);
    expect(created.body).toMatchObject({
      // webcal:// is the same feed over https.
      url: feeds.urlOf("/api/one.ics").replace("http://", "https://"),
      frequency: "weekly",
      status: "publish",
      categories: [category.id],
      tags: [],
      language: "pt-br",
      on_removed: "trash",
      active: true,
      paused_reason: null,
      last_run: null,
      description: "API test",
    });
    // Due at once: the schedule takes it up within IMPORT_POLL_MS.
    expect(Date.parse(created.body.next_run_at)).toBeLessThanOrEqual(Date.now());
    const id = created.body.id;
    const patched = await ok(admin("PATCH", `/imports/${id}`, { url: feeds.urlOf("/api/one.ics"), active: false }));
    expect(patched.body).toMatchObject({ active: false, next_run_at: null, url: feeds.urlOf("/api/one.ics") });
    // Paused, it still runs when asked; its texts go in its language.
    const run = await runSource(id);
    expect(run).toMatchObject({ trigger: "manual", created: 2 });
    const shown = await ok(admin("GET", `/imports/${id}`));
    expect(shown.body.last_run).toEqual(run);
    const listed = await ok(admin("GET", "/imports?per_page=100"));
    expect(listed.body.imports.find((item: { id: number }) => item.id === id)).toEqual(shown.body);
    expect(Number(listed.headers.get("x-wp-total"))).toBe(listed.body.total);
    const runs = await ok(admin("GET", `/imports/${id}/runs`));
    expect(runs.body).toMatchObject({ total: 1, total_pages: 1, runs: [run] });
    const inPortuguese = await ok(server.raw("GET", `/pt-br${root}/events?search=API%20meetup&status=publish`));
    expect(inPortuguese.body.events.map((event: Listed) => event.categories.map((term) => term.id))).toEqual([
      [category.id],
      [category.id],
    ]);
    const deleted = await ok(admin("DELETE", `/imports/${id}`));
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id } });
    await ok(admin("GET", `/imports/${id}`), 404);
    await ok(admin("GET", `/imports/${id}/runs`), 404);
    await ok(admin("POST", `/imports/${id}/run`), 404);
    expect((await allEvents()).filter((event) => event.title.startsWith("API meetup"))).toHaveLength(2);
  });

  it("refuses what it cannot fetch from, unknown terms, and everyone but administrators", async () => {
    const refused = await ok(admin("POST", "/imports", { url: "http://169.254.169.254/latest/meta-data" }), 400);
    expect(refused.body.data.details.url).toMatchObject({ code: "rest_invalid_import_source" });
    const credentials = await ok(admin("POST", "/imports", { url: "https://user:pw@example.org/x.ics" }), 400);
    expect(credentials.body.data.details.url).toMatchObject({ code: "rest_invalid_import_source" });
    await ok(admin("POST", "/imports", { url: "ftp://example.org/x.ics" }), 400);
    const unknown = await ok(admin("POST", "/imports", { url: "https://example.org/x.ics", tags: [999999] }), 400);
    expect(unknown.body.data.details.tags).toMatchObject({ code: "rest_term_not_found" });
    await ok(admin("POST", "/imports", { url: "https://example.org/x.ics", frequency: "yearly" }), 400);
    const editor = await createUserWithCredentials(server.db, { login: "import-editor", role: "editor" });
    const asEditor = { Authorization: `Bearer ${editor.api_key}` };
    await ok(server.raw("GET", `${root}/imports`, { headers: asEditor }), 403);
    await ok(
      server.raw("POST", `${root}/imports`, { headers: asEditor, body: { url: "https://example.org/x.ics" } }),
      403,
    );
    await ok(server.raw("GET", `${root}/imports`), 401);
    // A source's runs: only administrators run them or read them.
    const source = await createSource({ url: "http://127.0.0.1:9/refused.ics", frequency: "manual" });
    await ok(server.raw("POST", `${root}/imports/${source.id}/run`, { headers: asEditor }), 403);
    await ok(server.raw("GET", `${root}/imports/${source.id}/runs`, { headers: asEditor }), 403);
    await ok(server.raw("POST", `${root}/imports/${source.id}/run`), 401);
    await ok(server.raw("GET", `${root}/imports/${source.id}/runs`), 401);
    // A new address is checked as a new source's is.
    const moved = await ok(
      admin("PATCH", `/imports/${source.id}`, { url: "http://169.254.169.254/latest/meta-data" }),
      400,
    );
    expect(moved.body.data.details.url).toMatchObject({ code: "rest_invalid_import_source" });
    await ok(admin("PATCH", `/imports/${source.id}`, { url: "https://user:pw@example.org/x.ics" }), 400);
  });

  it("writes as the administrator who made the source, and fails its runs once they may no longer", async () => {
    const owner = await createUserWithCredentials(server.db, { login: "import-owner", role: "administrator" });
    feeds.feeds.set(
      "/owned.ics",
      MEETUP_FEED.replace(/@meetup\.com/g, "@owned.example").replace(/JS Meetup/g, "Owned meetup"),
    );
    const created = await ok(
      server.raw("POST", `${root}/imports`, {
        headers: { Authorization: `Bearer ${owner.api_key}` },
        body: { url: feeds.urlOf("/owned.ics"), frequency: "manual" },
      }),
      201,
    );
    expect(await runSource(created.body.id)).toMatchObject({ status: "succeeded", created: 2 });
    const [event] = byTitle(await allEvents(), "Owned meetup #42");
    expect((await ok(admin("GET", `/events/${event.id}`))).body.author).toBe(String(owner.id));
    await server.db.write.user.update({ where: { id: owner.id }, data: { role: "editor" } });
    expect(await runSource(created.body.id)).toMatchObject({
      status: "failed",
      error: `its owner (user ${owner.id}) is gone or may no longer manage imports`,
    });
  });

  it("answers 202 for a run that goes on, 409 while it does, and records how it ended", async () => {
    feeds.hanging.add("/slow.ics");
    const source = await createSource({ url: feeds.urlOf("/slow.ics"), frequency: "manual" });
    const wait = server.config.imports.runWaitMs;
    server.config.imports.runWaitMs = 100;
    try {
      const started = await ok(admin("POST", `/imports/${source.id}/run`), 202);
      expect(started.body).toMatchObject({ status: "running", fetch: null, finished_at: null });
      const again = await ok(admin("POST", `/imports/${source.id}/run`), 409);
      expect(again.body).toMatchObject({ code: "rest_import_running" });
      const ended = await waitFor(async () => {
        const { body } = await ok(admin("GET", `/imports/${source.id}/runs`));
        return body.runs[0].status === "running" ? null : body.runs[0];
      });
      expect(ended).toMatchObject({
        id: started.body.id,
        status: "failed",
        error: expect.stringMatching(/no answer within 2000 ms/),
      });
    } finally {
      server.config.imports.runWaitMs = wait;
    }
  });
});

/** Polls `probe` until it gives a value (not null), for up to `timeoutMs`. */
async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("fetching a feed", () => {
  const options = { timeoutMs: 2000, maxBytes: 1_000_000, allowPrivate: true };
  const noValidators = { etag: null, lastModified: null };

  it("follows up to 3 redirects, each checked again, and asks for gzip", async () => {
    feeds.feeds.set("/moved/final.ics", MEETUP_FEED);
    feeds.redirects.set("/moved/1", "/moved/2");
    feeds.redirects.set("/moved/2", "/moved/3");
    feeds.redirects.set("/moved/3", feeds.urlOf("/moved/final.ics"));
    feeds.redirects.set("/moved/0", "/moved/1");
    const answer = await fetchFeed(feeds.urlOf("/moved/1"), noValidators, options);
    expect(answer).toMatchObject({ notModified: false, text: MEETUP_FEED, etag: expect.stringMatching(/^"/) });
    expect(feeds.requests.at(-1)).toMatchObject({ path: "/moved/final.ics", status: 200 });
    expect(feeds.requests.at(-1)!.headers["accept-encoding"]).toMatch(/gzip/);
    await expect(fetchFeed(feeds.urlOf("/moved/0"), noValidators, options)).rejects.toThrow("more than 3 redirects");
    // A redirect to an address that is refused is refused, wherever the first URL pointed.
    feeds.redirects.set("/moved/metadata", "http://169.254.169.254/latest/meta-data");
    await expect(fetchFeed(feeds.urlOf("/moved/metadata"), noValidators, options)).rejects.toThrow(/linkLocal/);
    // Loopback only when the operator allows private sources.
    await expect(fetchFeed(feeds.urlOf("/moved/1"), noValidators, { ...options, allowPrivate: false })).rejects.toThrow(
      /IMPORT_ALLOW_PRIVATE_SOURCES/,
    );
  });

  it("stops at the size bound, decompressed, and at the time limit", async () => {
    feeds.feeds.set("/big.ics", MEETUP_FEED + " ".repeat(200_000));
    await expect(fetchFeed(feeds.urlOf("/big.ics"), noValidators, { ...options, maxBytes: 100_000 })).rejects.toThrow(
      /larger than 100000 bytes/,
    );
    feeds.hanging.add("/hangs.ics");
    const started = Date.now();
    await expect(fetchFeed(feeds.urlOf("/hangs.ics"), noValidators, { ...options, timeoutMs: 300 })).rejects.toThrow(
      /no answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    // A feed whose head comes, then nothing: the same limit holds for the whole answer.
    feeds.stalling.add("/stalls.ics");
    const stalledAt = Date.now();
    await expect(fetchFeed(feeds.urlOf("/stalls.ics"), noValidators, { ...options, timeoutMs: 300 })).rejects.toThrow(
      /no answer within 300 ms|within 300 ms/,
    );
    expect(Date.now() - stalledAt).toBeLessThan(2000);
  });

  it("fails a run on a feed with more VEVENTs than IMPORT_MAX_EVENTS", async () => {
    feeds.feeds.set("/many.ics", MEETUP_FEED.replace(/@meetup\.com/g, "@many.example"));
    const source = await createSource({ url: feeds.urlOf("/many.ics"), frequency: "manual" });
    const bound = server.config.imports.maxEvents;
    server.config.imports.maxEvents = 1;
    try {
      expect(await runSource(source.id)).toMatchObject({
        status: "failed",
        created: 0,
        error: "the feed has more than 1 VEVENTs (IMPORT_MAX_EVENTS)",
      });
    } finally {
      server.config.imports.maxEvents = bound;
    }
  });

  it("fails a run on an answer that is not a feed, backs off, and pauses a source that keeps failing", async () => {
    feeds.failures.set("/gone.ics", 500);
    const source = await createSource({ url: feeds.urlOf("/gone.ics"), frequency: "hourly" });
    const nextRuns: number[] = [];
    for (let failure = 1; failure <= 5; failure++) {
      const run = await runSource(source.id);
      expect(run).toMatchObject({ status: "failed", error: "the source answered 500" });
      const shown = (await ok(admin("GET", `/imports/${source.id}`))).body;
      if (failure < 5) {
        expect(shown).toMatchObject({ active: true, paused_reason: null });
        nextRuns.push(Date.parse(shown.next_run_at) - Date.parse(run.finished_at));
      } else expect(shown).toMatchObject({ active: false, paused_reason: "failing", next_run_at: null });
    }
    // 5 minutes, doubled each time, up to the hour.
    expect(nextRuns).toEqual([300_000, 600_000, 1_200_000, 2_400_000]);
    feeds.feeds.set("/not-a-feed.ics", "<html>Sign in</html>");
    const other = await createSource({ url: feeds.urlOf("/not-a-feed.ics"), frequency: "manual" });
    expect(await runSource(other.id)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^not an iCalendar feed/),
    });
    // Resumed by an administrator: due again, its failures forgotten.
    feeds.failures.delete("/gone.ics");
    feeds.feeds.set("/gone.ics", MEETUP_FEED.replace(/@meetup\.com/g, "@gone.example"));
    const resumed = (await ok(admin("PATCH", `/imports/${source.id}`, { active: true }))).body;
    expect(resumed).toMatchObject({ active: true, paused_reason: null });
    expect(await runSource(source.id)).toMatchObject({ status: "succeeded" });
  });
});

describe("the schedule", () => {
  it("runs each due source once, whichever instances look for it, and then not before its frequency says", async () => {
    await server.db.write.importSource.updateMany({ data: { nextRunAt: null } });
    feeds.feeds.set("/scheduled.ics", MEETUP_FEED.replace(/@meetup\.com/g, "@scheduled.example"));
    const source = await createSource({ url: feeds.urlOf("/scheduled.ics"), frequency: "hourly" });
    const deps = runDependencies({
      db: server.db,
      config: server.config,
      logger: createLogger("silent"),
      bridges: BRIDGES,
    });
    const statuses: string[] = [];
    const told = (status: string) => statuses.push(status);
    const instances = [new ImportScheduler(deps, told), new ImportScheduler(deps, told)];
    const found = await Promise.all(instances.map((instance) => instance.runDue()));
    expect(found.sort()).toEqual([false, true]);
    expect(statuses).toEqual(["succeeded"]);
    const { body } = await ok(admin("GET", `/imports/${source.id}/runs`));
    expect(body.runs).toEqual([expect.objectContaining({ trigger: "scheduled", status: "succeeded", created: 2 })]);
    const shown = (await ok(admin("GET", `/imports/${source.id}`))).body;
    expect(Date.parse(shown.next_run_at) - Date.parse(body.runs[0].finished_at)).toBe(3_600_000);
    expect(await instances[0].runDue()).toBe(false);

    // Event Aggregator's other frequencies: every 30 minutes, and monthly (30 days).
    for (const [frequency, every] of [
      ["every30mins", 1_800_000],
      ["monthly", 30 * 86_400_000],
    ] as const) {
      const patched = (await ok(admin("PATCH", `/imports/${source.id}`, { frequency }))).body;
      expect(patched.frequency).toBe(frequency);
      const run = await runSource(source.id);
      const next = (await ok(admin("GET", `/imports/${source.id}`))).body.next_run_at;
      expect(Date.parse(next) - Date.parse(run.finished_at)).toBe(every);
    }
  });
});

describe("a round trip", () => {
  it("gives a second calendar the same events, series and exceptions as our own feed", async () => {
    const second = await startTestServer(IMPORT_ENV);
    try {
      // An image, which the feed carries as an ATTACH.
      const { body: listedBefore } = await ok(
        server.raw("GET", `${root}/events?start_date=2027-01-01&end_date=2027-12-31&per_page=100`),
      );
      const pictured = (listedBefore.events as Listed[]).find((event) => event.post_parent === 0)!;
      await ok(admin("PATCH", `/events/${pictured.id}`, { image: "https://images.example.org/round-trip.jpg" }));
      const feedUrl = `${server.base}/events.ics?start_date=2027-01-01&end_date=2027-12-31&per_page=100`;
      const created = await second.raw("POST", `${root}/imports`, {
        headers: ADMIN_HEADERS,
        body: { url: feedUrl, frequency: "manual" },
      });
      expect(created.status).toBe(201);
      const run = await second.raw("POST", `${root}/imports/${created.body.id}/run`, { headers: ADMIN_HEADERS });
      expect(run.body).toMatchObject({ status: "succeeded", failed: 0, errors: [] });
      const shape = (events: Listed[]) => {
        const ids = new Map(events.map((event) => [event.id, event.title]));
        return events
          .map((event) => ({
            title: event.title,
            start: event.start_date,
            end: event.end_date,
            timezone: event.timezone,
            all_day: event.all_day,
            series: event.post_parent === 0 ? null : ids.get(event.post_parent),
            recurrence_id: event.recurrence_id,
            detached: event.detached,
            rule: event.recurrence && { rrule: event.recurrence.rrule, exdate: event.recurrence.exdate },
            venue: Array.isArray(event.venue) ? null : event.venue.venue,
            image: event.image ? event.image.url : null,
          }))
          .sort((a, b) => (a.start + a.title).localeCompare(b.start + b.title));
      };
      const listed = async (target: TestServer) =>
        // As the feed shows them: what anonymous readers see.
        (await target.raw("GET", `${root}/events?start_date=2027-01-01&end_date=2027-12-31&per_page=100`)).body
          .events as Listed[];
      const ours = shape(await listed(server));
      expect(ours.length).toBeGreaterThanOrEqual(5);
      expect(ours.some((event) => event.image !== null)).toBe(true);
      expect(shape(await listed(second))).toEqual(ours);
    } finally {
      await second.close();
    }
  });
});

// Issue 47: what Google, Outlook and Apple write that the first reading got wrong. Dated December 2026
// (and the autumn before, for a DST change), out of the round trip's year, within the series' horizon.
describe("iCalendar as Google, Outlook and Apple write it", () => {
  const feedOf = (name: string, vevents: string[][], head: string[] = []) => {
    const path = `/defects/${name}.ics`;
    feeds.feeds.set(path, calendar(["BEGIN:VCALENDAR", "VERSION:2.0", ...head, ...vevents.flat(), "END:VCALENDAR"]));
    return path;
  };
  const vevent = (lines: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20261120T100000Z", ...lines, "END:VEVENT"];
  const importOf = async (path: string) => {
    const source = await createSource({ url: feeds.urlOf(path), frequency: "manual" });
    return { source, run: await runSource(source.id) };
  };
  const seriesAndOccurrences = (events: Listed[], title: string) => {
    const series = events.find((event) => event.title === title && event.post_parent === 0 && event.recurrence);
    return {
      series,
      occurrences: events.filter((event) => series && event.post_parent === series.id).map((event) => event.start_date),
    };
  };

  const WEEKLY_QUIZ = [
    "UID:quiz@google.com",
    "DTSTART;TZID=Europe/Lisbon:20261208T190000",
    "DTEND;TZID=Europe/Lisbon:20261208T210000",
    "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4",
    "SUMMARY:Pub quiz",
  ];

  it("makes an edited first occurrence an event of its own, the series starting at its second, run after run", async () => {
    const path = feedOf(
      "first-edited",
      [
        vevent(WEEKLY_QUIZ),
        vevent([
          "UID:quiz@google.com",
          "RECURRENCE-ID;TZID=Europe/Lisbon:20261208T190000",
          "DTSTART;TZID=Europe/Lisbon:20261208T200000",
          "DTEND;TZID=Europe/Lisbon:20261208T220000",
          "SUMMARY:Pub quiz (opening night)",
        ]),
      ],
      ["X-WR-TIMEZONE:Europe/Lisbon"],
    );
    const { source, run } = await importOf(path);
    expect(run).toMatchObject({ status: "succeeded", failed: 0, errors: [], created: 2 });
    let events = await allEvents();
    expect(byTitle(events, "Pub quiz (opening night)")).toEqual([
      expect.objectContaining({
        start_date: "2026-12-08 20:00:00",
        end_date: "2026-12-08 22:00:00",
        post_parent: 0,
        recurrence: null,
        status: "publish",
      }),
    ]);
    const { series, occurrences } = seriesAndOccurrences(events, "Pub quiz");
    // COUNT=4 from the 8th: the 15th is the series' own date now, and three remain of four.
    expect(series).toMatchObject({
      start_date: "2026-12-15 19:00:00",
      recurrence: { rrule: "FREQ=WEEKLY;COUNT=3;BYDAY=TU" },
    });
    expect(occurrences).toEqual(["2026-12-22 19:00:00", "2026-12-29 19:00:00"]);

    // The next run finds nothing to do, and fails nothing.
    feeds.validators = false;
    try {
      expect(await runSource(source.id)).toMatchObject({ failed: 0, created: 0, updated: 0, unchanged: 2 });

      // The override gone: the series has its first occurrence back, and the event made of it is trashed.
      feedOf("first-edited", [vevent(WEEKLY_QUIZ)], ["X-WR-TIMEZONE:Europe/Lisbon"]);
      expect(await runSource(source.id)).toMatchObject({ failed: 0, updated: 1, removed: 1 });
      events = await allEvents();
      expect(byTitle(events, "Pub quiz (opening night)")).toEqual([expect.objectContaining({ status: "trash" })]);
      const again = seriesAndOccurrences(events, "Pub quiz");
      expect(again.series).toMatchObject({ start_date: "2026-12-08 19:00:00" });
      expect(again.occurrences).toEqual(["2026-12-15 19:00:00", "2026-12-22 19:00:00", "2026-12-29 19:00:00"]);
    } finally {
      feeds.validators = true;
    }
  });

  it("starts a series whose first occurrence is cancelled at its next one, and so on while that one is overridden", async () => {
    const path = feedOf("first-cancelled", [
      vevent([...WEEKLY_QUIZ.map((line) => line.replace("quiz@", "cancelled-quiz@").replace("Pub quiz", "Darts"))]),
      vevent([
        "UID:cancelled-quiz@google.com",
        "RECURRENCE-ID;TZID=Europe/Lisbon:20261208T190000",
        "DTSTART;TZID=Europe/Lisbon:20261208T190000",
        "DTEND;TZID=Europe/Lisbon:20261208T210000",
        "SUMMARY:Darts",
        "STATUS:CANCELLED",
      ]),
      // The second, moved: the first of what is left.
      vevent([
        "UID:cancelled-quiz@google.com",
        "RECURRENCE-ID;TZID=Europe/Lisbon:20261215T190000",
        "DTSTART;TZID=Europe/Lisbon:20261216T190000",
        "DTEND;TZID=Europe/Lisbon:20261216T210000",
        "SUMMARY:Darts (on Wednesday)",
      ]),
    ]);
    expect((await importOf(path)).run).toMatchObject({ failed: 0, created: 2 });
    const events = await allEvents();
    const { series, occurrences } = seriesAndOccurrences(events, "Darts");
    expect(series).toMatchObject({
      start_date: "2026-12-22 19:00:00",
      recurrence: { rrule: "FREQ=WEEKLY;COUNT=2;BYDAY=TU" },
    });
    expect(occurrences).toEqual(["2026-12-29 19:00:00"]);
    expect(byTitle(events, "Darts (on Wednesday)")).toEqual([
      expect.objectContaining({ start_date: "2026-12-16 19:00:00", post_parent: 0, recurrence: null }),
    ]);
    expect(events.filter((event) => event.title.startsWith("Darts") && event.start_date < "2026-12-15")).toEqual([]);
  });

  it("trashes the event an edited first occurrence made once the feed cancels that occurrence", async () => {
    const quiz = WEEKLY_QUIZ.map((line) => line.replace("quiz@", "then-cancelled@").replace("Pub quiz", "Bingo"));
    const first = (status: string[]) =>
      vevent([
        "UID:then-cancelled@google.com",
        "RECURRENCE-ID;TZID=Europe/Lisbon:20261208T190000",
        "DTSTART;TZID=Europe/Lisbon:20261208T200000",
        "DTEND;TZID=Europe/Lisbon:20261208T220000",
        "SUMMARY:Bingo (opening night)",
        ...status,
      ]);
    const path = feedOf("first-edited-then-cancelled", [vevent(quiz), first([])]);
    const { source } = await importOf(path);
    expect(byTitle(await allEvents(), "Bingo (opening night)")).toEqual([
      expect.objectContaining({ status: "publish" }),
    ]);
    feedOf("first-edited-then-cancelled", [vevent(quiz), first(["STATUS:CANCELLED"])]);
    feeds.validators = false;
    try {
      expect(await runSource(source.id)).toMatchObject({ failed: 0 });
    } finally {
      feeds.validators = true;
    }
    const opening = byTitle(await allEvents(), "Bingo (opening night)");
    expect(opening.filter((event) => event.status === "publish")).toEqual([]);
  });

  it("keeps a series in a zone the feed defines under a localized name at its hour across a DST change", async () => {
    // Outlook in German: the zone is named in the reader's language, and defined by the feed only.
    const path = feedOf("outlook-localized", [
      ["BEGIN:VTIMEZONE", "TZID:Mitteleuropäische Zeit", ...CENTRAL_EUROPE_OBSERVANCES, "END:VTIMEZONE"],
      vevent([
        "UID:kolloquium@example.de",
        "DTSTART;TZID=Mitteleuropäische Zeit:20261007T140000",
        "DTEND;TZID=Mitteleuropäische Zeit:20261007T160000",
        "RRULE:FREQ=MONTHLY;BYDAY=1WE;COUNT=3",
        "SUMMARY:Kolloquium",
      ]),
    ]);
    // The site's zone is UTC, and the feed names no calendar zone.
    expect((await importOf(path)).run).toMatchObject({ failed: 0, created: 1 });
    const events = await allEvents();
    const { series, occurrences } = seriesAndOccurrences(events, "Kolloquium");
    expect(series).toMatchObject({ timezone: "Europe/Berlin", start_date: "2026-10-07 14:00:00" });
    // Summer time until 25 October: November's is still at 14:00 there, 13:00 UTC (October's 12:00).
    expect(occurrences).toEqual(["2026-11-04 14:00:00", "2026-12-02 14:00:00"]);
    const november = events.find((event) => event.post_parent === series!.id && event.start_date.startsWith("2026-11"));
    expect(november!.utc_start_date).toBe("2026-11-04 13:00:00");
    expect(series!.utc_start_date).toBe("2026-10-07 12:00:00");
  });

  it("reads X-ALT-DESC's escapes, Google's HTML in DESCRIPTION, and a line folded inside a character", async () => {
    const lines = calendar([
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "X-WR-TIMEZONE:Europe/Lisbon",
      ...vevent([
        "UID:alt@outlook.example",
        "DTSTART:20261210T180000Z",
        "SUMMARY:Alt text",
        "X-ALT-DESC;FMTTYPE=text/html:<p>One\\, two\\; three</p>\\n<p>Next</p>",
      ]),
      ...vevent([
        "UID:html@google.com",
        "DTSTART:20261211T180000Z",
        "SUMMARY:Google markup",
        'DESCRIPTION:<b>Bring</b> a friend<br><a href="https://example.org/tickets">Tickets</a>\\nSee you',
      ]),
      ...vevent(["UID:fold@google.com", "DTSTART:20261212T180000Z", "SUMMARY:Noite na Rua de São João da Praça"]),
      "END:VCALENDAR",
    ]);
    // Folded at 75 octets, as RFC 5545 asks, here between the two octets of "ã".
    const octets = Buffer.from(lines, "utf8");
    const within = octets.indexOf(Buffer.from("ã", "utf8")) + 1;
    feeds.feeds.set(
      "/defects/escapes.ics",
      Buffer.concat([octets.subarray(0, within), Buffer.from("\r\n "), octets.subarray(within)]),
    );
    expect((await importOf("/defects/escapes.ics")).run).toMatchObject({ failed: 0, created: 3 });
    const events = await allEvents();
    expect(byTitle(events, "Alt text")[0].description).toBe("<p>One, two; three</p>\n<p>Next</p>");
    expect(byTitle(events, "Google markup")[0].description).toBe(
      '<p><b>Bring</b> a friend<br /><a href="https://example.org/tickets">Tickets</a><br />See you</p>',
    );
    expect(byTitle(events, "Noite na Rua de São João da Praça")).toHaveLength(1);
  });

  it("makes Apple's LOCATION, a name and an address on lines of their own, a venue with its address, and an image the event's", async () => {
    const path = feedOf("apple", [
      vevent([
        "UID:apple-1@icloud.com",
        "DTSTART;TZID=Europe/Lisbon:20261216T210000",
        "DTEND;TZID=Europe/Lisbon:20261216T230000",
        "SUMMARY:Concert at the Coliseu",
        "LOCATION:Coliseu dos Recreios\\nRua das Portas de Santo Antão 96\\, 1150-268 Lisboa\\, Portugal",
        'X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="Rua das Portas de Santo Antão 96\\\\n1150-268 Lisboa\\\\nPortugal";X-APPLE-RADIUS=70;X-TITLE="Coliseu dos Recreios":geo:38.7157,-9.1413',
        "ATTACH;FMTTYPE=application/pdf:https://example.org/programme.pdf",
        "ATTACH;FMTTYPE=image/jpeg:https://images.example.org/coliseu.jpg",
      ]),
      vevent([
        "UID:badge@example.org",
        "DTSTART;TZID=Europe/Lisbon:20261218T210000",
        "SUMMARY:With a badge",
        "IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/png:https://images.example.org/badge.png",
      ]),
      vevent([
        "UID:inline@example.org",
        "DTSTART;TZID=Europe/Lisbon:20261219T210000",
        "SUMMARY:With an inline picture",
        "ATTACH;FMTTYPE=image/png;ENCODING=BASE64;VALUE=BINARY:iVBORw0KGgo=",
      ]),
    ]);
    expect((await importOf(path)).run).toMatchObject({ failed: 0, created: 3 });
    const events = await allEvents();
    // The image: an ATTACH that is one (not the PDF), RFC 7986's IMAGE; an inline one is not taken.
    expect(byTitle(events, "Concert at the Coliseu")[0].image).toMatchObject({
      url: "https://images.example.org/coliseu.jpg",
    });
    expect(byTitle(events, "With a badge")[0].image).toMatchObject({ url: "https://images.example.org/badge.png" });
    expect(byTitle(events, "With an inline picture")[0].image).toBe(false);
    // The address's other forms: location-venue.test.ts.
    expect(byTitle(events, "Concert at the Coliseu")[0].venue).toMatchObject({
      venue: "Coliseu dos Recreios",
      address: "Rua das Portas de Santo Antão 96",
      zip: "1150-268",
      city: "Lisboa",
      country: "Portugal",
      geo_lat: 38.7157,
      geo_lng: -9.1413,
    });
  });

  it("takes an IMAGE no URL parser reads as no image: the lists and the feed stay readable (issue 57)", async () => {
    const path = feedOf("unreadable-images", [
      ...["http://example.org:99999/a.jpg", "http://[x/a.jpg", "http://a.123/a.jpg"].map((url, at) =>
        vevent([
          `UID:unreadable-${at}@example.org`,
          `DTSTART;TZID=Europe/Lisbon:2026122${at}T210000`,
          `SUMMARY:Unreadable image ${at}`,
          `IMAGE;VALUE=URI:${url}`,
        ]),
      ),
    ]);
    expect((await importOf(path)).run).toMatchObject({ failed: 0, created: 3 });
    expect(
      (await allEvents()).filter((event) => event.title.startsWith("Unreadable image")).map((event) => event.image),
    ).toEqual([false, false, false]);
    await ok(server.raw("GET", `${root}/events?start_date=2026-12-01&end_date=2026-12-31&per_page=50`));
    await ok(server.raw("GET", `${root}/events.ics?start_date=2026-12-01&end_date=2026-12-31`));
  });
});

describe("a source's window", () => {
  /** A UTC time `days` from now, as iCalendar writes it. */
  const utc = (days: number) =>
    new Date(Date.now() + days * 86_400_000)
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
  const single = (uid: string, title: string, days: number) => [
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `DTSTART:${utc(days)}`,
    `DTEND:${utc(days + 0.1)}`,
    `SUMMARY:${title}`,
    "END:VEVENT",
  ];
  const series = (uid: string, title: string, days: number, rule: string) => [
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `DTSTART:${utc(days)}`,
    `DTEND:${utc(days + 0.1)}`,
    `RRULE:${rule}`,
    `SUMMARY:${title}`,
    "END:VEVENT",
  ];
  const titles = async () => {
    const { body } = await ok(
      admin("GET", "/events?search=Window&start_date=2020-01-01&end_date=2030-12-31&per_page=100"),
    );
    return (body.events as Listed[])
      .filter((event) => event.post_parent === 0)
      .map((event) => event.title)
      .sort();
  };

  it("writes no override of a series the window leaves out", async () => {
    feeds.feeds.set(
      "/window-overrides.ics",
      calendar([
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        ...series("w-far@example.org", "Window far series", 60, "FREQ=WEEKLY;COUNT=3"),
        "BEGIN:VEVENT",
        "UID:w-far@example.org",
        `RECURRENCE-ID:${utc(67)}`,
        `DTSTART:${utc(68)}`,
        `DTEND:${utc(68.1)}`,
        "SUMMARY:Window far series, moved",
        "END:VEVENT",
        "END:VCALENDAR",
      ]),
    );
    const source = await createSource({
      url: feeds.urlOf("/window-overrides.ics"),
      frequency: "manual",
      window: { days: 30 },
    });
    expect(await runSource(source.id)).toMatchObject({ failed: 0, created: 0, updated: 0 });
    const { body } = await ok(admin("GET", "/events?search=Window%20far&start_date=2020-01-01&end_date=2030-12-31"));
    expect(body.events).toEqual([]);
  });

  it("takes the events of the next days, or the next events, leaving the others as they are", async () => {
    feeds.feeds.set(
      "/window.ics",
      calendar([
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        ...single("w-past@example.org", "Window past", -3),
        ...single("w-soon@example.org", "Window soon", 10),
        ...single("w-later@example.org", "Window later", 60),
        ...series("w-ended@example.org", "Window ended series", -40, `FREQ=WEEKLY;UNTIL=${utc(-5)}`),
        ...series("w-endless@example.org", "Window endless series", -20, "FREQ=MONTHLY"),
        "END:VCALENDAR",
      ]),
    );
    const source = await createSource({ url: feeds.urlOf("/window.ics"), frequency: "manual", window: { days: 30 } });
    expect(source.window).toEqual({ days: 30 });
    expect(await runSource(source.id)).toMatchObject({ failed: 0, created: 2, unchanged: 0 });
    expect(await titles()).toEqual(["Window endless series", "Window soon"]);

    // The next event of those not over, by start: the endless series, imported already.
    const counted = (await ok(admin("PATCH", `/imports/${source.id}`, { window: { events: 1 } }))).body;
    expect(counted.window).toEqual({ events: 1 });
    expect(await runSource(source.id)).toMatchObject({ fetch: "fetched", created: 0, unchanged: 1, removed: 0 });
    expect(await titles()).toEqual(["Window endless series", "Window soon"]);

    // No window: every event, the past ones too.
    expect((await ok(admin("PATCH", `/imports/${source.id}`, { window: null }))).body.window).toBeNull();
    expect(await runSource(source.id)).toMatchObject({ created: 3, unchanged: 2 });
    expect(await titles()).toEqual([
      "Window ended series",
      "Window endless series",
      "Window later",
      "Window past",
      "Window soon",
    ]);
    expect((await admin("PATCH", `/imports/${source.id}`, { window: { days: 0 } })).status).toBe(400);
    expect((await admin("PATCH", `/imports/${source.id}`, { window: { days: 3, events: 2 } })).status).toBe(400);
  });
});

describe("a source's update authority", () => {
  const feed = (title: string, description: string) =>
    calendar([
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:authority@example.org",
      "DTSTAMP:20261120T100000Z",
      "DTSTART:20270410T180000Z",
      "DTEND:20270410T200000Z",
      `SUMMARY:${title}`,
      `DESCRIPTION:${description}`,
      "LOCATION:Hall A",
      "END:VEVENT",
      "END:VCALENDAR",
    ]);
  const theEvent = async () => {
    const { body } = await ok(admin("GET", "/events?search=Authority&start_date=2027-04-01&end_date=2027-04-30"));
    return (body.events as Listed[])[0];
  };

  it("keeps a group of fields edited here whole: a start moved here keeps its end when the feed moves the end", async () => {
    const timed = (end: string) =>
      calendar([
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "BEGIN:VEVENT",
        "UID:authority-dates@example.org",
        "DTSTART:20270412T180000Z",
        `DTEND:${end}`,
        "SUMMARY:Authority dates",
        "END:VEVENT",
        "END:VCALENDAR",
      ]);
    feeds.feeds.set("/authority-dates.ics", timed("20270412T200000Z"));
    const source = await createSource({
      url: feeds.urlOf("/authority-dates.ics"),
      frequency: "manual",
      update_authority: "preserve_changes",
    });
    expect(await runSource(source.id)).toMatchObject({ created: 1, failed: 0 });
    const { body } = await ok(
      admin("GET", "/events?search=Authority%20dates&start_date=2027-04-01&end_date=2027-04-30"),
    );
    const id = body.events[0].id;
    await ok(admin("PATCH", `/events/${id}`, { start_date: "2027-04-12 17:00:00" }));
    feeds.feeds.set("/authority-dates.ics", timed("20270412T230000Z"));
    expect(await runSource(source.id)).toMatchObject({ updated: 1, failed: 0 });
    const after = (await ok(admin("GET", `/events/${id}`))).body;
    expect([after.start_date, after.end_date]).toEqual(["2027-04-12 17:00:00", "2027-04-12 20:00:00"]);
  });

  it.each(["retain", "preserve_changes"])(
    "brings an event back from the trash the import moved it to when it is back in the feed (%s)",
    async (authority) => {
      const uid = `back-${authority}@example.org`;
      const feed = (withEvent: boolean) =>
        calendar([
          "BEGIN:VCALENDAR",
          "VERSION:2.0",
          ...(withEvent
            ? [
                "BEGIN:VEVENT",
                `UID:${uid}`,
                "DTSTART:20270420T180000Z",
                "DTEND:20270420T190000Z",
                `SUMMARY:Back ${authority}`,
                "END:VEVENT",
              ]
            : []),
          "END:VCALENDAR",
        ]);
      feeds.feeds.set(`/back-${authority}.ics`, feed(true));
      const source = await createSource({
        url: feeds.urlOf(`/back-${authority}.ics`),
        frequency: "manual",
        update_authority: authority,
      });
      expect(await runSource(source.id)).toMatchObject({ created: 1 });
      feeds.feeds.set(`/back-${authority}.ics`, feed(false));
      expect(await runSource(source.id)).toMatchObject({ removed: 1 });
      feeds.feeds.set(`/back-${authority}.ics`, feed(true));
      expect(await runSource(source.id)).toMatchObject({ updated: 1, failed: 0 });
      const { body } = await ok(
        admin(
          "GET",
          `/events?search=Back%20${authority}&start_date=2027-04-01&end_date=2027-04-30&status=publish,trash`,
        ),
      );
      expect(body.events.map((event: Listed) => event.status)).toEqual(["publish"]);
    },
  );

  it("keeps the fields edited here with preserve_changes, writes nothing with retain, and everything with overwrite", async () => {
    feeds.feeds.set("/authority.ics", feed("Authority talk", "One"));
    const source = await createSource({
      url: feeds.urlOf("/authority.ics"),
      frequency: "manual",
      update_authority: "preserve_changes",
    });
    expect(source.update_authority).toBe("preserve_changes");
    expect(await runSource(source.id)).toMatchObject({ created: 1, failed: 0 });
    const { id } = await theEvent();
    await ok(admin("PATCH", `/events/${id}`, { title: "Authority talk (edited here)" }));

    // The feed changes its title and its description: the title edited here stays.
    feeds.feeds.set("/authority.ics", feed("Authority talk, new title", "Two"));
    expect(await runSource(source.id)).toMatchObject({ updated: 1, failed: 0 });
    expect(await theEvent()).toMatchObject({ title: "Authority talk (edited here)", description: "<p>Two</p>" });

    // retain: a changed VEVENT writes nothing to its event.
    await ok(admin("PATCH", `/imports/${source.id}`, { update_authority: "retain" }));
    feeds.feeds.set("/authority.ics", feed("Authority talk, newer title", "Three"));
    expect(await runSource(source.id)).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await theEvent()).toMatchObject({ title: "Authority talk (edited here)", description: "<p>Two</p>" });

    // overwrite: the feed's fields as it says them.
    await ok(admin("PATCH", `/imports/${source.id}`, { update_authority: "overwrite" }));
    feeds.feeds.set("/authority.ics", feed("Authority talk, newest title", "Four"));
    expect(await runSource(source.id)).toMatchObject({ updated: 1 });
    expect(await theEvent()).toMatchObject({ title: "Authority talk, newest title", description: "<p>Four</p>" });
    expect((await admin("PATCH", `/imports/${source.id}`, { update_authority: "sometimes" })).status).toBe(400);
  });
});
