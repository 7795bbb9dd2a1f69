// GET /events filters: the "Event filters" table of docs/compatibility.md §12 (categories, tags,
// featured, organizer, venue, post_parent, include), plus ticketed and geoloc.
import { clearContent, createLinkedVia, createTermVia } from "./support/fixtures";
import { createEvents, fixedClock, ids, type EventJson } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());
afterEach(() => clearContent(server));

const events = (query = "", headers: Record<string, string> = {}) =>
  server.raw("GET", `/calendar/events/v1/events${query}`, { headers });

describe.each<["categories" | "tags", "category" | "tag"]>([
  ["categories", "category"],
  ["tags", "tag"],
])("%s", (param) => {
  it("rejects a term that does not exist, by slug or id", async () => {
    for (const value of ["cat1", "2389"]) {
      const response = await events(`?${param}[]=${value}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    }
  });

  it("answers an existing term without events with an empty list", async () => {
    const term = await createTermVia(server, param, { name: "cat1" });
    const response = await events(`?${param}=${term.slug}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ events: [], total: 0, total_pages: 0 });
    expect(response.body).not.toHaveProperty("next_rest_url");
  });

  it("lists the term's events, and pages them", async () => {
    const term = await createTermVia(server, param, { name: "cat1" });
    const inTerm = await createEvents(server, 4, { fields: { [param]: [term.id] } });
    await createEvents(server, 4, { firstHour: 100 });
    expect(ids((await events(`?${param}=cat1`)).body.events)).toEqual(ids(inTerm));
    const second = await events(`?${param}=cat1&per_page=3&page=2`);
    expect(ids(second.body.events)).toEqual([inTerm[3].id]);
  });

  it("ORs several terms, given as an array of slugs or a comma-separated string of ids", async () => {
    const one = await createTermVia(server, param, { name: "cat1" });
    const two = await createTermVia(server, param, { name: "cat2" });
    const first = await createEvents(server, 2, { fields: { [param]: [one.id] } });
    const second = await createEvents(server, 2, { firstHour: 50, fields: { [param]: [two.id] } });
    await createEvents(server, 2, { firstHour: 100 });
    const expected = [...ids(first), ...ids(second)];
    expect(ids((await events(`?${param}[]=cat1&${param}[]=cat2`)).body.events)).toEqual(expected);
    expect(ids((await events(`?${param}=${one.id},${two.id}`)).body.events)).toEqual(expected);
  });
});

describe("featured", () => {
  it("filters featured and not featured events, and both when not asked", async () => {
    const normal = await createEvents(server, 3);
    expect((await events("?featured=true")).body).toMatchObject({ events: [], total: 0 });
    const featured = await createEvents(server, 3, { firstHour: 50, fields: { featured: true } });
    expect(ids((await events("?featured=true")).body.events)).toEqual(ids(featured));
    expect(ids((await events("?featured=false")).body.events)).toEqual(ids(normal));
    expect(ids((await events("?featured=1")).body.events)).toEqual(ids(featured));
    expect((await events()).body.total).toBe(6);
    expect((await events("?featured=maybe")).status).toBe(400);
  });

  it("shows featured drafts to editors only", async () => {
    const published = await createEvents(server, 3, { fields: { featured: true } });
    const drafts = await createEvents(server, 3, { firstHour: 50, fields: { featured: true, status: "draft" } });
    expect(ids((await events("?featured=true")).body.events)).toEqual(ids(published));
    expect(ids((await events("?featured=true", ADMIN_HEADERS)).body.events)).toEqual([
      ...ids(published),
      ...ids(drafts),
    ]);
  });
});

describe.each<["organizer" | "venue", "organizers" | "venues"]>([
  ["organizer", "organizers"],
  ["venue", "venues"],
])("%s", (param, collection) => {
  const nameKey = param;

  async function linked(count: number): Promise<Array<{ id: number; events: EventJson[] }>> {
    const result = [];
    for (let i = 0; i < count; i += 1) {
      const item = await createLinkedVia(server, collection, { [nameKey]: `${param} ${i}` });
      result.push({
        id: item.id,
        events: await createEvents(server, 3, { firstHour: 24 + i * 10, fields: { [param]: [item.id] } }),
      });
    }
    return result;
  }

  it("ORs the items given, as an array or a comma-separated string", async () => {
    const [o1, o2, o3] = await linked(3);
    await createEvents(server, 3, { firstHour: 200 });
    const o4 = await createLinkedVia(server, collection, { [nameKey]: "no events" });
    expect(ids((await events(`?${param}[]=${o1.id}`)).body.events)).toEqual(ids(o1.events));
    expect(ids((await events(`?${param}[]=${o1.id}&${param}[]=${o2.id}`)).body.events)).toEqual([
      ...ids(o1.events),
      ...ids(o2.events),
    ]);
    expect((await events(`?${param}=${o1.id},${o2.id},${o3.id}`)).body.total).toBe(9);
    expect((await events(`?${param}=${o1.id},${o2.id},${o3.id},${o4.id}`)).body.total).toBe(9);
  });

  it("rejects ids that are not numbers or not items of that kind", async () => {
    for (const value of ["foo", "23"]) {
      const response = await events(`?${param}=${value}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    }
  });

  it("answers an item without events with an empty list", async () => {
    const item = await createLinkedVia(server, collection, { [nameKey]: "lonely" });
    expect((await events(`?${param}=${item.id}`)).body).toMatchObject({ events: [], total: 0 });
  });

  it("hides the item's draft events from anonymous callers, not from editors", async () => {
    const item = await createLinkedVia(server, collection, { [nameKey]: "drafty" });
    await createEvents(server, 3, { fields: { [param]: [item.id], status: "draft" } });
    expect((await events(`?${param}=${item.id}`)).body.total).toBe(0);
    expect((await events(`?${param}=${item.id}`, ADMIN_HEADERS)).body.total).toBe(3);
  });
});

describe("several organizers", () => {
  it("matches events with any of theirs", async () => {
    const o1 = await createLinkedVia(server, "organizers", { organizer: "o1" });
    const o2 = await createLinkedVia(server, "organizers", { organizer: "o2" });
    await createEvents(server, 3, { fields: { organizer: [o1.id] } });
    await createEvents(server, 3, { firstHour: 50, fields: { organizer: [o2.id] } });
    await createEvents(server, 3, { firstHour: 100, fields: { organizer: [o1.id, o2.id] } });
    expect((await events(`?organizer=${o1.id},${o2.id}`)).body.total).toBe(9);
    expect((await events(`?organizer=${o1.id}`)).body.total).toBe(6);
  });
});

describe("post_parent", () => {
  it("lists the children of an event, and rejects an unknown or non-numeric parent", async () => {
    const [parent] = await createEvents(server, 1);
    const children = await createEvents(server, 2, { firstHour: 50, fields: { post_parent: parent.id } });
    await createEvents(server, 2, { firstHour: 80 });
    const response = await events(`?post_parent=${parent.id}`);
    expect(response.body).toMatchObject({ total: 2, total_pages: 1 });
    expect(ids(response.body.events)).toEqual(ids(children));
    for (const value of ["foo-bar", "23"]) {
      const bad = await events(`?post_parent=${value}`);
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.data.params)).toEqual(["post_parent"]);
    }
  });
});

describe("include", () => {
  it("lists exactly the events given, as an array or a comma-separated string", async () => {
    const created = await createEvents(server, 3);
    expect(
      (await events(`?include[]=${created[0].id}&include[]=${created[1].id}&include[]=${created[2].id}`)).body.total,
    ).toBe(3);
    expect((await events(`?include=${ids(created).join(",")}`)).body.total).toBe(3);
    const two = await events(`?include=${created[0].id},${created[2].id}`);
    expect(ids(two.body.events)).toEqual([created[0].id, created[2].id]);
    // With keys, as PHP clients write arrays: the values are the list.
    const keyed = await events(`?include[a]=${created[0].id}&include[b]=${created[2].id}`);
    expect(ids(keyed.body.events)).toEqual([created[0].id, created[2].id]);
    // Nested deeper, it is no list of ids.
    const nested = await events(`?include[a][b]=${created[0].id}`);
    expect(nested.status).toBe(400);
    expect(Object.keys(nested.body.data.params)).toEqual(["include"]);
  });

  it("ignores the date window, the default and dates given, as the original does", async () => {
    const [past] = await createEvents(server, 1, { firstHour: -24 * 30 });
    expect(ids((await events(`?include=${past.id}`)).body.events)).toEqual([past.id]);
    const dated = await events(`?include=${past.id}&start_date=today&ends_before=2030-01-01&strict_dates=true`);
    expect(ids(dated.body.events)).toEqual([past.id]);
    expect(dated.body.rest_url).toContain("start_date=");
    // Still read: a date that is none is 400.
    expect((await events(`?include=${past.id}&start_date=not-a-date`)).status).toBe(400);
  });

  it("names a trashed event for those who may list the trash, with status=trash; for others it is unknown (issue 45)", async () => {
    const [trashed, kept] = await createEvents(server, 2);
    expect(
      (await server.raw("DELETE", `/calendar/events/v1/events/${trashed.id}`, { headers: ADMIN_HEADERS })).status,
    ).toBe(200);
    const listed = await events(`?include=${trashed.id},${kept.id}&status=trash`, ADMIN_HEADERS);
    expect([listed.status, ids(listed.body.events)]).toEqual([200, [trashed.id]]);
    const withoutStatus = await events(`?include=${trashed.id}`, ADMIN_HEADERS);
    expect([withoutStatus.status, withoutStatus.body.total]).toEqual([200, 0]);
    const anonymous = await events(`?include=${trashed.id}`);
    expect([anonymous.status, Object.keys(anonymous.body.data.params)]).toEqual([400, ["include"]]);
  });

  it("rejects lists with non-numbers", async () => {
    for (const query of ["include=foo-bar,23,89", "include[]=foo-bar&include[]=23"]) {
      const response = await events(`?${query}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual(["include"]);
    }
  });
});

describe("ticketed", () => {
  it("filters events with and without tickets", async () => {
    const withTickets = await createEvents(server, 2, { fields: { ticketed: true } });
    const without = await createEvents(server, 2, { firstHour: 50 });
    expect(ids((await events("?ticketed=true")).body.events)).toEqual(ids(withTickets));
    expect(ids((await events("?ticketed=false")).body.events)).toEqual(ids(without));
  });
});

describe("geoloc", () => {
  it("lists events at venues within the radius (great-circle distance), 10 km by default", async () => {
    const near = await createLinkedVia(server, "venues", { venue: "Near", geo_lat: 40.7306, geo_lng: -73.9866 });
    const mid = await createLinkedVia(server, "venues", { venue: "Mid", geo_lat: 40.85, geo_lng: -73.9866 });
    const far = await createLinkedVia(server, "venues", { venue: "Far", geo_lat: 42.36, geo_lng: -71.06 });
    const [atNear] = await createEvents(server, 1, { fields: { venue: [near.id] } });
    const [atMid] = await createEvents(server, 1, { firstHour: 30, fields: { venue: [mid.id] } });
    await createEvents(server, 1, { firstHour: 40, fields: { venue: [far.id] } });
    const center = "geoloc=true&geoloc_lat=40.7306&geoloc_lng=-73.9866";
    expect(ids((await events(`?${center}`)).body.events)).toEqual([atNear.id]);
    expect(ids((await events(`?${center}&geoloc_radius=20`)).body.events)).toEqual([atNear.id, atMid.id]);
    expect((await events(`?${center}&geoloc_radius=400`)).body.total).toBe(3);
  });

  it("handles circles across the antimeridian", async () => {
    const fiji = await createLinkedVia(server, "venues", { venue: "West of the line", geo_lat: -17.7, geo_lng: 179.9 });
    const [event] = await createEvents(server, 1, { fields: { venue: [fiji.id] } });
    expect(ids((await events("?geoloc=true&geoloc_lat=-17.7&geoloc_lng=-179.9&geoloc_radius=50")).body.events)).toEqual(
      [event.id],
    );
  });

  it("without a point, lists the events at venues that have coordinates, as Events Calendar Pro does", async () => {
    const located = await createLinkedVia(server, "venues", { venue: "Located", geo_lat: 38.71, geo_lng: -9.14 });
    const unlocated = await createLinkedVia(server, "venues", { venue: "Unlocated", city: "Lisboa" });
    const [atLocated] = await createEvents(server, 1, { fields: { venue: [located.id] } });
    await createEvents(server, 1, { firstHour: 30, fields: { venue: [unlocated.id] } });
    await createEvents(server, 1, { firstHour: 40 });
    const list = await events("?geoloc=true");
    expect(list.status).toBe(200);
    expect(ids(list.body.events)).toEqual([atLocated.id]);
    expect((await events("?geoloc=false")).body.total).toBe(3);
  });

  it("requires both coordinates of a point, and rejects coordinates out of range", async () => {
    const missing = await events("?geoloc=true&geoloc_lat=40");
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.data.params)).toEqual(["geoloc_lng"]);
    const out = await events("?geoloc=true&geoloc_lat=91&geoloc_lng=0");
    expect(Object.keys(out.body.data.params)).toEqual(["geoloc_lat"]);
    expect((await events("?geoloc=true&geoloc_lat=0&geoloc_lng=0&geoloc_radius=0")).status).toBe(400);
  });
});
