// Single events, creation, update and deletion: SingleEventCest, EventInsertionCest,
// EventUpdateCest and EventDeletionCest of docs/compatibility.md §12, with our departures (404 for
// unknown slugs, flags/website/organizers kept when omitted on update, force=true deletes a trashed event).
import { createLinkedVia, createTermVia, createUser } from "./support/fixtures";
import { createEventVia, fixedClock } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
let ny: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
  ny = await startTestServer({ SITE_TIMEZONE: "America/New_York" }, { clock: fixedClock });
});
afterAll(async () => {
  await server.close();
  await ny.close();
});

const root = "/calendar/events/v1";
const basic = { title: "An event", start_date: "2026-12-01 10:00:00", end_date: "2026-12-01 12:00:00" };
const post = (target: TestServer, body: unknown, headers: Record<string, string> = ADMIN_HEADERS) =>
  target.raw("POST", `${root}/events`, { body, headers });

describe("GET /events/{id} and /events/by-slug/{slug}", () => {
  it("answers unknown ids (0 included) and slugs with 404 rest-event-not-found", async () => {
    for (const path of ["/0", "/2389", "/by-slug/non-existing-event"]) {
      const response = await server.raw("GET", `${root}/events${path}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("rest-event-not-found");
    }
  });

  it("answers an empty slug with 404 rest_no_route", async () => {
    expect((await server.raw("GET", `${root}/events/by-slug/`)).body.code).toBe("rest_no_route");
  });

  it("answers a draft with 403 event-not-accessible to anonymous callers, by id and by slug", async () => {
    const draft = await createEventVia(server, { ...basic, status: "draft" });
    for (const path of [`/${draft.id}`, `/by-slug/${draft.slug}`]) {
      const response = await server.raw("GET", `${root}/events${path}`);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe("event-not-accessible");
      expect((await server.raw("GET", `${root}/events${path}`, { headers: ADMIN_HEADERS })).status).toBe(200);
    }
  });

  it("answers a trashed event with 403 event-no-longer-available", async () => {
    const event = await createEventVia(server, basic);
    await server.raw("DELETE", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    const response = await server.raw("GET", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe("event-no-longer-available");
  });

  it("answers with the full event: dates, zone, cost, venue, organizers, terms, image and json_ld", async () => {
    const author = await createUser(server, "event-author", "author");
    const venue = await createLinkedVia(server, "venues", {
      venue: "Venue 01",
      address: "1 Main St",
      city: "New York",
      country: "United States",
      state: "NY",
      zip: "10001",
      phone: "555",
      website: "https://venue.example.org/",
    });
    const organizer = await createLinkedVia(server, "organizers", {
      organizer: "Organizer 01",
      email: "o@example.org",
      phone: "556",
      website: "https://org.example.org/",
    });
    const [tag1, tag2] = [
      await createTermVia(server, "tags", { name: "Tag 1" }),
      await createTermVia(server, "tags", { name: "Tag 2" }),
    ];
    const [cat1, cat2] = [
      await createTermVia(server, "categories", { name: "Cat 1" }),
      await createTermVia(server, "categories", { name: "Cat 2" }),
    ];
    const created = await createEventVia(server, {
      title: "Event 01",
      description: "Event 01 description",
      excerpt: "Event 01 excerpt",
      author: author.id,
      timezone: "America/New_York",
      start_date: "2027-01-05 19:00:00",
      end_date: "2027-01-05 21:30:00",
      cost: "$23",
      website: "http://tri.be",
      image: "https://images.example.org/image.png",
      venue: [venue.id],
      organizer: [organizer.id],
      tags: [tag1.id, tag2.id],
      categories: [cat1.id, cat2.id],
    });
    for (const path of [`/${created.id}`, `/by-slug/event-01`]) {
      const { status, body } = await server.raw("GET", `${root}/events${path}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: created.id,
        author: String(author.id),
        status: "publish",
        url: `${server.origin}/event/event-01/`,
        rest_url: `${server.base}/events/${created.id}`,
        title: "Event 01",
        description: "<p>Event 01 description</p>",
        excerpt: "<p>Event 01 excerpt</p>",
        slug: "event-01",
        image: { url: "https://images.example.org/image.png", extension: "png" },
        all_day: false,
        start_date: "2027-01-05 19:00:00",
        start_date_details: { year: "2027", month: "01", day: "05", hour: "19", minutes: "00", seconds: "00" },
        end_date: "2027-01-05 21:30:00",
        utc_start_date: "2027-01-06 00:00:00",
        utc_end_date: "2027-01-06 02:30:00",
        utc_end_date_details: { year: "2027", month: "01", day: "06", hour: "02", minutes: "30", seconds: "00" },
        timezone: "America/New_York",
        timezone_abbr: "EST",
        cost: "$23",
        cost_details: { currency_symbol: "$", currency_code: "", currency_position: "prefix", values: ["23"] },
        website: "http://tri.be",
        show_map: true,
        show_map_link: true,
        venue: {
          id: venue.id,
          venue: "Venue 01",
          address: "1 Main St",
          city: "New York",
          json_ld: { "@type": "Place" },
        },
        organizer: [
          { id: organizer.id, organizer: "Organizer 01", email: "o@example.org", json_ld: { "@type": "Person" } },
        ],
        tags: [
          { id: tag1.id, name: "Tag 1", slug: "tag-1", taxonomy: "post_tag", description: "" },
          { id: tag2.id, name: "Tag 2" },
        ],
        categories: [
          {
            id: cat1.id,
            name: "Cat 1",
            taxonomy: "tribe_events_cat",
            count: 1,
            filter: "raw",
            term_group: 0,
            term_taxonomy_id: cat1.id,
          },
          { id: cat2.id },
        ],
        json_ld: {
          "@context": "http://schema.org",
          "@type": "Event",
          name: "Event 01",
          startDate: "2027-01-05T19:00:00-05:00",
          endDate: "2027-01-05T21:30:00-05:00",
          location: { "@type": "Place", name: "Venue 01" },
          organizer: [{ "@type": "Person", name: "Organizer 01" }],
          // The day of publication, from its start, as the original gives it.
          offers: { "@type": "Offer", price: "23", validFrom: `${body.date.slice(0, 10)}T00:00:00Z` },
        },
      });
    }
    const listed = await server.raw("GET", `${root}/events?include=${created.id}`);
    expect(listed.body.events[0]).not.toHaveProperty("json_ld");
    expect(listed.body.events[0].venue).not.toHaveProperty("json_ld");
  });

  it("gives the venue as a list when there are several, in order, and as [] when there is none", async () => {
    const [a, b] = [
      await createLinkedVia(server, "venues", { venue: "A" }),
      await createLinkedVia(server, "venues", { venue: "B" }),
    ];
    const two = await createEventVia(server, { ...basic, venue: [b.id, a.id] });
    expect(two.venue).toEqual([expect.objectContaining({ id: b.id }), expect.objectContaining({ id: a.id })]);
    const none = await createEventVia(server, basic);
    expect(none.venue).toEqual([]);
    expect(none.website).toBe(none.url);
  });

  it("leaves out venues and organizers the caller may not read", async () => {
    const draftVenue = await createLinkedVia(server, "venues", { venue: "Secret venue", status: "draft" });
    const draftOrganizer = await createLinkedVia(server, "organizers", {
      organizer: "Secret organizer",
      status: "draft",
    });
    const event = await createEventVia(server, { ...basic, venue: [draftVenue.id], organizer: [draftOrganizer.id] });
    const anonymous = await server.raw("GET", `${root}/events/${event.id}`);
    expect(anonymous.body).toMatchObject({ venue: [], organizer: [] });
    const editor = await server.raw("GET", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    expect(editor.body.venue.id).toBe(draftVenue.id);
  });
});

describe("POST /events", () => {
  it("answers anonymous callers with 401", async () => {
    expect((await post(server, basic, {})).status).toBe(401);
  });

  it("creates an event: 201, Location, dates read in the site time zone", async () => {
    const response = await post(ny, {
      title: "An event",
      slug: "an-event",
      description: "An event description",
      excerpt: "An event excerpt",
      start_date: "2027-07-01 09:00:00",
      end_date: "2027-07-01 11:00:00",
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`${ny.base}/events/${response.body.id}`);
    expect(response.body).toMatchObject({
      title: "An event",
      slug: "an-event",
      description: "<p>An event description</p>",
      excerpt: "<p>An event excerpt</p>",
      start_date: "2027-07-01 09:00:00",
      end_date: "2027-07-01 11:00:00",
      utc_start_date: "2027-07-01 13:00:00",
      utc_end_date: "2027-07-01 15:00:00",
      timezone: "America/New_York",
      timezone_abbr: "EDT",
    });
  });

  it.each([
    ["America/New_York", "2026-11-22 09:00:00", "2026-11-22 14:00:00", "2026-11-25 16:00:00"],
    ["America/Juneau", "2026-11-22 09:00:00", "2026-11-22 18:00:00", "2026-11-25 16:00:00"],
    // Already 23:00 on the 21st in Sydney: "tomorrow" is the 22nd there too.
    ["Australia/Sydney", "2026-11-22 09:00:00", "2026-11-21 22:00:00", "2026-11-25 16:00:00"],
    ["Atlantic/Reykjavik", "2026-11-22 09:00:00", "2026-11-22 09:00:00", "2026-11-25 16:00:00"],
  ])("reads natural language in the site time zone (%s)", async (zone, start, utcStart, end) => {
    const site = await startTestServer({ SITE_TIMEZONE: zone }, { clock: fixedClock });
    try {
      const response = await post(site, {
        title: "Phrases",
        start_date: "tomorrow 9am",
        end_date: "next wednesday 4pm",
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        start_date: start,
        utc_start_date: utcStart,
        end_date: end,
        timezone: zone,
      });
    } finally {
      await site.close();
    }
  });

  it.each([
    // The clock's day is a Saturday: PHP's "next saturday" is the week after, not today.
    ["next saturday", "next saturday 4pm", "2026-11-28 00:00:00", "2026-11-28 16:00:00"],
    ["saturday", "this saturday 8pm", "2026-11-21 00:00:00", "2026-11-21 20:00:00"],
    // What the original's MCP server documents, which locutus alone does not read.
    ["first thursday of next month", "last friday of march 2027", "2026-12-03 00:00:00", "2027-03-26 00:00:00"],
    ["second monday of january 2027", "fifth monday of february 2027", "2027-01-11 00:00:00", "2027-03-01 00:00:00"],
  ])("reads %s and %s as PHP does", async (startPhrase, endPhrase, start, end) => {
    const response = await post(server, {
      title: "Weekdays",
      timezone: "UTC",
      start_date: startPhrase,
      end_date: endPhrase,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ start_date: start, end_date: end });
  });

  it.each([
    ["America/New_York", "2026-11-22 09:00:00", "2026-11-22 14:00:00"],
    ["UTC", "2026-11-22 09:00:00", "2026-11-22 09:00:00"],
    ["Asia/Hong_Kong", "2026-11-22 09:00:00", "2026-11-22 01:00:00"],
    ["Europe/Rome", "2026-11-22 09:00:00", "2026-11-22 08:00:00"],
  ])("reads dates in the event's own time zone (%s), whatever the site's", async (zone, start, utcStart) => {
    const response = await post(server, {
      title: "Zoned",
      timezone: zone,
      start_date: "tomorrow 9am",
      end_date: "tomorrow 10am",
    });
    expect(response.body).toMatchObject({ timezone: zone, start_date: start, utc_start_date: utcStart });
  });

  it.each([
    [{ title: undefined }, "rest_missing_callback_param", "title"],
    [{ start_date: undefined }, "rest_missing_callback_param", "start_date"],
    [{ end_date: undefined }, "rest_missing_callback_param", "end_date"],
    [{ title: "" }, "rest_invalid_param", "title"],
    [{ start_date: "" }, "rest_invalid_param", "start_date"],
    [{ end_date: "before my birthday" }, "rest_invalid_param", "end_date"],
    [{ author: 23 }, "rest_invalid_param", "author"],
    [{ author: "" }, "rest_invalid_param", "author"],
    [{ date: "foo" }, "rest_invalid_param", "date"],
    [{ date_utc: "foo" }, "rest_invalid_param", "date_utc"],
    [{ website: "foo" }, "rest_invalid_param", "website"],
    [{ image: "foo bar" }, "rest_invalid_param", "image"],
    [{ image: "23" }, "rest_invalid_param", "image"],
    [{ timezone: "Mars/Olympus_Mons" }, "rest_invalid_param", "timezone"],
    [{ end_date: "2026-12-01 09:00:00" }, "rest_invalid_param", "end_date"],
    [{ venue: [2389] }, "rest_invalid_param", "venue"],
    [{ organizer: [2389] }, "rest_invalid_param", "organizer"],
    [{ categories: [2389] }, "rest_invalid_param", "categories"],
    [{ tags: [2389] }, "rest_invalid_param", "tags"],
    [{ post_parent: 2389 }, "rest_invalid_param", "post_parent"],
  ])("rejects %j with %s naming it", async (change, code, param) => {
    const response = await post(server, { ...basic, ...change });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    const named = Array.isArray(response.body.data.params)
      ? response.body.data.params
      : Object.keys(response.body.data.params);
    expect(named).toEqual([param]);
  });

  it("sets the author, and the post date in the site zone or in UTC", async () => {
    const author = await createUser(ny, "ny-author", "author");
    const withAuthor = await post(ny, { ...basic, author: author.id, date: "tomorrow 9am" });
    expect(withAuthor.body).toMatchObject({
      author: String(author.id),
      date: "2026-11-22 09:00:00",
      date_utc: "2026-11-22 14:00:00",
      status: "future",
    });
    const utc = await post(ny, { ...basic, date_utc: "tomorrow 9am" });
    expect(utc.body.date_utc).toBe("2026-11-22 09:00:00");
  });

  it("ignores generated fields sent in the body", async () => {
    const generated = {
      url: "http://x.example/",
      rest_url: "http://x.example/",
      utc_start_date: "2000-01-01 00:00:00",
      start_date_details: {},
      timezone_abbr: "XYZ",
      cost_details: { values: ["1"] },
    };
    const response = await post(server, { ...basic, ...generated });
    expect(response.status).toBe(201);
    for (const [field, value] of Object.entries(generated)) expect(response.body[field]).not.toEqual(value);
  });

  it("makes an all-day event take whole days, over several days too", async () => {
    const oneDay = await post(ny, {
      title: "All day",
      all_day: true,
      start_date: "2026-11-22 00:00:00",
      end_date: "2026-11-22 23:59:59",
    });
    expect(oneDay.body).toMatchObject({
      all_day: true,
      start_date: "2026-11-22 00:00:00",
      end_date: "2026-11-22 23:59:59",
    });
    const multi = await post(ny, {
      title: "Days",
      all_day: true,
      start_date: "tomorrow 9am",
      end_date: "+5 days 11am",
    });
    expect(multi.body).toMatchObject({ start_date: "2026-11-22 00:00:00", end_date: "2026-11-26 23:59:59" });
  });

  it("parses the cost", async () => {
    const single = await post(server, { ...basic, cost: "20$" });
    expect(single.body).toMatchObject({
      cost: "20$",
      cost_details: { currency_symbol: "$", currency_position: "postfix", values: ["20"] },
    });
    const list = await post(server, { ...basic, cost: ["0$", "20$", "30$"] });
    expect(list.body).toMatchObject({ cost: "Free – 30$", cost_details: { values: ["0", "20", "30"] } });
    const none = await post(server, basic);
    expect(none.body).toMatchObject({
      cost: "",
      cost_details: { currency_symbol: "", currency_position: "", values: [] },
    });
    // Departures (docs/compatibility.md): the original reads this comma as a decimal point, and
    // loses the symbol of a range written with an en dash.
    const commaList = await post(server, { ...basic, cost: "5, 10" });
    expect(commaList.body).toMatchObject({ cost: "5, 10", cost_details: { values: ["5", "10"] } });
    const range = await post(server, { ...basic, cost: "$5 – $10" });
    expect(range.body).toMatchObject({
      cost: "$5 – $10",
      cost_details: { currency_symbol: "$", currency_position: "prefix", values: ["5", "10"] },
    });
  });

  it("trims the whitespace around a description and an excerpt, as the original does", async () => {
    const response = await post(server, {
      ...basic,
      description: "  <p>Lead and trail</p>  \n\n",
      excerpt: "\n Short \t",
    });
    expect(response.body).toMatchObject({ description: "<p>Lead and trail</p>", excerpt: "<p>Short</p>" });
  });

  it("sets the website, and each presentation flag", async () => {
    const response = await post(server, {
      ...basic,
      website: "http://example.com",
      show_map: false,
      show_map_link: false,
      hide_from_listings: true,
      sticky: true,
      featured: true,
      ticketed: true,
    });
    expect(response.body).toMatchObject({
      website: "http://example.com",
      show_map: false,
      show_map_link: false,
      hide_from_listings: true,
      sticky: true,
      featured: true,
      ticketed: true,
    });
    const defaults = await post(server, basic);
    expect(defaults.body).toMatchObject({
      show_map: true,
      show_map_link: true,
      hide_from_listings: false,
      sticky: false,
      featured: false,
      ticketed: false,
    });
  });

  it("links venues, organizers, categories and tags in the order given", async () => {
    const [o1, o2] = [
      await createLinkedVia(server, "organizers", { organizer: "O1" }),
      await createLinkedVia(server, "organizers", { organizer: "O2" }),
    ];
    const [c1, c2] = [
      await createTermVia(server, "categories", { name: "C1" }),
      await createTermVia(server, "categories", { name: "C2" }),
    ];
    const [t1, t2] = [
      await createTermVia(server, "tags", { name: "T1" }),
      await createTermVia(server, "tags", { name: "T2" }),
    ];
    const response = await post(server, {
      ...basic,
      organizer: [o2.id, o1.id],
      categories: [c2.id, c1.id],
      tags: [t1.id, t2.id],
    });
    expect(response.body.organizer.map((o: { id: number }) => o.id)).toEqual([o2.id, o1.id]);
    expect(response.body.categories.map((c: { id: number }) => c.id)).toEqual([c2.id, c1.id]);
    expect(response.body.tags.map((t: { id: number }) => t.id)).toEqual([t1.id, t2.id]);
    const empty = await post(server, { ...basic, categories: [], tags: [] });
    expect(empty.body).toMatchObject({ categories: [], tags: [] });
  });

  it("refuses to link a trashed venue", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Gone" });
    await server.raw("DELETE", `${root}/venues/${venue.id}`, { headers: ADMIN_HEADERS });
    const response = await post(server, { ...basic, venue: [venue.id] });
    expect(Object.keys(response.body.data.params)).toEqual(["venue"]);
  });

  it("derives the slug from the title and keeps slugs unique", async () => {
    const first = await post(server, { ...basic, title: "Same Title" });
    const second = await post(server, { ...basic, title: "Same Title" });
    const given = await post(server, { ...basic, title: "Other", slug: "Same Title" });
    expect([first.body.slug, second.body.slug, given.body.slug]).toEqual([
      "same-title",
      "same-title-2",
      "same-title-3",
    ]);
  });
});

describe("POST, PUT and PATCH /events/{id}", () => {
  const update = (id: number, body: unknown, method = "POST", headers: Record<string, string> = ADMIN_HEADERS) =>
    server.raw(method, `${root}/events/${id}`, { body, headers });

  it("answers anonymous callers with 401 and unknown ids with 404", async () => {
    const event = await createEventVia(server, basic);
    expect((await update(event.id, { title: "x" }, "POST", {})).status).toBe(401);
    const unknown = await update(2389, { title: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("rest-event-not-found");
  });

  it.each(["POST", "PUT", "PATCH"])(
    "%s changes the fields given and keeps the others, flags, website and organizers included",
    async (method) => {
      const organizer = await createLinkedVia(server, "organizers", { organizer: `Kept ${method}` });
      const event = await createEventVia(server, {
        ...basic,
        featured: true,
        sticky: true,
        website: "https://kept.example.org/",
        organizer: [organizer.id],
        description: "Kept",
      });
      const response = await update(event.id, { title: "New title", slug: "an-interesting-event" }, method);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        title: "New title",
        slug: method === "POST" ? "an-interesting-event" : expect.stringMatching(/^an-interesting-event-\d$/),
        featured: true,
        sticky: true,
        website: "https://kept.example.org/",
        description: "<p>Kept</p>",
        organizer: [expect.objectContaining({ id: organizer.id })],
        start_date: basic.start_date,
      });
    },
  );

  it("unlinks with empty lists", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "V" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "O" });
    const category = await createTermVia(server, "categories", { name: "C" });
    const event = await createEventVia(server, {
      ...basic,
      venue: [venue.id],
      organizer: [organizer.id],
      categories: [category.id],
    });
    const response = await update(event.id, { venue: [], organizer: [], categories: [] });
    expect(response.body).toMatchObject({ venue: [], organizer: [], categories: [] });
  });

  it("reads new dates in a new time zone, and keeps the wall clock when only the zone changes", async () => {
    const event = await createEventVia(server, {
      title: "Moving",
      timezone: "America/New_York",
      start_date: "tomorrow 9am",
      end_date: "tomorrow 11am",
    });
    expect(event.utc_start_date).toBe("2026-11-22 14:00:00");
    const paris = await update(event.id, {
      timezone: "Europe/Paris",
      start_date: "tomorrow 9am",
      end_date: "tomorrow 11am",
    });
    expect(paris.body).toMatchObject({
      timezone: "Europe/Paris",
      start_date: "2026-11-22 09:00:00",
      utc_start_date: "2026-11-22 08:00:00",
      timezone_abbr: "CET",
    });
    const tokyo = await update(event.id, { timezone: "Asia/Tokyo" });
    expect(tokyo.body).toMatchObject({ start_date: "2026-11-22 09:00:00", utc_start_date: "2026-11-22 00:00:00" });
  });

  it("checks start and end together when only one changes", async () => {
    const event = await createEventVia(server, basic);
    const response = await update(event.id, { start_date: "2026-12-02 10:00:00" });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.data.params)).toEqual(["end_date"]);
  });

  it("refuses an event that would last more than 50 years, on both databases alike (issue 57)", async () => {
    const event = await createEventVia(server, basic);
    for (const body of [{ end_date: 253402300799 }, { start_date: "0001-01-01 00:00:00" }]) {
      const response = await update(event.id, body);
      expect([response.status, response.body.data.details.end_date.code]).toEqual([400, "rest_event_too_long"]);
    }
    expect((await update(event.id, { end_date: "2075-01-01 00:00:00" })).status).toBe(200);
  });

  it("moves one end alone when only it is given, the other staying (a departure: the original ignores it)", async () => {
    const event = await createEventVia(server, basic);
    const moved = await update(event.id, { start_date: "2026-12-01 09:00:00" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ start_date: "2026-12-01 09:00:00", end_date: event.end_date });
  });

  it("changes the post date as a site-time string", async () => {
    const event = await createEventVia(ny, basic);
    const response = await ny.raw("POST", `${root}/events/${event.id}`, {
      body: { date: "2026-11-01 08:00:00" },
      headers: ADMIN_HEADERS,
    });
    // New York is back on EST (UTC-5) by 08:00 on 2026-11-01.
    expect(response.body).toMatchObject({ date: "2026-11-01 08:00:00", date_utc: "2026-11-01 13:00:00" });
  });

  it("updates by slug, in the request language", async () => {
    const event = await createEventVia(server, { ...basic, title: "By slug" });
    const response = await server.raw("PATCH", `${root}/events/by-slug/by-slug`, {
      body: { featured: true },
      headers: ADMIN_HEADERS,
    });
    expect(response.body).toMatchObject({ id: event.id, featured: true });
  });

  it("refuses an event as its own parent", async () => {
    const event = await createEventVia(server, basic);
    const response = await update(event.id, { post_parent: event.id });
    expect(Object.keys(response.body.data.params)).toEqual(["post_parent"]);
  });
});

describe("DELETE /events/{id}", () => {
  it("checks credentials first, then answers unknown ids with 404", async () => {
    const event = await createEventVia(server, basic);
    expect((await server.raw("DELETE", `${root}/events/${event.id}`)).status).toBe(401);
    const unknown = await server.raw("DELETE", `${root}/events/2389`, { headers: ADMIN_HEADERS });
    expect(unknown.status).toBe(404);
  });

  it("trashes (200, the event), then answers 410 event-is-in-trash", async () => {
    const event = await createEventVia(server, basic);
    const first = await server.raw("DELETE", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: event.id, status: "trash" });
    const again = await server.raw("DELETE", `${root}/events/by-slug/${event.slug}`, { headers: ADMIN_HEADERS });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe("event-is-in-trash");
  });

  it("ignores force=true on a live event (trash, as the original), and deletes a trashed one for good with it", async () => {
    const event = await createEventVia(server, basic);
    const trashed = await server.raw("DELETE", `${root}/events/${event.id}?force=true`, { headers: ADMIN_HEADERS });
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe("trash");
    expect((await server.raw("GET", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS })).status).toBe(403);
    const response = await server.raw("DELETE", `${root}/events/${event.id}?force=true`, { headers: ADMIN_HEADERS });
    expect(response.status).toBe(200);
    expect((await server.raw("GET", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS })).status).toBe(404);
  });
});
