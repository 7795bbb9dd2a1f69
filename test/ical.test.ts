// iCalendar feeds (README "Calendar feeds"): events as text/calendar, by Accept or by `ical=1`,
// read back with an independent parser (node-ical): every field, time zones across DST changes,
// all-day dates, stable UIDs, SEQUENCE and LAST-MODIFIED that move with edits, cancellations,
// entity tags, the size bound.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import * as ical from "node-ical";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const root = "/calendar/events/v1";

async function createEvent(body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const response = await server.raw("POST", `${root}/events`, { body, headers: ADMIN_HEADERS });
  expect([response.status, response.status === 201 ? "" : response.text]).toEqual([201, ""]);
  return response.body;
}

/** A calendar answer, checked as such, parsed by node-ical: its VEVENTs by UID, and its VTIMEZONE ids. */
function parsed(response: RawResponse) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/calendar; charset=utf-8/);
  expect(response.headers.get("etag")).toMatch(/^"/);
  expect(response.text.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
  const components = Object.values(ical.sync.parseICS(response.text)).filter((component) => component !== undefined);
  const events = components.filter((component): component is ical.VEvent => component.type === "VEVENT");
  const zones = components
    .filter((component) => component.type === "VTIMEZONE")
    .map((zone) => (zone as unknown as { tzid: string }).tzid);
  return { events, zones, byUid: (id: number) => events.find((event) => event.uid.startsWith(`event-${id}@`)) };
}

const feed = (query = "", headers: Record<string, string> = {}) =>
  server.raw("GET", `${root}/events?ical=1${query}`, { headers });

describe("iCalendar feeds of events", () => {
  it("writes every field a calendar app reads, chosen by ical=1 or by Accept, and the same filters as the list", async () => {
    const venue = await createLinkedVia(server, "venues", {
      venue: "Feed hall",
      address: "Rua Augusta 1",
      city: "Lisboa",
      country: "Portugal",
      geo_lat: 38.71,
      geo_lng: -9.14,
    });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Feed org", email: "org@example.org" });
    const category = await createTermVia(server, "categories", { name: "Feed music" });
    const tag = await createTermVia(server, "tags", { name: "Feed jazz" });
    const event = await createEvent({
      title: "Feed concert, with; commas",
      description: "<p>First line</p><p>Second line</p>",
      start_date: "+5 days 19:00",
      end_date: "+5 days 21:00",
      timezone: "Europe/Lisbon",
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
    });
    const other = await createEvent({ title: "Feed other", start_date: "+5 days 10:00", end_date: "+5 days 11:00" });
    const json = (await server.raw("GET", `${root}/events/${event.id}`)).body;

    const byParam = await feed(`&categories=${category.id}`);
    const byAccept = await server.raw("GET", `${root}/events?categories=${category.id}`, {
      headers: { Accept: "text/calendar" },
    });
    expect(byAccept.text).toBe(byParam.text);
    expect(byParam.headers.get("vary")).toMatch(/Accept/);
    const { events, zones, byUid } = parsed(byParam);
    expect(events).toHaveLength(1);
    expect(byUid(other.id)).toBeUndefined();
    const vevent = byUid(event.id)!;
    expect(vevent.summary).toBe("Feed concert, with; commas");
    expect(vevent.description).toContain("First line");
    expect(vevent.description).toContain("Second line");
    expect(new Date(vevent.start as unknown as Date).toISOString()).toBe(
      new Date(`${json.utc_start_date.replace(" ", "T")}Z`).toISOString(),
    );
    expect(new Date(vevent.end as unknown as Date).toISOString()).toBe(
      new Date(`${json.utc_end_date.replace(" ", "T")}Z`).toISOString(),
    );
    expect((vevent.start as unknown as { tz: string }).tz).toBe("Europe/Lisbon");
    expect(zones).toContain("Europe/Lisbon");
    expect(vevent.location).toBe("Feed hall, Rua Augusta 1, Lisboa, Portugal");
    expect(vevent.geo).toEqual({ lat: 38.71, lon: -9.14 });
    expect(String((vevent.organizer as unknown as { val: string }).val).toLowerCase()).toBe("mailto:org@example.org");
    expect(vevent.categories).toEqual(["Feed music", "Feed jazz"]);
    expect((vevent.url as unknown as { val: string }).val).toBe(json.url);
    expect(vevent.status).toBe("CONFIRMED");
    // JSON stays the default.
    expect((await server.raw("GET", `${root}/events?categories=${category.id}`)).headers.get("content-type")).toMatch(
      /json/,
    );
  });

  it("gives an ORGANIZER for the address an organizer's e-mail text holds, and none for text that holds none", async () => {
    const named = await createLinkedVia(server, "organizers", {
      organizer: "Named org",
      email: "Info <info@example.test>",
    });
    const unreadable = await createLinkedVia(server, "organizers", { organizer: "Odd org", email: "not-an-email" });
    const withName = await createEvent({
      title: "Feed named organizer",
      start_date: "+7 days 09:00",
      end_date: "+7 days 10:00",
      organizer: [unreadable.id, named.id],
    });
    const withoutAddress = await createEvent({
      title: "Feed odd organizer",
      start_date: "+7 days 11:00",
      end_date: "+7 days 12:00",
      organizer: [unreadable.id],
    });
    const first = parsed(await server.raw("GET", `${root}/events/${withName.id}?ical=1`)).byUid(withName.id)!;
    expect(String((first.organizer as unknown as { val: string }).val).toLowerCase()).toBe("mailto:info@example.test");
    const second = parsed(await server.raw("GET", `${root}/events/${withoutAddress.id}?ical=1`)).byUid(
      withoutAddress.id,
    )!;
    expect(second.organizer).toBeUndefined();
  });

  it("takes ical=TRUE (a flag in any case), and the contract declares it so", async () => {
    await createEvent({ title: "Feed shouted", start_date: "+8 days 09:00", end_date: "+8 days 10:00" });
    const shouted = await server.raw("GET", `${root}/events?ical=TRUE`);
    expect(shouted.status).toBe(200);
    expect(shouted.headers.get("content-type")).toMatch(/^text\/calendar/);
    // What tools read: each flag schema takes the words the service reads, in any case, and no other.
    const document = JSON.parse(readFileSync(resolve(__dirname, "../generated/openapi.json"), "utf8"));
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(document, "openapi.json");
    const accepts = (schema: string, value: string) =>
      ajv.compile({ $ref: `openapi.json#/components/schemas/${schema}` })(value);
    for (const word of ["TRUE", "False", "true", "1"]) expect([word, accepts("QueryFlag", word)]).toEqual([word, true]);
    for (const word of ["YES", "Off", "Enabled"]) expect([word, accepts("TruthyFlag", word)]).toEqual([word, true]);
    for (const word of ["ON", "No"]) expect([word, accepts("PhpBooleanFlag", word)]).toEqual([word, true]);
    for (const word of ["yes", "TRUEE", ""]) expect([word, accepts("QueryFlag", word)]).toEqual([word, false]);
    expect((await server.raw("GET", `${root}/events?ical=yes`)).status).toBe(400);
  });

  it("keeps the UID across edits, moves SEQUENCE and LAST-MODIFIED, and revalidates with the ETag", async () => {
    const event = await createEvent({ title: "Feed edited", start_date: "+6 days 09:00", end_date: "+6 days 10:00" });
    const first = await server.raw("GET", `${root}/events/${event.id}?ical=1`);
    const before = parsed(first).byUid(event.id)!;
    const etag = first.headers.get("etag")!;
    expect(
      (await server.raw("GET", `${root}/events/${event.id}?ical=1`, { headers: { "If-None-Match": etag } })).status,
    ).toBe(304);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(
      (
        await server.raw("PATCH", `${root}/events/${event.id}`, {
          body: { title: "Feed edited again" },
          headers: ADMIN_HEADERS,
        })
      ).status,
    ).toBe(200);
    const second = await server.raw("GET", `${root}/events/by-slug/${event.slug}`, {
      headers: { Accept: "text/calendar" },
    });
    expect(second.headers.get("etag")).not.toBe(etag);
    const after = parsed(second).byUid(event.id)!;
    expect(after.uid).toBe(before.uid);
    expect(Number(after.sequence)).toBeGreaterThan(Number(before.sequence));
    expect(after.lastmodified!.getTime()).toBeGreaterThan(before.lastmodified!.getTime());
    expect(after.summary).toBe("Feed edited again");
  });

  it("keeps local times across DST changes, with a VTIMEZONE for every zone, and writes all-day events as dates", async () => {
    const beforeChange = await createEvent({
      title: "Feed DST before",
      start_date: "2027-03-27 19:00:00",
      end_date: "2027-03-27 20:00:00",
      timezone: "Europe/Lisbon",
    });
    const afterChange = await createEvent({
      title: "Feed DST after",
      start_date: "2027-03-29 19:00:00",
      end_date: "2027-03-29 20:00:00",
      timezone: "Europe/Lisbon",
    });
    const newYork = await createEvent({
      title: "Feed New York",
      start_date: "2027-11-08 19:00:00",
      end_date: "2027-11-08 20:00:00",
      timezone: "America/New_York",
    });
    const allDay = await createEvent({
      title: "Feed all day",
      start_date: "2027-04-10",
      end_date: "2027-04-11",
      all_day: true,
    });
    const { byUid, zones } = parsed(await feed("&start_date=2027-03-01&end_date=2027-12-31"));
    expect(new Date(byUid(beforeChange.id)!.start as unknown as Date).toISOString()).toBe("2027-03-27T19:00:00.000Z");
    expect(new Date(byUid(afterChange.id)!.start as unknown as Date).toISOString()).toBe("2027-03-29T18:00:00.000Z");
    expect(new Date(byUid(newYork.id)!.start as unknown as Date).toISOString()).toBe("2027-11-09T00:00:00.000Z");
    expect(zones.sort()).toEqual(["America/New_York", "Europe/Lisbon"]);
    const day = byUid(allDay.id)!;
    expect((day.start as unknown as { dateOnly: boolean }).dateOnly).toBe(true);
    expect(day.datetype).toBe("date");
    const text = (await feed("&start_date=2027-03-01&end_date=2027-12-31")).text;
    expect(text).toContain("DTSTART;VALUE=DATE:20270410\r\n");
    // RFC 5545: DTEND of an all-day event is the day after its last.
    expect(text).toContain("DTEND;VALUE=DATE:20270412\r\n");
  });

  it("shows the request's language, and cancels the events of its window that were published and are in the trash", async () => {
    const event = await createEvent({
      title: "Feed in English",
      start_date: "+8 days 10:00",
      end_date: "+8 days 11:00",
    });
    expect(
      (
        await server.raw("PATCH", `${root}/events/${event.id}?i18n_language=es`, {
          body: { title: "Evento del feed" },
          headers: ADMIN_HEADERS,
        })
      ).status,
    ).toBe(200);
    expect(parsed(await server.raw("GET", `/es${root}/events?ical=1`)).byUid(event.id)!.summary).toBe(
      "Evento del feed",
    );
    const draft = await createEvent({
      title: "Feed draft never published",
      status: "draft",
      start_date: "+8 days 12:00",
      end_date: "+8 days 13:00",
    });
    await server.raw("DELETE", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    await server.raw("DELETE", `${root}/events/${draft.id}`, { headers: ADMIN_HEADERS });
    const { byUid } = parsed(await feed());
    expect(byUid(event.id)!.status).toBe("CANCELLED");
    expect(byUid(draft.id)).toBeUndefined();
  });

  it("cuts a feed at its size bound and says so", async () => {
    const small = await startTestServer({ FEED_MAX_EVENTS: "2" });
    try {
      for (let i = 0; i < 3; i += 1) {
        const response = await small.raw("POST", `${root}/events`, {
          body: { title: `Bounded ${i}`, start_date: `+${i + 1} days`, end_date: `+${i + 1} days 1 hour` },
          headers: ADMIN_HEADERS,
        });
        expect(response.status).toBe(201);
      }
      const response = await small.raw("GET", `${root}/events?ical=1&per_page=1`);
      expect(parsed(response).events.map((event) => event.summary)).toEqual(["Bounded 0", "Bounded 1"]);
      expect(response.headers.get("x-feed-truncated")).toBe("true");
    } finally {
      await small.close();
    }
    // And at FEED_MAX_BYTES: the events that fit, whole.
    const bytes = await startTestServer({ FEED_MAX_BYTES: "65536" });
    try {
      for (let i = 0; i < 4; i += 1) {
        const body = {
          title: `Long ${i}`,
          description: `<p>${"A long description. ".repeat(600)}</p>`,
          start_date: `+${i + 1} days`,
          end_date: `+${i + 1} days 1 hour`,
        };
        expect((await bytes.raw("POST", `${root}/events`, { body, headers: ADMIN_HEADERS })).status).toBe(201);
      }
      const response = await bytes.raw("GET", `${root}/events?ical=1`);
      expect(Buffer.byteLength(response.text)).toBeLessThanOrEqual(65536);
      expect(parsed(response).events.map((event) => event.summary)).toEqual(["Long 0", "Long 1"]);
      expect(response.headers.get("x-feed-truncated")).toBe("true");
    } finally {
      await bytes.close();
    }
  });

  it("keeps a description's paragraphs, line breaks and list items on lines of their own, with its HTML beside, and ends every line with CRLF", async () => {
    const event = await createEvent({
      title: "Shaped text",
      description:
        "<p>First paragraph &amp; more.</p><p>Second line one<br>second line two</p><ul><li>One</li><li>Two</li></ul>",
      start_date: "+5 days 10:00",
      end_date: "+5 days 11:00",
    });
    const response = await server.raw("GET", `${root}/events/${event.id}?ical=1`);
    const [vevent] = parsed(response).events;
    expect(vevent.description).toBe("First paragraph & more.\n\nSecond line one\nsecond line two\n\n- One\n- Two");
    expect(response.text).toMatch(/X-ALT-DESC;FMTTYPE=text\/html:<p>First paragraph/);
    expect(response.text.endsWith("END:VCALENDAR\r\n")).toBe(true);
    expect(
      response.text
        .split("\r\n")
        .slice(0, -1)
        .every((line) => !line.includes("\n")),
    ).toBe(true);
  });

  it("serves feeds a generated client reads as text: /events.ics and /events/{id}.ics answer text/calendar only, under every prefix", async () => {
    const category = await createTermVia(server, "categories", { name: "Feed address" });
    const event = await createEvent({
      title: "Feed by address",
      start_date: "+7 days 18:00",
      end_date: "+7 days 19:00",
      categories: [category.id],
    });
    const asJson = { Accept: "application/json" };
    const list = await server.raw("GET", `${root}/events.ics?categories=${category.id}`, { headers: asJson });
    expect(list.text).toBe((await feed(`&categories=${category.id}`)).text);
    expect(list.headers.get("content-disposition")).toBe('inline; filename="events.ics"');
    expect(parsed(list).events.map((vevent) => vevent.summary)).toEqual(["Feed by address"]);
    const spanish = await server.raw("GET", `/es${root}/events.ics?categories=${category.id}`);
    expect(parsed(spanish).byUid(event.id)).toBeDefined();
    expect(spanish.headers.get("content-language")).toBe("es");
    // Paging is not the feed's: `page` is not one of its parameters, and is ignored as unknown ones are.
    expect((await server.raw("GET", `${root}/events.ics?categories=${category.id}&page=9`)).text).toBe(list.text);
    expect((await server.raw("GET", `${root}/events.ics?featured=maybe`)).body.code).toBe("rest_invalid_param");

    const one = await server.raw("GET", `${root}/events/${event.id}.ics`, { headers: asJson });
    expect(one.text).toBe((await server.raw("GET", `${root}/events/${event.id}?ical=1`)).text);
    expect(one.headers.get("content-disposition")).toBe(`inline; filename="event-${event.id}.ics"`);
    const etag = one.headers.get("etag")!;
    const again = await server.raw("GET", `${root}/events/${event.id}.ics`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    const missing = await server.raw("GET", `${root}/events/99999999.ics`);
    expect([missing.status, missing.body.code]).toEqual([404, "rest-event-not-found"]);
    expect((await server.raw("GET", `${root}/events/${event.id}x.ics`)).status).toBe(404);

    const index = (await server.raw("GET", root)).body as { routes: Record<string, unknown> };
    expect(Object.keys(index.routes)).toEqual(
      expect.arrayContaining([`/${root.slice(1)}/events\\.ics`, `/${root.slice(1)}/events/(?P<id>\\d+)\\.ics`]),
    );
  });

  it("reads ical as true or false, 1 or 0, in any case, and refuses other words", async () => {
    const event = await createEvent({ title: "Feed flags", start_date: "+8 days 18:00", end_date: "+8 days 19:00" });
    for (const word of ["1", "true", "TRUE"])
      expect((await server.raw("GET", `${root}/events/${event.id}?ical=${word}`)).text).toMatch(/^BEGIN:VCALENDAR/);
    for (const word of ["0", "false", "False"])
      expect((await server.raw("GET", `${root}/events/${event.id}?ical=${word}`)).body.id).toBe(event.id);
    const refused = await server.raw("GET", `${root}/events/${event.id}?ical=yes`);
    expect([refused.status, refused.body.code, Object.keys(refused.body.data.params)]).toEqual([
      400,
      "rest_invalid_param",
      ["ical"],
    ]);
  });
});
