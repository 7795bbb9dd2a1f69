// GET /events: the EventArchiveCest table of docs/compatibility.md §12 and the date-window rules and
// examples of §5.2, under a fixed clock (now = 2026-11-21 12:00:00 UTC, a UTC site).
import { createEventVia, createEvents, fixedClock, ids, utcWall } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());
afterEach(async () => {
  await server.db.write.event.deleteMany({});
});

const events = (query = "", headers: Record<string, string> = {}) =>
  server.raw("GET", `/calendar/events/v1/events${query}`, { headers });

describe("paging", () => {
  it("answers an empty archive with totals 0, headers, no page links, and the default window in rest_url", async () => {
    const response = await events();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      events: [],
      rest_url: `${server.base}/events?page=1&per_page=10&start_date=2026-11-20%2000%3A00%3A00&end_date=2028-11-21%2023%3A59%3A59`,
      total: 0,
      total_pages: 0,
      next_sync_token: expect.any(String),
    });
    expect(response.headers.get("X-TEC-Total")).toBe("0");
    expect(response.headers.get("X-TEC-TotalPages")).toBe("0");
  });

  it("lists upcoming events, by start date", async () => {
    const created = await createEvents(server, 5);
    const response = await events();
    expect(ids(response.body.events)).toEqual(ids(created));
  });

  it("uses the configured default page size, and per_page", async () => {
    const small = await startTestServer({ PER_PAGE_DEFAULT: "5" }, { clock: fixedClock });
    try {
      await createEvents(small, 7);
      expect((await small.raw("GET", "/calendar/events/v1/events")).body.events).toHaveLength(5);
      expect((await small.raw("GET", "/calendar/events/v1/events?per_page=10")).body.events).toHaveLength(7);
    } finally {
      await small.close();
    }
  });

  it("clamps per_page to 50", async () => {
    await createEvents(server, 51);
    const response = await events("?per_page=100");
    expect(response.body.events).toHaveLength(50);
    expect(response.body.total).toBe(51);
  });

  it("gives totals, next and previous links", async () => {
    await createEvents(server, 9);
    const first = await events("?per_page=3");
    expect(first.body).toMatchObject({ total: 9, total_pages: 3 });
    expect(first.headers.get("X-WP-Total")).toBe("9");
    expect(new URL(first.body.rest_url).pathname).toBe("/calendar/events/v1/events");
    expect(first.body.next_rest_url).toContain("page=2");
    const third = await events("?per_page=3&page=3");
    expect(third.body.previous_rest_url).toContain("page=2");
    expect(third.body).not.toHaveProperty("next_rest_url");
    const second = await events("?per_page=3&page=2");
    expect(new URL(second.body.previous_rest_url).searchParams.get("page")).toBe("1");
  });

  it("answers a page past the last one with 404 event-archive-page-not-found", async () => {
    await createEvents(server, 3);
    const response = await events("?per_page=3&page=2");
    expect(response.status).toBe(404);
    expect(response.body.code).toBe("event-archive-page-not-found");
  });

  it.each(["foo", "-1", "0", "foo%20bar"])("rejects page=%s and per_page=%s", async (value) => {
    for (const param of ["page", "per_page"]) {
      const response = await events(`?${param}=${value}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    }
  });
});

describe("the date window", () => {
  it("lists from yesterday: events that started today or yesterday are in, the day before is out", async () => {
    const dayBefore = await createEventVia(server, {
      title: "Two days ago",
      start_date: "2026-11-19 10:00:00",
      end_date: "2026-11-19 11:00:00",
    });
    const yesterday = await createEventVia(server, {
      title: "Yesterday",
      start_date: "2026-11-20 00:30:00",
      end_date: "2026-11-20 01:00:00",
    });
    const today = await createEventVia(server, {
      title: "This morning",
      start_date: "2026-11-21 08:00:00",
      end_date: "2026-11-21 09:00:00",
    });
    const response = await events();
    expect(ids(response.body.events)).toEqual([yesterday.id, today.id]);
    expect(ids(response.body.events)).not.toContain(dayBefore.id);
  });

  it("lists until 24 months from now, the whole of that day", async () => {
    const inside = await createEventVia(server, {
      title: "Edge",
      start_date: "2028-11-21 20:00:00",
      end_date: "2028-11-21 23:00:00",
    });
    await createEventVia(server, {
      title: "Beyond",
      start_date: "2028-11-22 10:00:00",
      end_date: "2028-11-22 11:00:00",
    });
    expect(ids((await events()).body.events)).toEqual([inside.id]);
  });

  it("takes whole days unless strict_dates (§5.2, first example)", async () => {
    const e1 = await createEventVia(server, {
      title: "E1",
      start_date: "2018-01-01 16:00:00",
      end_date: "2018-01-01 16:30:00",
    });
    const e2 = await createEventVia(server, {
      title: "E2",
      start_date: "2018-01-01 20:00:00",
      end_date: "2018-01-01 20:30:00",
    });
    const window = "start_date=2018-01-01%2015:00:00&end_date=2018-01-01%2018:00:00";
    const inclusive = await events(`?${window}`);
    expect(ids(inclusive.body.events)).toEqual([e1.id, e2.id]);
    expect(inclusive.body.rest_url).toContain(
      "start_date=2018-01-01%2000%3A00%3A00&end_date=2018-01-01%2023%3A59%3A59",
    );
    expect(ids((await events(`?${window}&strict_dates=false`)).body.events)).toEqual([e1.id, e2.id]);
    const strict = await events(`?${window}&strict_dates=true`);
    expect(ids(strict.body.events)).toEqual([e1.id]);
    expect(ids((await events(`?${window}&strict_dates=on`)).body.events)).toEqual([e1.id]);
    expect(ids((await events(`?${window}&strict_dates=no`)).body.events)).toEqual([e1.id, e2.id]);
    // As PHP's boolean filter reads it (issue 45): 1/true/on/yes are yes, any case; y and enable(d) are no.
    for (const yes of ["1", "TRUE", "Yes", "oN"])
      expect([yes, ids((await events(`?${window}&strict_dates=${yes}`)).body.events)]).toEqual([yes, [e1.id]]);
    for (const no of ["0", "y", "enable", "Enabled", "n", "off", "disable"])
      expect([no, ids((await events(`?${window}&strict_dates=${no}`)).body.events)]).toEqual([no, [e1.id, e2.id]]);
    expect((await events(`?${window}&strict_dates=maybe`)).status).toBe(400);
    expect(strict.body.rest_url).toContain("start_date=2018-01-01%2015%3A00%3A00&end_date=2018-01-01%2018%3A00%3A00");
  });

  it("finds overlapping events with relative parameters alone, reaching the past (§5.2, second example)", async () => {
    const e5 = await createEventVia(server, {
      title: "E5",
      start_date: "2017-12-29 10:00:00",
      end_date: "2018-01-03 10:00:00",
    });
    const e4 = await createEventVia(server, {
      title: "E4",
      start_date: "2017-12-30 10:00:00",
      end_date: "2018-01-02 10:00:00",
    });
    const e1 = await createEventVia(server, {
      title: "E1",
      start_date: "2018-01-01 16:00:00",
      end_date: "2018-01-01 16:30:00",
    });
    const e2 = await createEventVia(server, {
      title: "E2",
      start_date: "2018-01-01 20:00:00",
      end_date: "2018-01-01 20:30:00",
    });
    const e3 = await createEventVia(server, {
      title: "E3",
      start_date: "2018-01-02 10:00:00",
      end_date: "2018-01-02 11:00:00",
    });
    await createEventVia(server, {
      title: "Ends too soon",
      start_date: "2017-12-31 17:00:00",
      end_date: "2017-12-31 19:00:00",
    });
    const relative = await events("?ends_after=2017-12-31&starts_before=2018-01-02");
    expect(ids(relative.body.events)).toEqual([e5.id, e4.id, e1.id, e2.id, e3.id]);
    expect(relative.body.rest_url).toContain("ends_after=2017-12-31%2023%3A59%3A59");
    expect(relative.body.rest_url).not.toContain("start_date");
    const both = await events(
      "?ends_after=2017-12-31&starts_before=2018-01-02&start_date=2017-12-30&end_date=2018-01-02",
    );
    expect(ids(both.body.events)).toEqual([e4.id, e1.id, e2.id, e3.id]);
  });

  it("counts weekly events from a start date, an end date, or both (the archive's date tests)", async () => {
    await createEvents(server, 10, { firstHour: 24 * 7, spacingHours: 24 * 7, durationHours: 2 });
    const in5Weeks = Math.floor(fixedClock().getTime() / 1000) + 5 * 7 * 86400;
    expect((await events(`?start_date=${in5Weeks}`)).body.total).toBe(6);
    expect((await events(`?end_date=${in5Weeks + 2 * 3600}`)).body.total).toBe(5);
    expect((await events("?start_date=%2B10%20days&end_date=%2B30%20days")).body.total).toBe(3);
  });

  it("rejects dates it cannot read, naming them", async () => {
    for (const param of ["start_date", "end_date", "starts_before", "ends_after"]) {
      const response = await events(`?${param}=before%20my%20birthday`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    }
  });

  it("reads dates in the site time zone", async () => {
    const ny = await startTestServer({ SITE_TIMEZONE: "America/New_York" }, { clock: fixedClock });
    try {
      // 23:30 in New York on Dec 1 is Dec 2 in UTC: it belongs to Dec 1 for a New York site.
      const late = await createEventVia(ny, {
        title: "Late",
        start_date: "2026-12-01 23:30:00",
        end_date: "2026-12-01 23:45:00",
      });
      const response = await ny.raw("GET", "/calendar/events/v1/events?start_date=2026-12-01&end_date=2026-12-01");
      expect(ids(response.body.events)).toEqual([late.id]);
      expect(late).toMatchObject({ timezone: "America/New_York", utc_start_date: "2026-12-02 04:30:00" });
    } finally {
      await ny.close();
    }
  });
});

describe("search", () => {
  it("matches every word in the title, excerpt or description", async () => {
    await createEvents(server, 5, { title: (i) => `foo ${i}` });
    await createEvents(server, 5, { title: (i) => `foo bar ${i}`, firstHour: 100 });
    await createEvents(server, 5, { title: (i) => `${i}`, firstHour: 200, fields: { description: "Just bar here" } });
    const foo = await events("?search=foo");
    const bar = await events("?search=bar");
    expect(foo.body.total).toBe(10);
    expect(bar.body.total).toBe(10);
    const common = ids(foo.body.events).filter((id) => ids(bar.body.events).includes(id));
    expect(common).toHaveLength(5);
    expect((await events("?search=bar%20foo")).body.total).toBe(5);
    expect((await events("?search=nothing")).body).toMatchObject({ total: 0, events: [] });
  });
});

describe("status", () => {
  async function mixed() {
    const published = await createEvents(server, 3);
    const drafts = await createEvents(server, 3, { firstHour: 30, fields: { status: "draft" } });
    const pending = await createEvents(server, 3, { firstHour: 40, fields: { status: "pending" } });
    return { published, drafts, pending };
  }

  it("lets editors filter by status: one, a list with spaces, an array", async () => {
    const { published, drafts } = await mixed();
    expect(ids((await events("?status=publish", ADMIN_HEADERS)).body.events)).toEqual(ids(published));
    expect(ids((await events("?status=publish,%20draft", ADMIN_HEADERS)).body.events)).toEqual([
      ...ids(published),
      ...ids(drafts),
    ]);
    expect((await events("?status[]=publish&status[]=draft&status[]=pending", ADMIN_HEADERS)).body.total).toBe(9);
    expect((await events("", ADMIN_HEADERS)).body.total).toBe(9);
  });

  it.each(["foo", "foo,%20bar", "foo,%20bar,%20publish"])("rejects status=%s", async (status) => {
    const response = await events(`?status=${status}`, ADMIN_HEADERS);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.data.params)).toEqual(["status"]);
  });

  it("shows anonymous callers published events only, and lets them ask for nothing else", async () => {
    await mixed();
    expect((await events()).body.total).toBe(3);
    expect((await events("?status=publish")).body.total).toBe(3);
    expect((await events("?status=publish,draft")).status).toBe(400);
  });
});

describe("hidden events", () => {
  it("never lists events hidden from listings, but serves them by id", async () => {
    const [shown] = await createEvents(server, 1);
    const [hidden] = await createEvents(server, 1, {
      firstHour: 30,
      fields: { hide_from_listings: true, featured: true },
    });
    expect(ids((await events()).body.events)).toEqual([shown.id]);
    expect((await events(`?include=${hidden.id}`)).body.total).toBe(0);
    expect((await events("?featured=true")).body.total).toBe(0);
    expect((await server.raw("GET", `/calendar/events/v1/events/${hidden.id}`)).status).toBe(200);
  });
});

describe("ordering", () => {
  it("orders by start date then id, or by what orderby says, in either direction", async () => {
    const b = await createEventVia(server, { title: "b", start_date: utcWall(48), end_date: utcWall(49) });
    const a = await createEventVia(server, { title: "Ábaco", start_date: utcWall(24), end_date: utcWall(60) });
    const c = await createEventVia(server, { title: "C", start_date: utcWall(24), end_date: utcWall(25) });
    const order = async (query: string) => ids((await events(query)).body.events);
    expect(await order("")).toEqual([a.id, c.id, b.id]);
    expect(await order("?orderby=start_date&order=desc")).toEqual([b.id, c.id, a.id]);
    expect(await order("?orderby=end_date")).toEqual([c.id, b.id, a.id]);
    expect(await order("?orderby=title")).toEqual([a.id, b.id, c.id]);
    expect(await order("?orderby=title&order=DESC")).toEqual([c.id, b.id, a.id]);
    expect(await order("?orderby=id&order=desc")).toEqual([c.id, a.id, b.id]);
    expect(await order("?orderby=date")).toEqual([b.id, a.id, c.id]);
    expect((await events("?orderby=nope")).status).toBe(400);
  });
});
