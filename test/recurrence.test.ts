// Recurring events (README "Recurring events"): a series made with one request, its occurrences
// as events of their own (lists, post_parent, slugs), expanded in the event's zone across DST
// changes and month ends; one occurrence moved or cancelled, kept when the series' rule changes;
// the series' edits reaching the occurrences to come; the iCalendar feed writing the series once
// (RRULE, EXDATE, RECURRENCE-ID overrides), read back with node-ical; limits; concurrent edits.
import * as ical from "node-ical";
import { extendSeries } from "../src/resources/events/event-series";
import { fixedClock, NOW } from "./support/events";
import { createLinkedVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

jest.setTimeout(90_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(async () => {
  await server.close();
});

const root = "/calendar/events/v1";

async function send(
  method: "POST" | "PATCH" | "DELETE",
  path: string,
  body?: Record<string, unknown>,
  status = method === "POST" ? 201 : 200,
): Promise<RawResponse> {
  const response = await server.raw(method, `${root}${path}`, { body, headers: ADMIN_HEADERS });
  expect([response.status, response.status === status ? "" : response.text]).toEqual([status, ""]);
  return response;
}

interface Listed {
  id: number;
  title: string;
  slug: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  post_parent: number;
  recurrence_id: string | null;
  detached: boolean;
  status: string;
}

/** The occurrences of a series (not the series itself), in date order, as the list shows them to an administrator. */
async function occurrences(seriesId: number, status = "publish,draft"): Promise<Listed[]> {
  const response = await server.raw(
    "GET",
    `${root}/events?post_parent=${seriesId}&start_date=2020-01-01&end_date=2030-12-31&per_page=50&status=${status}`,
    { headers: ADMIN_HEADERS },
  );
  expect(response.status).toBe(200);
  return response.body.events;
}

const starts = (events: Listed[]) => events.map((event) => event.start_date);

describe("a weekly class", () => {
  let series: { id: number; slug: string };

  it("is made with one request: the series is its first class, every later one an event of its own", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Dance studio" });
    const created = await send("POST", "/events", {
      title: "Tango class",
      start_date: "2027-03-02 19:00",
      end_date: "2027-03-02 20:30",
      timezone: "Europe/Lisbon",
      venue: venue.id,
      recurrence: { rrule: "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8" },
    });
    series = created.body;
    expect(created.body.recurrence).toEqual({
      rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=8",
      rdate: [],
      exdate: [],
      occurrences_until: expect.stringMatching(/^2027-11-2\d /),
    });
    expect(created.body).toMatchObject({ recurrence_id: null, detached: false, post_parent: 0 });
    const weekly = await occurrences(series.id);
    // COUNT counts the series' own date: seven more.
    expect(starts(weekly)).toEqual(
      ["2027-03-09", "2027-03-16", "2027-03-23", "2027-03-30", "2027-04-06", "2027-04-13", "2027-04-20"].map(
        (day) => `${day} 19:00:00`,
      ),
    );
    expect(weekly.map((event) => event.end_date.slice(11))).toEqual(weekly.map(() => "20:30:00"));
    // 19:00 in Lisbon stays 19:00 across the change to summer time on 28 March: 19:00 then 18:00 UTC.
    expect(weekly.map((event) => event.utc_start_date.slice(11))).toEqual([
      "19:00:00",
      "19:00:00",
      "19:00:00",
      "18:00:00",
      "18:00:00",
      "18:00:00",
      "18:00:00",
    ]);
    for (const event of weekly) {
      expect(event).toMatchObject({
        title: "Tango class",
        post_parent: series.id,
        detached: false,
        recurrence_id: event.start_date,
      });
      expect(event.slug).toBe(`tango-class-${event.start_date.slice(0, 10)}`);
    }
    expect(new Set(weekly.map((event) => event.id)).size).toBe(7);
    // Read like any event, with its venue.
    const one = await server.raw("GET", `${root}/events/by-slug/tango-class-2027-03-16`);
    expect(one.body).toMatchObject({ id: weekly[1].id, venue: { venue: "Dance studio" }, recurrence: null });
    // And listed in its week like any event.
    const week = await server.raw("GET", `${root}/events?start_date=2027-03-15&end_date=2027-03-21`);
    expect(week.body.events.map((event: Listed) => event.id)).toEqual([weekly[1].id]);
  });

  it("has one week moved and one cancelled, and keeps both when the series' rule changes", async () => {
    const [, second, third] = await occurrences(series.id);
    const moved = await send("PATCH", `/events/${second.id}`, {
      start_date: "2027-03-17 19:30",
      end_date: "2027-03-17 21:00",
      title: "Tango class (Wednesday this week)",
    });
    expect(moved.body).toMatchObject({
      detached: true,
      recurrence_id: "2027-03-16 19:00:00",
      start_date: "2027-03-17 19:30:00",
    });
    const movedId = moved.body.id;
    await send("DELETE", `/events/${third.id}`);
    const afterCancel = (await server.raw("GET", `${root}/events/${series.id}`)).body;
    expect(afterCancel.recurrence.exdate).toEqual(["2027-03-23 19:00:00"]);

    // The series renamed, moved to 19:15 and made longer (ten classes, counted before the EXDATE
    // takes one out, as RFC 5545 counts): the occurrences to come follow.
    const changed = await send("PATCH", `/events/${series.id}`, {
      title: "Argentine tango class",
      start_date: "2027-03-02 19:15",
      end_date: "2027-03-02 20:45",
      recurrence: { rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=10" },
    });
    expect(changed.body.recurrence.rrule).toBe("FREQ=WEEKLY;BYDAY=TU;COUNT=10");
    const now = await occurrences(series.id);
    const byStart = new Map(now.map((event) => [event.start_date, event]));
    // The moved week keeps its own day, time and title; the cancelled one stays cancelled.
    // (Its RECURRENCE-ID moved with the series: it overrides the 19:15 instance now.)
    expect(byStart.get("2027-03-17 19:30:00")).toMatchObject({
      id: movedId,
      title: "Tango class (Wednesday this week)",
      detached: true,
      recurrence_id: "2027-03-16 19:15:00",
    });
    expect(now.find((event) => event.id === third.id)).toBeUndefined();
    expect((await server.raw("GET", `${root}/events/${third.id}`, { headers: ADMIN_HEADERS })).body.code).toBe(
      "event-no-longer-available",
    );
    // Its EXDATE moved with the series' start, and stays even though the write gave none.
    expect(changed.body.recurrence.exdate).toEqual(["2027-03-23 19:15:00"]);
    const following = now.filter((event) => !event.detached);
    expect(starts(following)).toEqual(
      ["2027-03-09", "2027-03-30", "2027-04-06", "2027-04-13", "2027-04-20", "2027-04-27", "2027-05-04"].map(
        (day) => `${day} 19:15:00`,
      ),
    );
    expect(
      following.every((event) => event.title === "Argentine tango class" && event.end_date.endsWith("20:45:00")),
    ).toBe(true);
  });

  it("has the series' edits reach the occurrences to come, and not those edited on their own", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Bigger studio" });
    await send("PATCH", `/events/${series.id}`, { title: "Tango for everyone", venue: venue.id, cost: "10 EUR" });
    for (const event of await occurrences(series.id)) {
      const read = (await server.raw("GET", `${root}/events/${event.id}`)).body;
      if (event.detached) expect(read).toMatchObject({ title: "Tango class (Wednesday this week)", cost: "" });
      else
        expect(read).toMatchObject({ title: "Tango for everyone", cost: "10 EUR", venue: { venue: "Bigger studio" } });
    }
  });

  it("is written once in the feed: RRULE with the cancelled week as EXDATE, the moved week as an override", async () => {
    const response = await server.raw("GET", `${root}/events?ical=1&start_date=2027-03-10&end_date=2027-06-30`);
    expect(response.status).toBe(200);
    const events = Object.values(ical.sync.parseICS(response.text)).filter(
      (component): component is ical.VEvent => component?.type === "VEVENT",
    );
    const uid = `event-${series.id}@127.0.0.1`;
    expect(events.every((event) => event.uid === uid)).toBe(true);
    expect(response.text).toMatch(/\r\nRRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10\r\n/);
    expect(response.text).toMatch(/\r\nEXDATE;TZID=Europe\/Lisbon:20270323T191500\r\n/);
    const master = events.find((event) => event.rrule !== undefined)!;
    expect(master.summary).toBe("Tango for everyone");
    // node-ical gathers the override under the master, by its RECURRENCE-ID.
    const overrides = [...new Set(Object.values(master.recurrences ?? {}))];
    expect(overrides.map((override) => override.summary)).toEqual(["Tango class (Wednesday this week)"]);
    expect(response.text.match(/\r\nRECURRENCE-ID;TZID=Europe\/Lisbon:20270316T191500\r\n/g)).toHaveLength(1);
    const instances = master.rrule!.between(new Date("2027-03-01T00:00:00Z"), new Date("2027-06-30T00:00:00Z"), true);
    expect(instances.length).toBe(10);
  });

  it("takes its occurrences with it when it is deleted", async () => {
    const lesson = (
      await send("POST", "/events", {
        title: "Short course",
        start_date: "2027-01-04 10:00",
        end_date: "2027-01-04 11:00",
        recurrence: { rrule: "FREQ=DAILY;COUNT=3" },
      })
    ).body;
    const [first] = await occurrences(lesson.id);
    await send("DELETE", `/events/${lesson.id}`);
    expect((await server.raw("GET", `${root}/events/${first.id}`, { headers: ADMIN_HEADERS })).body.code).toBe(
      "event-no-longer-available",
    );
    await send("DELETE", `/events/${lesson.id}?force=true`);
    expect((await server.raw("GET", `${root}/events/${first.id}`, { headers: ADMIN_HEADERS })).status).toBe(404);
  });
});

describe("rules", () => {
  const seriesStarts = async (body: Record<string, unknown>) => {
    const created = (await send("POST", "/events", { title: "Rule check", ...body })).body;
    return { created, starts: starts(await occurrences(created.id)) };
  };

  describe("an EXDATE on the series' own start (issue 57)", () => {
    /** The instants a series names: its own start, then its occurrences' (the JSON), and the feed's, read by node-ical. */
    async function jsonAndFeed(id: number) {
      const series = (await server.raw("GET", `${root}/events/${id}`, { headers: ADMIN_HEADERS })).body;
      const json = [series.start_date, ...starts(await occurrences(id))];
      const feed = await server.raw("GET", `${root}/events/${id}.ics`, { headers: ADMIN_HEADERS });
      const vevent = Object.values(ical.sync.parseICS(feed.text)).find((item) => item?.type === "VEVENT") as any;
      const fromFeed = vevent.rrule
        .all()
        .map((date: Date) => date.getTime())
        .filter((time: number) => !Object.values(vevent.exdate ?? {}).some((ex: any) => ex.getTime() === time));
      return { series, json, feedCount: fromFeed.length };
    }

    it("removes the first occurrence: the series begins at its next, COUNT counting the one removed", async () => {
      const { created } = await seriesStarts({
        start_date: "2027-03-02 18:00",
        end_date: "2027-03-02 19:30",
        recurrence: { rrule: "FREQ=WEEKLY;COUNT=3", exdate: ["2027-03-02 18:00"] },
      });
      const { series, json, feedCount } = await jsonAndFeed(created.id);
      expect(json).toEqual(["2027-03-09 18:00:00", "2027-03-16 18:00:00"]);
      expect(series).toMatchObject({
        end_date: "2027-03-09 19:30:00",
        recurrence: { rrule: "FREQ=WEEKLY;COUNT=2", exdate: [] },
      });
      expect(feedCount).toBe(2);
    });

    it("passes over the next ones when they are excluded too, and keeps the later exceptions", async () => {
      const { created } = await seriesStarts({
        start_date: "2027-04-01 10:00",
        end_date: "2027-04-01 11:00",
        recurrence: {
          rrule: "FREQ=DAILY;COUNT=6",
          exdate: ["2027-04-01 10:00", "2027-04-02 10:00", "2027-04-05 10:00"],
        },
      });
      const { series, json } = await jsonAndFeed(created.id);
      expect(json).toEqual(["2027-04-03 10:00:00", "2027-04-04 10:00:00", "2027-04-06 10:00:00"]);
      expect(series.recurrence).toMatchObject({ rrule: "FREQ=DAILY;COUNT=4", exdate: ["2027-04-05 10:00:00"] });
    });

    it("is the same on an update that excludes the start, and a rule whose every date is excluded is refused", async () => {
      const { created } = await seriesStarts({
        start_date: "2027-05-03 09:00",
        end_date: "2027-05-03 10:00",
        recurrence: { rrule: "FREQ=WEEKLY;COUNT=4" },
      });
      await send("PATCH", `/events/${created.id}`, {
        recurrence: { rrule: "FREQ=WEEKLY;COUNT=4", exdate: ["2027-05-03 09:00"] },
      });
      expect((await jsonAndFeed(created.id)).json).toEqual([
        "2027-05-10 09:00:00",
        "2027-05-17 09:00:00",
        "2027-05-24 09:00:00",
      ]);
      const refused = await server.raw("POST", `${root}/events`, {
        body: {
          title: "Nothing left",
          start_date: "2027-06-01 09:00",
          end_date: "2027-06-01 10:00",
          recurrence: { rrule: "FREQ=DAILY;COUNT=2", exdate: ["2027-06-01 09:00", "2027-06-02 09:00"] },
        },
        headers: ADMIN_HEADERS,
      });
      expect([refused.status, refused.body.data.details.recurrence.code]).toEqual([400, "rest_invalid_recurrence"]);
    });
  });

  it("skip months without a 31st for BYMONTHDAY=31", async () => {
    const { starts: got } = await seriesStarts({
      start_date: "2027-01-31 18:00",
      end_date: "2027-01-31 19:00",
      recurrence: { rrule: "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4" },
    });
    expect(got).toEqual(["2027-03-31 18:00:00", "2027-05-31 18:00:00", "2027-07-31 18:00:00"]);
  });

  it("take ordinals of weekdays: the last Friday, the second Tuesday", async () => {
    expect(
      (
        await seriesStarts({
          start_date: "2027-01-29 18:00",
          end_date: "2027-01-29 19:00",
          recurrence: { rrule: "FREQ=MONTHLY;BYDAY=-1FR;COUNT=3" },
        })
      ).starts,
    ).toEqual(["2027-02-26 18:00:00", "2027-03-26 18:00:00"]);
    expect(
      (
        await seriesStarts({
          start_date: "2027-01-12 18:00",
          end_date: "2027-01-12 19:00",
          recurrence: { rrule: "FREQ=MONTHLY;INTERVAL=2;BYDAY=2TU;COUNT=3" },
        })
      ).starts,
    ).toEqual(["2027-03-09 18:00:00", "2027-05-11 18:00:00"]);
  });

  it("read UNTIL in UTC as the instant it is in the event's zone, and RDATE and EXDATE as its wall clocks", async () => {
    // 01:00 UTC on 5 January is 20:00 on the 4th in New York: the 4th is the last.
    const { starts: got } = await seriesStarts({
      start_date: "2027-01-01 20:00",
      end_date: "2027-01-01 21:00",
      timezone: "America/New_York",
      recurrence: {
        rrule: "FREQ=DAILY;UNTIL=20270105T010000Z",
        exdate: ["2027-01-03 20:00"],
        rdate: ["2027-01-10 09:00"],
      },
    });
    expect(got).toEqual(["2027-01-02 20:00:00", "2027-01-04 20:00:00", "2027-01-10 09:00:00"]);
    // 00:30 UTC on 5 January is 19:30 on the 4th there: the 4th at 20:00 is past it (read as a wall clock, it would not be).
    const earlier = await seriesStarts({
      start_date: "2027-01-01 20:00",
      end_date: "2027-01-01 21:00",
      timezone: "America/New_York",
      recurrence: { rrule: "FREQ=DAILY;UNTIL=20270105T003000Z" },
    });
    expect(earlier.starts).toEqual(["2027-01-02 20:00:00", "2027-01-03 20:00:00"]);
  });

  it("count the series' own date in COUNT also when the rule does not give it (RFC 5545: DTSTART is the first occurrence)", async () => {
    // A Monday, with a rule of Tuesdays: the Monday and two Tuesdays.
    const { starts: got } = await seriesStarts({
      start_date: "2027-02-01 18:00",
      end_date: "2027-02-01 19:00",
      recurrence: { rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=3" },
    });
    expect(got).toEqual(["2027-02-02 18:00:00", "2027-02-09 18:00:00"]);
  });

  it("refuse what cannot be expanded, and rules giving too many occurrences", async () => {
    const refused = async (recurrence: unknown, detailCode: string) => {
      const response = await server.raw("POST", `${root}/events`, {
        body: { title: "Refused", start_date: "2025-01-01 10:00", end_date: "2025-01-01 11:00", recurrence },
        headers: ADMIN_HEADERS,
      });
      expect([response.status, response.body.code, response.body.data.details?.recurrence?.code]).toEqual([
        400,
        "rest_invalid_param",
        detailCode,
      ]);
    };
    await refused({ rrule: "FREQ=HOURLY" }, "rest_invalid_recurrence");
    await refused({ rrule: "FREQ=DAILY;COUNT=3;UNTIL=20250301" }, "rest_invalid_recurrence");
    await refused({ rrule: "FREQ=WEEKLY;BYDAY=XX" }, "rest_invalid_recurrence");
    // Rules that never give a date (rrule would search them to the year 9999).
    await refused({ rrule: "FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30" }, "rest_invalid_recurrence");
    await refused({ rrule: "FREQ=DAILY;BYSETPOS=366" }, "rest_invalid_recurrence");
    await refused({ rrule: "FREQ=DAILY", exdate: ["tomorrow"] }, "rest_invalid_recurrence");
    // Daily since January 2025, up to a year from now: more than 730.
    await refused({ rrule: "FREQ=DAILY" }, "rest_too_many_occurrences");
    const total = (await server.raw("GET", `${root}/events?search=refused&start_date=2020-01-01&end_date=2030-01-01`))
      .body.total;
    expect(total).toBe(0);
  });

  it("refuse a rule on an occurrence", async () => {
    const { created } = await seriesStarts({
      start_date: "2027-02-01 10:00",
      end_date: "2027-02-01 11:00",
      recurrence: { rrule: "FREQ=DAILY;COUNT=2" },
    });
    const [occurrence] = await occurrences(created.id);
    const response = await server.raw("PATCH", `${root}/events/${occurrence.id}`, {
      body: { recurrence: { rrule: "FREQ=DAILY;COUNT=2" } },
      headers: ADMIN_HEADERS,
    });
    expect([response.status, response.body.data.details?.recurrence?.code]).toEqual([400, "rest_invalid_recurrence"]);
  });

  it("make a daily series for a whole year, and follow its edits", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Yoga loft" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Yoga people" });
    const daily = (
      await send("POST", "/events", {
        title: "Morning yoga",
        start_date: "2026-11-22 09:00",
        end_date: "2026-11-22 10:00",
        venue: venue.id,
        organizer: [organizer.id],
        recurrence: { rrule: "FREQ=DAILY" },
      })
    ).body;
    const count = async () =>
      (
        await server.raw(
          "GET",
          `${root}/events?post_parent=${daily.id}&start_date=2020-01-01&end_date=2030-12-31&per_page=1`,
        )
      ).body.total;
    // Up to a year after the service's clock (2026-11-21 12:00): the 2027-11-21 class is the last.
    expect(await count()).toBe(364);
    await send("PATCH", `/events/${daily.id}`, { title: "Morning yoga with Ana" });
    const last = (await server.raw("GET", `${root}/events/by-slug/morning-yoga-2027-11-21`)).body;
    expect(last).toMatchObject({
      title: "Morning yoga with Ana",
      post_parent: daily.id,
      venue: { id: venue.id },
      organizer: [{ id: organizer.id }],
    });
    expect(await count()).toBe(364);
  });

  it("make the occurrences of an open-ended rule up to the horizon, and more as time passes", async () => {
    const { created, starts: got } = await seriesStarts({
      start_date: "2026-12-01 09:00",
      end_date: "2026-12-01 10:00",
      recurrence: { rrule: "FREQ=MONTHLY" },
    });
    // A year ahead of the service's clock (2026-11-21): up to November 2027.
    expect(got[got.length - 1]).toBe("2027-11-01 09:00:00");
    expect(got.length).toBe(11);
    const later = new Date(NOW.getTime() + 90 * 86_400_000);
    const { extended } = await extendSeries(server.db, later, 365);
    expect(extended).toBeGreaterThanOrEqual(1);
    const more = starts(await occurrences(created.id));
    expect(more.slice(-3)).toEqual(["2027-12-01 09:00:00", "2028-01-01 09:00:00", "2028-02-01 09:00:00"]);
  });
});

describe("concurrent edits of a series and one of its occurrences", () => {
  it("both take effect: the occurrence keeps its own edit, the others follow the series", async () => {
    for (let round = 0; round < 4; round += 1) {
      const created = (
        await send("POST", "/events", {
          title: `Race ${round}`,
          start_date: "2027-05-03 10:00",
          end_date: "2027-05-03 11:00",
          recurrence: { rrule: "FREQ=WEEKLY;COUNT=5" },
        })
      ).body;
      const [first] = await occurrences(created.id);
      const [seriesEdit, occurrenceEdit] = await Promise.all([
        server.raw("PATCH", `${root}/events/${created.id}`, {
          body: { title: `Series renamed ${round}` },
          headers: ADMIN_HEADERS,
        }),
        server.raw("PATCH", `${root}/events/${first.id}`, {
          body: { title: `Occurrence renamed ${round}` },
          headers: ADMIN_HEADERS,
        }),
      ]);
      expect([seriesEdit.status, occurrenceEdit.status]).toEqual([200, 200]);
      const after = await occurrences(created.id);
      expect(after.find((event) => event.id === first.id)).toMatchObject({
        title: `Occurrence renamed ${round}`,
        detached: true,
      });
      expect(after.filter((event) => event.id !== first.id).map((event) => event.title)).toEqual(
        [1, 2, 3].map(() => `Series renamed ${round}`),
      );
    }
  });
});

describe("local times a daylight-saving change repeats or skips", () => {
  /** The event as JSON, and its DTSTART as the feed writes it and node-ical reads it back. */
  async function madeAt(start: string, timezone: string, recurrence?: Record<string, unknown>) {
    const end = start.replace(
      / (\d{2}):/,
      (_, hour: string) => ` ${String((Number(hour) + 1) % 24).padStart(2, "0")}:`,
    );
    const created = (
      await send("POST", "/events", {
        title: `At ${start} in ${timezone}`,
        start_date: start,
        end_date: end,
        timezone,
        ...(recurrence ? { recurrence } : {}),
      })
    ).body;
    const feed = await server.raw("GET", `${root}/events/${created.id}?ical=1`);
    const [vevent] = Object.values(ical.sync.parseICS(feed.text)).filter(
      (component): component is ical.VEvent => component?.type === "VEVENT",
    );
    return {
      created,
      dtstart: /BEGIN:VEVENT[\s\S]*?(DTSTART[^\r\n]*)/.exec(feed.text)![1],
      feedInstant: new Date(vevent.start).toISOString(),
    };
  }
  const utcOf = (event: { utc_start_date: string }) => `${event.utc_start_date.replace(" ", "T")}.000Z`;

  it.each([
    // Clocks go back: the first of the two.
    ["2027-10-31 01:30", "Europe/Lisbon", "2027-10-31 00:30:00"],
    ["2027-11-07 01:30", "America/New_York", "2027-11-07 05:30:00"],
    ["2027-04-04 02:30", "Australia/Sydney", "2027-04-03 15:30:00"],
    ["2027-04-04 01:45", "Australia/Lord_Howe", "2027-04-03 14:45:00"],
  ])(
    "reads %s in %s, which happens twice, as its first occurrence, in the JSON and the feed alike",
    async (start, timezone, utc) => {
      const { created, dtstart } = await madeAt(start, timezone);
      expect([created.start_date, created.utc_start_date]).toEqual([`${start}:00`, utc]);
      // The local time with its zone, which RFC 5545 §3.3.5 reads as the first occurrence: the same
      // instant as the JSON's. (node-ical reads such a time as the second one: not asked here.)
      expect(dtstart).toBe(`DTSTART;TZID=${timezone}:${start.replace(/[-:]/g, "").replace(" ", "T")}00`);
    },
  );

  it.each([
    // Clocks go forward: moved forward by the gap (an hour; Lord Howe's is half an hour).
    ["2027-03-28 01:30", "Europe/Lisbon", "2027-03-28 02:30:00", "2027-03-28 01:30:00"],
    ["2027-03-14 02:30", "America/New_York", "2027-03-14 03:30:00", "2027-03-14 07:30:00"],
    ["2027-10-03 02:30", "Australia/Sydney", "2027-10-03 03:30:00", "2027-10-02 16:30:00"],
    ["2027-10-03 02:15", "Australia/Lord_Howe", "2027-10-03 02:45:00", "2027-10-02 15:45:00"],
  ])("moves %s in %s, which does not happen, forward by the gap", async (start, timezone, local, utc) => {
    const { created, feedInstant } = await madeAt(start, timezone);
    expect([created.start_date, created.utc_start_date]).toEqual([local, utc]);
    expect(feedInstant).toBe(utcOf(created));
  });

  it("puts a daily series' occurrence on the night clocks go back at the first 01:30, the others at theirs", async () => {
    const { created } = await madeAt("2027-10-30 01:30", "Europe/Lisbon", { rrule: "FREQ=DAILY;COUNT=3" });
    const got = await occurrences(created.id);
    expect(got.map((event) => [event.start_date, event.utc_start_date])).toEqual([
      ["2027-10-31 01:30:00", "2027-10-31 00:30:00"],
      ["2027-11-01 01:30:00", "2027-11-01 01:30:00"],
    ]);
  });

  it("keeps every occurrence as long as the series' first across a DST change, in the JSON and the feed (issue 45)", async () => {
    const minutes = (event: { utc_start_date: string; utc_end_date: string }) =>
      (Date.parse(`${event.utc_end_date.replace(" ", "T")}Z`) -
        Date.parse(`${event.utc_start_date.replace(" ", "T")}Z`)) /
      60_000;
    const cases = [
      // Clocks go forward at 02:00 on 14 March: 02:30 does not happen that day; it starts at 03:30.
      {
        start: "2027-03-12 02:30",
        end: "2027-03-12 03:30",
        day: ["2027-03-14 03:30:00", "2027-03-14 04:30:00"],
        feed: ["DTSTART;TZID=America/New_York:20270314T033000", "DTEND;TZID=America/New_York:20270314T043000"],
      },
      // Clocks go back at 02:00 on 7 November: the hour from the first 01:30 ends at the second,
      // which the feed says in UTC (with TZID, RFC 5545 reads 01:30 as the first).
      {
        start: "2027-11-05 01:30",
        end: "2027-11-05 02:30",
        day: ["2027-11-07 01:30:00", "2027-11-07 01:30:00"],
        feed: ["DTSTART;TZID=America/New_York:20271107T013000", "DTEND:20271107T063000Z"],
      },
    ];
    for (const { start, end, day, feed } of cases) {
      const created = (
        await send("POST", "/events", {
          title: `Daily at ${start.slice(11)}`,
          start_date: start,
          end_date: end,
          timezone: "America/New_York",
          recurrence: { rrule: "FREQ=DAILY;COUNT=4" },
        })
      ).body;
      const got = await occurrences(created.id);
      expect(got.map(minutes)).toEqual([60, 60, 60]);
      const onTheDay = got.find((event) => event.start_date.startsWith(day[0].slice(0, 10)))!;
      expect([onTheDay.start_date, onTheDay.end_date]).toEqual(day);
      const text = (await server.raw("GET", `${root}/events/${onTheDay.id}?ical=1`)).text;
      const vevent = text.slice(text.indexOf("BEGIN:VEVENT"));
      expect(vevent.split("\r\n").filter((line) => /^DT(START|END)[;:]/.test(line))).toEqual(feed);
    }
  });

  it("keeps a series that starts in the skipped hour at its time on the other days", async () => {
    const { created, dtstart } = await madeAt("2027-03-28 01:30", "Europe/Lisbon", { rrule: "FREQ=DAILY;COUNT=3" });
    expect(created.start_date).toBe("2027-03-28 02:30:00");
    // The feed's DTSTART is the time given, which RFC 5545 reads that day as 02:30 and the rule keeps on the others.
    expect(dtstart).toBe("DTSTART;TZID=Europe/Lisbon:20270328T013000");
    const got = await occurrences(created.id);
    expect(got.map((event) => [event.start_date, event.utc_start_date])).toEqual([
      ["2027-03-29 01:30:00", "2027-03-29 00:30:00"],
      ["2027-03-30 01:30:00", "2027-03-30 00:30:00"],
    ]);
    // An edit of the series keeps it so.
    await send("PATCH", `/events/${created.id}`, { title: "Night class" });
    expect((await occurrences(created.id)).map((event) => event.start_date)).toEqual([
      "2027-03-29 01:30:00",
      "2027-03-30 01:30:00",
    ]);
  });
});

describe("a series in the trash", () => {
  it("still lists its occurrences for administrators who name it, and for nobody else", async () => {
    const created = (
      await send("POST", "/events", {
        title: "Trashed weekly",
        start_date: "2027-05-03 10:00",
        end_date: "2027-05-03 11:00",
        recurrence: { rrule: "FREQ=WEEKLY;COUNT=3" },
      })
    ).body;
    await send("DELETE", `/events/${created.id}`);
    const listed = await server.raw(
      "GET",
      `${root}/events?post_parent=${created.id}&status=trash&start_date=2027-01-01&end_date=2027-12-31`,
      { headers: ADMIN_HEADERS },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((event: Listed) => event.start_date)).toEqual([
      "2027-05-10 10:00:00",
      "2027-05-17 10:00:00",
    ]);
    const anonymous = await server.raw("GET", `${root}/events?post_parent=${created.id}`);
    expect([anonymous.status, anonymous.body.data?.details?.post_parent?.code]).toEqual([400, "rest_event_not_found"]);
  });
});
