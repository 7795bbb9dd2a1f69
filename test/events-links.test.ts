// The filters of venues, organizers and terms that need events (VenueByEvent/ByEmpty/ByUpcoming
// and the term post/event rows of docs/compatibility.md §12), term counts, and unlinking on trash.
import { clearContent, createLinkedVia, createTermVia, type LinkedCollection } from "./support/fixtures";
import { createEventVia, createEvents, fixedClock, utcWall } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());
afterEach(() => clearContent(server));

const root = "/calendar/events/v1";

describe.each<[LinkedCollection, "venue" | "organizer"]>([
  ["venues", "venue"],
  ["organizers", "organizer"],
])("/%s filters that need events", (collection, field) => {
  const list = (query: string, headers: Record<string, string> = {}) =>
    server.raw("GET", `${root}/${collection}${query}`, { headers });
  const names = (body: any): string[] => body[collection].map((item: any) => item[field]).sort();
  const make = (name: string, extra: Record<string, unknown> = {}) =>
    createLinkedVia(server, collection, { [field]: name, ...extra });
  const event = (id: number, extra: Record<string, unknown> = {}) =>
    createEvents(server, 1, { fields: { [field]: [id], ...extra } });

  it("lists the items of an event", async () => {
    const items = [await make("v1"), await make("v2"), await make("v3")];
    const events = [];
    for (const item of items) events.push((await event(item.id))[0]);
    for (const [i, item] of items.entries()) {
      const response = await list(`?event=${events[i].id}`);
      expect(response.body[collection].map((x: { id: number }) => x.id)).toEqual([item.id]);
    }
    const [bare] = await createEvents(server, 1, { firstHour: 90 });
    expect((await list(`?event=${bare.id}`)).body).toMatchObject({ total: 0, [collection]: [] });
  });

  it("does not show an event's draft item to anonymous callers", async () => {
    const draft = await make("draft item", { status: "draft" });
    const [linked] = await event(draft.id);
    expect((await list(`?event=${linked.id}`)).body.total).toBe(0);
    expect((await list(`?event=${linked.id}`, ADMIN_HEADERS)).body.total).toBe(1);
  });

  it("has_events: linked to an event that is not a draft or pending, or not", async () => {
    const v1 = await make("v1");
    const v2 = await make("v2");
    const v3 = await make("v3");
    await event(v1.id, { status: "draft" });
    await event(v2.id, { status: "pending" });
    await event(v3.id);
    expect(names((await list("?has_events=true")).body)).toEqual(["v3"]);
    expect(names((await list("?has_events=false")).body)).toEqual(["v1", "v2"]);
    expect(names((await list("?has_events=1")).body)).toEqual(["v3"]);
    // The words the original reads as yes and no (tribe_is_truthy), in any case; others are refused.
    for (const yes of ["yes", "Y", "on", "enabled"])
      expect(names((await list(`?has_events=${yes}`)).body)).toEqual(["v3"]);
    for (const no of ["no", "off", "N"]) expect(names((await list(`?has_events=${no}`)).body)).toEqual(["v1", "v2"]);
    const refused = await list("?has_events=maybe");
    expect([refused.status, refused.body.code, Object.keys(refused.body.data.params)]).toEqual([
      400,
      "rest_invalid_param",
      ["has_events"],
    ]);
    // Where the original reads a WordPress boolean, only true, false, 1 and 0 are.
    expect((await server.raw("GET", `${root}/events?featured=yes`)).status).toBe(400);
  });

  it("has_events gives empty lists when no item qualifies", async () => {
    await make("unlinked");
    expect((await list("?has_events=true")).body).toMatchObject({ total: 0, total_pages: 0 });
    if (collection === "venues") await server.db.write.venue.deleteMany({});
    else await server.db.write.organizer.deleteMany({});
    const linked = await make("linked");
    await event(linked.id);
    expect((await list("?has_events=false")).body.total).toBe(0);
  });

  it("only_with_upcoming: linked to an event, readable by the caller, that starts now or later", async () => {
    const v1 = await make("v1");
    const v2 = await make("v2");
    const v3 = await make("v3");
    await make("v4");
    await event(v1.id);
    await createEvents(server, 1, { firstHour: 24 * 30, fields: { [field]: [v2.id] } });
    await createEvents(server, 1, { firstHour: -24 * 30, fields: { [field]: [v3.id] } });
    expect(names((await list("?only_with_upcoming=true")).body)).toEqual(["v1", "v2"]);
    expect((await list("?only_with_upcoming=false")).body.total).toBe(4);
    expect((await list("")).body.total).toBe(4);
  });

  it("only_with_upcoming counts private, draft and pending events for editors only", async () => {
    const v1 = await make("v1");
    const v2 = await make("v2");
    const v3 = await make("v3");
    await event(v1.id);
    await event(v2.id, { status: "private" });
    await event(v3.id, { status: "draft" });
    expect(names((await list("?only_with_upcoming=true")).body)).toEqual(["v1"]);
    expect(names((await list("?only_with_upcoming=true", ADMIN_HEADERS)).body)).toEqual(["v1", "v2", "v3"]);
  });

  it("unlinks a trashed item from its events", async () => {
    const item = await make("to trash");
    const [linked] = await event(item.id);
    await server.raw("DELETE", `${root}/${collection}/${item.id}`, { headers: ADMIN_HEADERS });
    const response = await server.raw("GET", `${root}/events/${linked.id}`);
    expect(response.body[field]).toEqual([]);
  });
});

describe("term filters that need events, and counts", () => {
  it("lists an event's terms by post or event, event winning over post", async () => {
    const [c1, c2, c3] = [
      await createTermVia(server, "categories", { name: "c1" }),
      await createTermVia(server, "categories", { name: "c2" }),
      await createTermVia(server, "categories", { name: "c3" }),
    ];
    const e1 = await createEventVia(server, {
      title: "e1",
      start_date: utcWall(24),
      end_date: utcWall(25),
      categories: [c1.id, c2.id],
    });
    const e2 = await createEventVia(server, {
      title: "e2",
      start_date: utcWall(24),
      end_date: utcWall(25),
      categories: [c3.id],
    });
    expect((await server.api.GET("/categories", { params: { query: { post: e1.id } } })).data?.total).toBe(2);
    expect((await server.api.GET("/categories", { params: { query: { event: e1.id } } })).data?.total).toBe(2);
    expect(
      (await server.api.GET("/categories", { params: { query: { post: e1.id, event: e2.id } } })).data?.total,
    ).toBe(1);
  });

  it("rejects an event filter naming an event the caller may not read", async () => {
    const tag = await createTermVia(server, "tags", { name: "t" });
    const draft = await createEventVia(server, {
      title: "d",
      start_date: utcWall(24),
      end_date: utcWall(25),
      tags: [tag.id],
      status: "draft",
    });
    expect((await server.raw("GET", `${root}/tags?event=${draft.id}`)).status).toBe(400);
    expect(
      (await server.raw("GET", `${root}/tags?event=${draft.id}&hide_empty=false`, { headers: ADMIN_HEADERS })).body
        .total,
    ).toBe(1);
  });

  it("counts published events only, and keeps counts right through updates, trash and deletion", async () => {
    const category = await createTermVia(server, "categories", { name: "Counted" });
    const count = async () =>
      (await server.api.GET("/categories/{id}", { params: { path: { id: category.id } } })).data!.count;
    const [first] = await createEvents(server, 2, { fields: { categories: [category.id] } });
    await createEvents(server, 1, { firstHour: 50, fields: { categories: [category.id], status: "draft" } });
    expect(await count()).toBe(2);
    expect((await server.api.GET("/categories")).data?.categories.map((c) => c.name)).toEqual(["Counted"]);
    await server.raw("PATCH", `${root}/events/${first.id}`, { body: { categories: [] }, headers: ADMIN_HEADERS });
    expect(await count()).toBe(1);
    await server.raw("PATCH", `${root}/events/${first.id}`, {
      body: { categories: [category.id] },
      headers: ADMIN_HEADERS,
    });
    expect(await count()).toBe(2);
    await server.raw("DELETE", `${root}/events/${first.id}`, { headers: ADMIN_HEADERS });
    expect(await count()).toBe(1);
    await server.raw("PATCH", `${root}/events/${first.id}`, { body: { status: "publish" }, headers: ADMIN_HEADERS });
    expect(await count()).toBe(2);
    await server.raw("DELETE", `${root}/events/${first.id}?force=true`, { headers: ADMIN_HEADERS });
    expect(await count()).toBe(1);
  });

  it("keeps a deleted term's events, without the term", async () => {
    const tag = await createTermVia(server, "tags", { name: "Temporary" });
    const [linked] = await createEvents(server, 1, { fields: { tags: [tag.id] } });
    await server.admin.DELETE("/tags/{id}", { params: { path: { id: tag.id } } });
    const response = await server.raw("GET", `${root}/events/${linked.id}`);
    expect(response.body.tags).toEqual([]);
  });
});
