// iCalendar import sources (issue 32): feeds served on loopback as Google Calendar, Outlook and
// Meetup export them become events (zones, all-day, series with exceptions and overrides,
// cancellations, venues, organizers, categories), kept in step run after run: an unchanged feed
// writes nothing, a changed or shortened one updates and removes what it should.
import { startFeedServer, type FeedServer } from "./support/feed-server";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";
import { createTermVia } from "./support/fixtures";

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
    expect(series.venue).toMatchObject({ venue: "Clube de Fado, Rua S. João da Praça 94, Lisboa" });
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
    const original = feeds.feeds.get(path)!;
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
    const original = feeds.feeds.get(path)!;
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
      const original = feeds.feeds.get(path)!;
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
      feeds.feeds.set(path, original);
    } finally {
      feeds.validators = true;
    }
  });

  it("keeps events that left the feed when the source says so", async () => {
    await ok(admin("PATCH", `/imports/${source.id}`, { on_removed: "keep" }));
    const original = feeds.feeds.get(path)!;
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
