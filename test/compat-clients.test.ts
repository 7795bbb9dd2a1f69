import { createHash } from "node:crypto";
// Drop-in for the original's clients (docs/compatibility.md §1 step 7, §5.1, §7.1, §7.2): the request
// shapes real clients of `tribe/events/v1` send, replayed with only the namespace changed, and
// their results checked field by field.
// - The original's own MCP server (the-events-calendar/mcp-server, src/api/client.ts and
//   src/tools/*.ts while it used tribe/events/v1): JSON bodies with `title` beside the name field,
//   `type`, `date_gmt` and `organizers`, which the original ignores; `venue` as a bare id; list
//   filters it passes whatever the resource (`city`, `email`, `orderby`, `exclude`, `status`);
//   `DELETE ?force=true` from any role; `Content-Type: application/json` on bodiless requests.
// - A push importer: `show_map: 'true'` and `show_map_link: 'true'` on every venue and event, then
//   `DELETE ?force=true`.
// - Original-style bodies: venues and organizers given inline, as ids in strings and comma lists,
//   terms by name, flags as "1"; PHP's `wp_remote_post` with an array body (form-encoded).
// - WordPress's global query parameters: `_`, `context`, `_embed`, `_fields`, `_envelope`.
// And the two behaviours of the original these clients rely on: DELETE moves to the trash, and
// markup from users without `unfiltered_html` is filtered on save.
import { createUser, type CreatedUser } from "../src/resources/users/user-admin";
import { fixedClock, utcWall } from "./support/events";
import { clearContent, createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

let server: TestServer;
const users: Record<string, CreatedUser> = {};

beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
  for (const role of ["editor", "author", "contributor"])
    users[role] = await createUser(server.db, { login: `compat-${role}`, role });
});
afterAll(() => server.close());
afterEach(() => clearContent(server));

const root = "/calendar/events/v1";
const START = utcWall(24);
const END = utcWall(26);

/** What the MCP server sends on every request: Basic auth with an application password, and a JSON content type. */
function mcpHeaders(role: string): Record<string, string> {
  const user = users[role];
  return {
    Authorization: `Basic ${Buffer.from(`compat-${role}:${user.application_password}`).toString("base64")}`,
    "Content-Type": "application/json",
  };
}

const bearer = (role: string) =>
  role === "administrator" ? ADMIN_HEADERS : { Authorization: `Bearer ${users[role].api_key}` };
const send = (role: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  server.raw(method, `${root}${path}`, { body, headers: { ...bearer(role), ...headers } });

/** PHP's http_build_query, as `wp_remote_post` encodes an array body. */
function phpForm(data: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) value.forEach((item, index) => add(`${key}[${index}]`, item));
    else if (typeof value === "object")
      for (const [field, item] of Object.entries(value)) add(`${key}[${field}]`, item);
    else
      pairs.push(
        `${encodeURIComponent(key)}=${encodeURIComponent(typeof value === "boolean" ? (value ? "1" : "0") : String(value))}`,
      );
  };
  for (const [key, value] of Object.entries(data)) add(key, value);
  return pairs.join("&").replace(/%20/g, "+");
}

const postForm = (role: string, path: string, form: string) =>
  server.raw("POST", `${root}${path}`, {
    rawBody: form,
    headers: { ...bearer(role), "Content-Type": "application/x-www-form-urlencoded" },
  });

function expectStatus(response: RawResponse, status: number): void {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
}

const termNames = (terms: Array<{ name: string }>) => terms.map((term) => term.name);

describe("the original's MCP server (tribe/events/v1)", () => {
  it("creates a venue, an organizer and an event linked by a bare venue id, with the fields it sends", async () => {
    const venue = await send(
      "editor",
      "POST",
      "/venues",
      {
        title: "City Convention Center",
        venue: "City Convention Center",
        address: "123 Main Street",
        city: "Portland",
        state: "OR",
        zip: "97201",
        country: "United States",
        phone: "+1 503 555 0100",
        website: "https://convention.example.com",
        status: "publish",
        type: "tribe_venue",
      },
      mcpHeaders("editor"),
    );
    expectStatus(venue, 201);
    expect(venue.body).toMatchObject({
      venue: "City Convention Center",
      address: "123 Main Street",
      city: "Portland",
      state: "OR",
      zip: "97201",
      country: "United States",
      status: "publish",
    });

    const organizer = await send(
      "editor",
      "POST",
      "/organizers",
      {
        title: "Local Arts Council",
        organizer: "Local Arts Council",
        email: "info@localartscouncil.org",
        phone: "(555) 123-4567",
        website: "https://localartscouncil.org",
        status: "publish",
        type: "tribe_organizer",
      },
      mcpHeaders("editor"),
    );
    expectStatus(organizer, 201);
    expect(organizer.body).toMatchObject({
      organizer: "Local Arts Council",
      email: "info@localartscouncil.org",
      phone: "(555) 123-4567",
      website: "https://localartscouncil.org",
    });

    const event = await send(
      "editor",
      "POST",
      "/events",
      {
        title: "Annual Gala",
        start_date: START,
        end_date: END,
        description: "Our yearly fundraiser",
        timezone: "UTC",
        all_day: false,
        cost: "$150",
        status: "publish",
        type: "tribe_events",
        date_gmt: START,
        venue: venue.body.id,
        organizer: organizer.body.id,
        organizers: [organizer.body.id],
      },
      mcpHeaders("editor"),
    );
    expectStatus(event, 201);
    expect(event.body).toMatchObject({
      title: "Annual Gala",
      start_date: START,
      end_date: END,
      all_day: false,
      cost: "$150",
      status: "publish",
      timezone: "UTC",
    });
    expect(event.body.description).toContain("Our yearly fundraiser");
    expect(event.body.venue).toMatchObject({ id: venue.body.id, venue: "City Convention Center", city: "Portland" });
    expect(event.body.organizer.map((item: { id: number }) => item.id)).toEqual([organizer.body.id]);

    const updated = await send(
      "editor",
      "PUT",
      `/events/${event.body.id}`,
      { title: "Annual Gala 2026", type: "tribe_events", venue: String(venue.body.id) },
      mcpHeaders("editor"),
    );
    expectStatus(updated, 200);
    expect(updated.body).toMatchObject({ title: "Annual Gala 2026", cost: "$150", start_date: START });
    expect(updated.body.venue.id).toBe(venue.body.id);
    expect(updated.body.organizer.map((item: { id: number }) => item.id)).toEqual([organizer.body.id]);
  });

  it("lists with the filters it passes to every resource, the unknown ones ignored as the original ignores them", async () => {
    const portland = await createLinkedVia(server, "venues", { venue: "Portland Hall", city: "Portland" });
    const boise = await createLinkedVia(server, "venues", { venue: "Boise Hall", city: "Boise" });
    await createLinkedVia(server, "organizers", { organizer: "Ann", email: "ann@example.com" });
    const get = (path: string) => server.raw("GET", `${root}${path}`, { headers: mcpHeaders("editor") });

    const venues = await get(
      "/venues?city=Portland&per_page=10&page=1&order=asc&orderby=title&exclude=999&status=publish",
    );
    expectStatus(venues, 200);
    expect(venues.body.venues.map((item: { id: number }) => item.id).sort()).toEqual([portland.id, boise.id].sort());
    expectStatus(await get("/organizers?email=ann%40example.com&orderby=title&include=1,2"), 200);
    const search = await get("/venues?search=Portland");
    expect(search.body.venues.map((item: { id: number }) => item.id)).toEqual([portland.id]);
    expectStatus(
      await get(
        `/events?search=gala&start_date=2026-11-01&end_date=2026-12-31&venue=${portland.id}&status=publish&exclude=3&per_page=10`,
      ),
      200,
    );
  });

  it("deletes with force=true as an editor: the item goes to the trash, as in the original", async () => {
    const event = await send(
      "editor",
      "POST",
      "/events",
      { title: "To trash", start_date: START, end_date: END },
      mcpHeaders("editor"),
    );
    const deleted = await server.raw("DELETE", `${root}/events/${event.body.id}?force=true`, {
      headers: mcpHeaders("editor"),
    });
    expectStatus(deleted, 200);
    expect(deleted.body).toMatchObject({ id: event.body.id, status: "trash" });
    const read = await send("administrator", "GET", `/events/${event.body.id}`);
    expect([read.status, read.body.code]).toEqual([403, "event-no-longer-available"]);
    expectStatus(
      await server.raw("DELETE", `${root}/events/${event.body.id}?force=true`, { headers: mcpHeaders("editor") }),
      410,
    );
  });
});

describe("a push importer", () => {
  it("sends show_map and show_map_link as strings on venues and events, then deletes with force=true", async () => {
    const venue = await send("editor", "POST", "/venues", {
      venue: "Harbour Stage",
      address: "1 Quay",
      city: "Oslo",
      show_map: "true",
      show_map_link: "true",
    });
    expectStatus(venue, 201);
    expect(venue.body).toMatchObject({ show_map: true, show_map_link: true });
    const event = await send("editor", "POST", "/events", {
      title: "Pushed",
      start_date: START,
      end_date: END,
      venue: venue.body.id,
      show_map: "true",
      show_map_link: "false",
    });
    expectStatus(event, 201);
    expect(event.body).toMatchObject({ show_map: true, show_map_link: false });
    const again = await send("editor", "PUT", `/events/${event.body.id}`, {
      title: "Pushed again",
      show_map: "false",
      show_map_link: "true",
    });
    expect(again.body).toMatchObject({ title: "Pushed again", show_map: false, show_map_link: true });
    for (const path of [`/events/${event.body.id}`, `/venues/${venue.body.id}`]) {
      const deleted = await send("editor", "DELETE", `${path}?force=true`);
      expectStatus(deleted, 200);
      expect(deleted.body.status).toBe("trash");
    }
  });
});

describe("booleans as WordPress reads them", () => {
  it.each([
    [true, true],
    ["true", true],
    ["TRUE", true],
    ["1", true],
    [1, true],
    [false, false],
    ["false", false],
    ["False", false],
    ["0", false],
    [0, false],
  ])("reads %j as %s", async (given, read) => {
    const response = await send("editor", "POST", "/events", {
      title: "Flags",
      start_date: START,
      end_date: END,
      featured: given,
      sticky: given,
      hide_from_listings: given,
      all_day: given,
    });
    expectStatus(response, 201);
    expect(response.body).toMatchObject({ featured: read, sticky: read, hide_from_listings: read, all_day: read });
  });

  it.each([["yes"], [2], [""], ["on"], [[true]]])("refuses %j with a 400 naming the field", async (given) => {
    const response = await send("editor", "POST", "/events", {
      title: "Flags",
      start_date: START,
      end_date: END,
      featured: given,
    });
    expectStatus(response, 400);
    expect(response.body.code).toBe("rest_invalid_param");
    expect(Object.keys(response.body.data.params)).toEqual(["featured"]);
  });
});

describe("venues and organizers as the original accepts them", () => {
  it('takes the original-style body of the issue in one request: inline venue, comma list of organizers, terms by name, a flag as "1"', async () => {
    const [first, second] = [
      await createLinkedVia(server, "organizers", { organizer: "First" }),
      await createLinkedVia(server, "organizers", { organizer: "Second" }),
    ];
    const liveMusic = await createTermVia(server, "categories", { name: "Live Music" });
    const response = await send("editor", "POST", "/events", {
      title: "Original style",
      start_date: START,
      end_date: END,
      venue: { venue: "New Place", city: "Oslo" },
      organizer: `${second.id},${first.id}`,
      categories: ["Live Music", "Brand New"],
      featured: "1",
    });
    expectStatus(response, 201);
    expect(response.body.venue).toMatchObject({ venue: "New Place", city: "Oslo", status: "publish" });
    expect(response.body.organizer.map((item: { id: number }) => item.id)).toEqual([second.id, first.id]);
    expect(termNames(response.body.categories)).toEqual(["Live Music", "Brand New"]);
    expect(response.body.categories[0].id).toBe(liveMusic.id);
    expect(response.body.featured).toBe(true);
    const created = await send("editor", "GET", `/categories?search=Brand`);
    expect(created.body.categories.map((term: { name: string; slug: string }) => [term.name, term.slug])).toEqual([
      ["Brand New", "brand-new"],
    ]);
  });

  it("reuses a venue of the same name (ignoring case) unless the description differs, and leaves it as it is", async () => {
    const existing = await createLinkedVia(server, "venues", {
      venue: "Blue Note",
      city: "New York",
      description: "Jazz club",
    });
    const event = (venue: unknown) =>
      send("editor", "POST", "/events", { title: "At the club", start_date: START, end_date: END, venue });

    const same = await event({ venue: "blue note", city: "Elsewhere" });
    expectStatus(same, 201);
    expect(same.body.venue).toMatchObject({ id: existing.id, city: "New York" });
    expect((await event({ venue: "Blue Note", description: "Jazz club" })).body.venue.id).toBe(existing.id);
    const other = await event({ venue: "Blue Note", description: "Another club" });
    expect(other.body.venue.id).not.toBe(existing.id);
    expect(other.body.venue).toMatchObject({
      venue: "Blue Note",
      description: expect.stringContaining("Another club"),
    });
  });

  it("does not reuse a venue the writer may not see, nor one in the trash", async () => {
    const draft = await createLinkedVia(server, "venues", { venue: "Hidden Hall", status: "draft" });
    const response = await send("contributor", "POST", "/events", {
      title: "Mine",
      start_date: START,
      end_date: END,
      venue: { venue: "Hidden Hall" },
    });
    expectStatus(response, 201);
    expect(response.body.venue.id).not.toBe(draft.id);
    // A contributor's new venue is their own draft, as POST /venues would make it.
    expect(response.body.venue.status).toBe("draft");

    const trashed = await createLinkedVia(server, "venues", { venue: "Old Barn" });
    await send("administrator", "DELETE", `/venues/${trashed.id}`);
    const next = await send("editor", "POST", "/events", {
      title: "Barn dance",
      start_date: START,
      end_date: END,
      venue: { venue: "Old Barn" },
    });
    expect(next.body.venue.id).not.toBe(trashed.id);
  });

  it('reads a venue as an id, digits, {id}, 0 or "" (none), and refuses an unknown one', async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Anywhere" });
    const created = await send("editor", "POST", "/events", {
      title: "Venues",
      start_date: START,
      end_date: END,
      venue: venue.id,
    });
    const id = created.body.id;
    for (const form of [venue.id, String(venue.id), { id: venue.id }, [venue.id]]) {
      await send("editor", "PATCH", `/events/${id}`, { venue: [] });
      const response = await send("editor", "PATCH", `/events/${id}`, { venue: form });
      expectStatus(response, 200);
      expect(response.body.venue.id).toBe(venue.id);
    }
    for (const none of [0, "", "0", []]) {
      await send("editor", "PATCH", `/events/${id}`, { venue: venue.id });
      const response = await send("editor", "PATCH", `/events/${id}`, { venue: none });
      expectStatus(response, 200);
      expect(response.body.venue).toEqual([]);
    }
    for (const unknown of [999999, "999999", { id: 999999 }]) {
      const response = await send("editor", "PATCH", `/events/${id}`, { venue: unknown });
      expectStatus(response, 400);
      expect(Object.keys(response.body.data.params)).toEqual(["venue"]);
    }
    expectStatus(await send("editor", "PATCH", `/events/${id}`, { venue: "Anywhere" }), 400);
  });

  it("reads organizers as an id, a comma list, and a list of ids, digits, {id} and data, keeping the order", async () => {
    const [a, b] = [
      await createLinkedVia(server, "organizers", { organizer: "Ann" }),
      await createLinkedVia(server, "organizers", { organizer: "Bob" }),
    ];
    const event = await send("editor", "POST", "/events", {
      title: "Organized",
      start_date: START,
      end_date: END,
      organizer: a.id,
    });
    const organizers = (response: RawResponse) =>
      response.body.organizer.map((item: { id: number; organizer: string }) => item.organizer);
    expect(organizers(event)).toEqual(["Ann"]);
    const patch = (organizer: unknown) => send("editor", "PATCH", `/events/${event.body.id}`, { organizer });
    expect(organizers(await patch(` ${b.id} , ${a.id} `))).toEqual(["Bob", "Ann"]);
    expect(
      organizers(await patch([String(a.id), { id: b.id }, { organizer: "Cleo", email: "cleo@example.com" }])),
    ).toEqual(["Ann", "Bob", "Cleo"]);
    expect(organizers(await patch([{ organizer: "cleo" }, a.id, String(a.id)]))).toEqual(["Cleo", "Ann"]);
    expect((await patch("")).body.organizer).toEqual([]);
    const cleo = await send("editor", "GET", `/organizers?search=Cleo`);
    expect(cleo.body.organizers.map((item: { email: string }) => item.email)).toEqual(["cleo@example.com"]);
  });

  it("reports a venue to create that breaks the venue rules under the venue's name, and creates nothing", async () => {
    const response = await send("editor", "POST", "/events", {
      title: "Bad venue",
      start_date: START,
      end_date: END,
      venue: { venue: "Somewhere", date: "not a date" },
    });
    expectStatus(response, 400);
    expect(Object.keys(response.body.data.params)).toEqual(["venue[date]"]);
    expect((await send("editor", "GET", "/venues")).body.total).toBe(0);
    const nameless = await send("editor", "POST", "/events", {
      title: "No name",
      start_date: START,
      end_date: END,
      venue: { city: "Oslo" },
    });
    expectStatus(nameless, 400);
    expect([nameless.body.code, Object.keys(nameless.body.data.params)]).toEqual(["rest_invalid_param", ["venue"]]);
  });
});

describe("categories and tags as the original accepts them", () => {
  it('links by id, slug or name, from a list or a comma string, and clears with "" or []', async () => {
    const music = await createTermVia(server, "categories", { name: "Music", slug: "music-cat" });
    const jazz = await createTermVia(server, "categories", { name: "Jazz" });
    const event = await send("editor", "POST", "/events", {
      title: "Terms",
      start_date: START,
      end_date: END,
      categories: `music-cat, ${jazz.id}`,
    });
    expectStatus(event, 201);
    expect(event.body.categories.map((term: { id: number }) => term.id)).toEqual([music.id, jazz.id]);
    const patch = (body: unknown) => send("editor", "PATCH", `/events/${event.body.id}`, body);
    expect(termNames((await patch({ categories: ["jazz", String(music.id)] })).body.categories)).toEqual([
      "Jazz",
      "Music",
    ]);
    expect((await patch({ categories: "" })).body.categories).toEqual([]);
    expect(termNames((await patch({ categories: ["JAZZ"] })).body.categories)).toEqual(["Jazz"]);
    expect((await patch({ categories: [] })).body.categories).toEqual([]);
    expect(termNames((await patch({ tags: "outdoors, Free entry" })).body.tags)).toEqual(["outdoors", "Free entry"]);
  });

  it("creates unknown names only for writers who may manage the taxonomy, and refuses unknown ids", async () => {
    await createTermVia(server, "tags", { name: "Existing" });
    const base = { title: "Terms", start_date: START, end_date: END };
    // Authors manage categories, not tags (docs/compatibility.md §8).
    const byAuthor = await send("author", "POST", "/events", {
      ...base,
      categories: ["Author's own"],
      tags: ["existing"],
    });
    expectStatus(byAuthor, 201);
    expect(termNames(byAuthor.body.categories)).toEqual(["Author's own"]);
    expect(termNames(byAuthor.body.tags)).toEqual(["Existing"]);
    expectStatus(await send("author", "POST", "/events", { ...base, tags: ["Brand new tag"] }), 403);
    expectStatus(await send("contributor", "POST", "/events", { ...base, categories: "Not yet" }), 403);
    expect((await send("editor", "GET", "/tags?search=Brand")).body.total).toBe(0);
    const unknown = await send("editor", "POST", "/events", { ...base, categories: [999999] });
    expectStatus(unknown, 400);
    expect(Object.keys(unknown.body.data.params)).toEqual(["categories"]);
  });
});

describe("form-encoded bodies (PHP's wp_remote_post with an array)", () => {
  it("creates an event with a venue to create, organizer and category lists, flags and numbers", async () => {
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Formal" });
    const parent = await send("editor", "POST", "/events", { title: "Parent", start_date: START, end_date: END });
    const form = phpForm({
      title: "Café & Bar",
      start_date: START,
      end_date: END,
      description: "Line one\n\nLine two",
      venue: { venue: "Form Hall", city: "Lisbon", geo_lat: "38.72", geo_lng: "-9.14", show_map: true },
      organizer: [organizer.id],
      categories: ["Form Category"],
      featured: true,
      show_map: false,
      post_parent: parent.body.id,
      website: "",
      cost: "10",
    });
    const response = await postForm("editor", "/events", form);
    expectStatus(response, 201);
    expect(response.body).toMatchObject({
      title: "Café & Bar",
      featured: true,
      show_map: false,
      cost: "10",
      post_parent: parent.body.id,
    });
    expect(response.body.description).toContain("Line two");
    expect(response.body.venue).toMatchObject({
      venue: "Form Hall",
      city: "Lisbon",
      geo_lat: 38.72,
      geo_lng: -9.14,
      show_map: true,
    });
    expect(response.body.organizer.map((item: { id: number }) => item.id)).toEqual([organizer.id]);
    expect(termNames(response.body.categories)).toEqual(["Form Category"]);

    const update = await server.raw("PATCH", `${root}/events/${response.body.id}`, {
      rawBody: "post_parent=&categories=&organizer[]=&all_day=1",
      headers: { ...bearer("editor"), "Content-Type": "application/x-www-form-urlencoded; charset=UTF-8" },
    });
    expectStatus(update, 200);
    expect(update.body).toMatchObject({ post_parent: 0, categories: [], organizer: [], all_day: true });
  });

  it("creates venues and organizers, and refuses values of the wrong type as JSON would", async () => {
    const venue = await postForm(
      "editor",
      "/venues",
      phpForm({ venue: "Formed", geo_lat: 59.91, geo_lng: 10.75, show_map_link: false }),
    );
    expectStatus(venue, 201);
    expect(venue.body).toMatchObject({ venue: "Formed", geo_lat: 59.91, geo_lng: 10.75, show_map_link: false });
    expectStatus(
      await postForm("editor", "/organizers", phpForm({ organizer: "Formal Org", email: "o@example.com" })),
      201,
    );
    const bad = await postForm("editor", "/venues", "venue=Bad&geo_lat=north");
    expectStatus(bad, 400);
    expect(Object.keys(bad.body.data.params)).toEqual(["geo_lat"]);
    expectStatus(await postForm("editor", "/venues", `venue=Deep&x${"[a]".repeat(40)}=1`), 400);
  });

  it("answers 415 for a body that is neither JSON nor form-encoded", async () => {
    const response = await server.raw("POST", `${root}/events`, {
      rawBody: "title=x",
      headers: { ...bearer("editor"), "Content-Type": "text/plain" },
    });
    expectStatus(response, 415);
    expect(response.body.code).toBe("rest_unsupported_media_type");
  });
});

describe("WordPress's global parameters", () => {
  async function someEvents() {
    const venue = await createLinkedVia(server, "venues", { venue: "Field Hall", city: "Porto" });
    for (const title of ["One", "Two", "Three"])
      await send("editor", "POST", "/events", { title, start_date: START, end_date: END, venue: venue.id });
  }

  /** `body` with only `fields` of each item of `list` (the projection `_fields` promises). */
  const projected = (body: any, list: string, fields: string[]) => ({
    ...body,
    [list]: body[list].map((item: any) =>
      Object.fromEntries(fields.filter((field) => field in item).map((field) => [field, item[field]])),
    ),
  });

  it("ignores jQuery's cache buster, context=view, _embed and any unknown parameter", async () => {
    await someEvents();
    const plain = await server.raw("GET", `${root}/events`);
    for (const query of ["_=1700000000", "context=view", "_embed=1", "no_such_filter=1&another[]=2"]) {
      const response = await server.raw("GET", `${root}/events?${query}`);
      expectStatus(response, 200);
      expect(response.body.events).toEqual(plain.body.events);
    }
    expectStatus(await server.raw("GET", `${root}/venues?_=1&context=view`), 200);
    expectStatus(await server.raw("GET", `${root}/categories?_=1`), 200);
  });

  it("_fields keeps only the named fields of each listed item, and the collection's own fields", async () => {
    await someEvents();
    for (const query of [
      "_fields=id,title",
      "_fields[]=id&_fields[]=title",
      "_fields=events.id,events.title",
      "_fields=id,title,no_such_field",
    ]) {
      const response = await server.raw("GET", `${root}/events?${query}&per_page=2`);
      expectStatus(response, 200);
      const paged = await server.raw("GET", `${root}/events?per_page=2`);
      const { rest_url, next_rest_url, ...rest } = response.body;
      const {
        rest_url: _fullUrl,
        next_rest_url: _fullNext,
        ...fullRest
      } = projected(paged.body, "events", ["id", "title"]);
      expect(rest).toEqual(fullRest);
      // The next page is asked for with the same fields.
      expect(
        new URL(next_rest_url).searchParams
          .getAll("_fields")
          .concat(new URL(next_rest_url).searchParams.getAll("_fields[]"))
          .join(","),
      ).toMatch(/title/);
      expect(new URL(rest_url).searchParams.get("per_page")).toBe("2");
      expect(response.headers.get("X-WP-Total")).toBe("3");
    }
    const nested = await server.raw("GET", `${root}/events?_fields=id,venue.city`);
    expect(nested.body.events.map((event: any) => event.venue)).toEqual([
      { city: "Porto" },
      { city: "Porto" },
      { city: "Porto" },
    ]);
    const venues = await server.raw("GET", `${root}/venues?_fields=venue`);
    expect(venues.body.venues).toEqual([{ venue: "Field Hall" }]);
    expect(venues.body.total).toBe(1);
  });

  it("_fields on one item has the tag of its own bytes, not the whole item's, and leaves errors whole", async () => {
    const event = await send("editor", "POST", "/events", { title: "Single", start_date: START, end_date: END });
    const full = await server.raw("GET", `${root}/events/${event.body.id}`);
    const someUrl = `${root}/events/${event.body.id}?_fields=id,title,start_date`;
    const some = await server.raw("GET", someUrl);
    expect(some.body).toEqual({ id: full.body.id, title: "Single", start_date: START });
    const digestOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;
    // The whole item's tag names its state (docs/clients.md); a variant's, its own bytes.
    expect(some.headers.get("ETag")).toBe(digestOf(some.text));
    expect(full.headers.get("ETag")).not.toBe(some.headers.get("ETag"));
    // The whole representation's tag does not revalidate the variant; the variant's own does.
    expect((await server.raw("GET", someUrl, { headers: { "If-None-Match": full.headers.get("ETag")! } })).status).toBe(
      200,
    );
    expect((await server.raw("GET", someUrl, { headers: { "If-None-Match": some.headers.get("ETag")! } })).status).toBe(
      304,
    );
    // Anonymous reads come from the representations kept: the same rule.
    const anonymous = await server.raw("GET", `${root}/events?_fields=id,title`);
    expect(anonymous.headers.get("ETag")).toBe(digestOf(anonymous.text));
    const written = await send("editor", "PATCH", `/events/${event.body.id}?_fields=id,title`, { title: "Renamed" });
    expect(written.body).toEqual({ id: event.body.id, title: "Renamed" });
    // A write's answer is tagged as its bytes are too: the tag revalidates that variant of the item.
    expect(written.headers.get("ETag")).toBe(digestOf(written.text));
    const after = await server.raw("GET", `${root}/events/${event.body.id}?_fields=id,title`, {
      headers: { "If-None-Match": written.headers.get("ETag")! },
    });
    expect(after.status).toBe(304);
    const missing = await server.raw("GET", `${root}/events/999999?_fields=id`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("rest-event-not-found");
  });

  it("_envelope moves status and headers into a 200 body", async () => {
    await someEvents();
    const list = await server.raw("GET", `${root}/events?_envelope&per_page=2`);
    expectStatus(list, 200);
    expect(list.body.status).toBe(200);
    expect(list.body.body.events).toHaveLength(2);
    expect(list.body.headers).toMatchObject({
      "X-WP-Total": "3",
      "X-WP-TotalPages": "2",
      Link: expect.stringContaining('rel="next"'),
    });
    expect(list.headers.get("X-WP-Total")).toBeNull();

    const created = await send("editor", "POST", "/events?_envelope=1", {
      title: "Enveloped",
      start_date: START,
      end_date: END,
    });
    expectStatus(created, 200);
    expect(created.body.status).toBe(201);
    expect(created.body.headers.Location).toBe(`${server.base}/events/${created.body.body.id}`);

    const missing = await server.raw("GET", `${root}/events/999999?_envelope`);
    expectStatus(missing, 200);
    expect(missing.body).toMatchObject({ status: 404, body: { code: "rest-event-not-found", data: { status: 404 } } });
    const both = await server.raw("GET", `${root}/events/${created.body.body.id}?_envelope&_fields=title`);
    expect(both.body.body).toEqual({ title: "Enveloped" });
  });
});

describe("_jsonp, as WordPress answers it", () => {
  /** The callback a JSONP script calls, and the value it is called with. */
  function scriptCall(response: RawResponse): { callback: string; value: any } {
    const match = /^\/\*\*\/([\w.]+)\(([\s\S]*)\)$/.exec(response.text);
    if (!match) throw new Error(`not a JSONP script: ${response.text.slice(0, 200)}`);
    return { callback: match[1], value: JSON.parse(match[2]) };
  }

  it("answers /**/callback(json) as application/javascript, errors too, with the same status", async () => {
    const created = await send("editor", "POST", "/events", { title: "Scripted", start_date: START, end_date: END });
    const list = await server.raw("GET", `${root}/events?_jsonp=jQuery.cb_1&per_page=1`);
    expectStatus(list, 200);
    expect(list.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(list.headers.get("x-content-type-options")).toBe("nosniff");
    const { callback, value } = scriptCall(list);
    expect(callback).toBe("jQuery.cb_1");
    expect(value.events.map((event: any) => event.id)).toEqual([created.body.id]);
    expect(list.headers.get("x-wp-total")).toBe("1");

    const missing = await server.raw("GET", `${root}/events/999999?_jsonp=show`);
    expect(missing.status).toBe(404);
    expect(scriptCall(missing).value).toMatchObject({ code: "rest-event-not-found", data: { status: 404 } });
    // With the other global parameters: the script carries the body they shape.
    const shaped = await server.raw("GET", `${root}/events/${created.body.id}?_jsonp=show&_fields=title&_envelope`);
    expect(scriptCall(shaped).value).toMatchObject({ status: 200, body: { title: "Scripted" } });
  });

  it("refuses a callback that is not a plain name, in JSON, and takes an empty one for none", async () => {
    const plain = await server.raw("GET", `${root}/events?_jsonp=`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    for (const callback of ["alert(1)//", "a-b", "x%3Cscript%3E", "a&_jsonp[]=b"]) {
      const refused = await server.raw("GET", `${root}/events?_jsonp=${callback}`);
      expect(refused.status).toBe(400);
      expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
      expect(refused.body.code).toBe("rest_callback_invalid");
    }
  });

  it("answers as to an anonymous caller, whatever credential the request carries", async () => {
    const draft = await send("editor", "POST", "/events", {
      title: "Scripted draft",
      status: "draft",
      start_date: START,
      end_date: END,
    });
    expect((await send("editor", "GET", `/events/${draft.body.id}`)).status).toBe(200);
    const anonymous = await server.raw("GET", `${root}/events/${draft.body.id}`);
    expect(anonymous.status).toBe(403);
    const viaScript = await send("editor", "GET", `/events/${draft.body.id}?_jsonp=steal`);
    expect(viaScript.status).toBe(anonymous.status);
    expect(scriptCall(viaScript).value.code).toBe(anonymous.body.code);
    const drafts = await send("editor", "GET", "/events?status=draft&_jsonp=steal");
    expect(scriptCall(drafts).value.events ?? []).toEqual([]);
  });

  it("is refused whole when the operator switches JSONP off", async () => {
    const switchedOff = await startTestServer({ JSONP: "false" });
    try {
      const refused = await switchedOff.raw("GET", `${root}/events?_jsonp=show`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe("rest_callback_disabled");
      expect((await switchedOff.raw("GET", `${root}/events`)).status).toBe(200);
    } finally {
      await switchedOff.close();
    }
  });
});

describe("DELETE as the original", () => {
  it.each(["events", "venues", "organizers"])(
    "moves a live %s item to the trash whoever sends force, and lets only an administrator delete a trashed one for good",
    async (collection) => {
      const body =
        collection === "events"
          ? { title: "Doomed", start_date: START, end_date: END }
          : { [collection === "venues" ? "venue" : "organizer"]: "Doomed" };
      const created = await send("editor", "POST", `/${collection}`, body);
      const id = created.body.id;
      const trashed = await send("administrator", "DELETE", `/${collection}/${id}?force=true`);
      expectStatus(trashed, 200);
      expect(trashed.body.status).toBe("trash");
      expect(trashed.headers.get("ETag")).not.toBeNull();
      expectStatus(await send("editor", "DELETE", `/${collection}/${id}?force=true`), 410);
      expectStatus(await send("administrator", "DELETE", `/${collection}/${id}`), 410);
      const gone = await send("administrator", "DELETE", `/${collection}/${id}?force=1`);
      expectStatus(gone, 200);
      expect(gone.body).toMatchObject({ id, status: "trash" });
      expect(gone.headers.get("ETag")).toBeNull();
      expectStatus(await send("administrator", "GET", `/${collection}/${id}`), 404);
    },
  );

  it("still refuses a contributor another's event, force or not", async () => {
    const event = await send("editor", "POST", "/events", { title: "Not yours", start_date: START, end_date: END });
    expectStatus(await send("contributor", "DELETE", `/events/${event.body.id}?force=true`), 403);
  });
});

describe("markup filtered like WordPress", () => {
  const hostile = {
    title: `Rock & Roll <em>live</em><script>alert(1)</script>`,
    description: `<p onclick="steal()">Hello <a href="javascript:alert(1)">there</a> <a href="https://example.org/" target="_blank">site</a></p><iframe src="https://evil.example"></iframe><img src="x.png" onerror="alert(2)" alt="pic"><style>body{display:none}</style>`,
    excerpt: `<strong>Short</strong><script>x()</script>`,
  };

  it("filters an author's and a contributor's titles, descriptions and excerpts", async () => {
    for (const role of ["author", "contributor"]) {
      const response = await send(role, "POST", "/events", { ...hostile, start_date: START, end_date: END });
      expectStatus(response, 201);
      expect(response.body.title).toBe("Rock & Roll <em>live</em>");
      const description: string = response.body.description;
      for (const banned of ["<script", "onclick", "onerror", "javascript:", "<iframe", "<style", "display:none"])
        expect(description).not.toContain(banned);
      expect(description).toContain('<a href="https://example.org/" target="_blank">site</a>');
      expect(description).toContain('<img src="x.png" alt="pic" />');
      expect(response.body.excerpt).toContain("<strong>Short</strong>");
      expect(response.body.excerpt).not.toContain("script");
      const stored = await send("administrator", "GET", `/events/${response.body.id}`);
      expect(stored.body.title).toBe("Rock & Roll <em>live</em>");
    }
  });

  it("keeps plain style properties and drops url() and expression() from an author's style attributes", async () => {
    const description = `<p style="color: red; background-image: url(javascript:alert(1)); width: expression(alert(2))">Styled</p><span style="background:url('https://evil.example/x.png')">Bg</span>`;
    const response = await send("author", "POST", "/events", {
      title: "Styled",
      description,
      start_date: START,
      end_date: END,
    });
    expectStatus(response, 201);
    expect(response.body.description).toContain('<p style="color:red">Styled</p>');
    for (const banned of ["url(", "expression(", "javascript:", "evil.example"])
      expect(response.body.description).not.toContain(banned);
  });

  it("keeps an editor's markup as sent", async () => {
    const response = await send("editor", "POST", "/events", { ...hostile, start_date: START, end_date: END });
    expect(response.body.title).toBe(hostile.title);
    expect(response.body.description).toContain("<iframe");
  });

  it("filters venues, organizers and terms (inline ones too) written by an author", async () => {
    const venue = await send("author", "POST", "/venues", {
      venue: "Hall<script>x</script>",
      description: "<b onmouseover=x()>Big</b> hall",
    });
    expect(venue.body).toMatchObject({ venue: "Hall", description: expect.stringContaining("<b>Big</b> hall") });
    const organizer = await send("author", "POST", "/organizers", { organizer: "<img src=x onerror=y()>Org" });
    expect(organizer.body.organizer).toBe("Org");
    const category = await send("author", "POST", "/categories", {
      name: "Cat<script>x</script>",
      description: "<a href='javascript:x'>d</a>",
    });
    expect(category.body).toMatchObject({ name: "Cat", description: "<a>d</a>" });
    const event = await send("author", "POST", "/events", {
      title: "Inline",
      start_date: START,
      end_date: END,
      venue: { venue: "Inline<script>x</script> Hall" },
      categories: ["<b>Bold</b> cat"],
    });
    expect(event.body.venue.venue).toBe("Inline Hall");
    expect(termNames(event.body.categories)).toEqual(["<b>Bold</b> cat"]);
  });
});

describe("recurrence as real clients send it", () => {
  const occurrenceStarts = async (id: number) =>
    (
      await send(
        "administrator",
        "GET",
        `/events?post_parent=${id}&start_date=2026-01-01&end_date=2028-12-31&per_page=50&status=publish,draft`,
      )
    ).body.events.map((event: { start_date: string }) => event.start_date);
  // Sunday 22 November 2026, at noon (UTC).
  const event = (recurrence: unknown) => ({
    title: "Repeating",
    start_date: "2026-11-22 12:00",
    end_date: "2026-11-22 13:00",
    recurrence,
  });

  it("reads ac-multiposter's rule: weekly, never ending, on the event's weekday", async () => {
    const created = await send("editor", "POST", "/events", event({ type: "weekly", end_type: "never" }));
    expectStatus(created, 201);
    expect(created.body.recurrence.rrule).toBe("FREQ=WEEKLY");
    const starts = await occurrenceStarts(created.body.id);
    expect(starts.slice(0, 3)).toEqual(["2026-11-29 12:00:00", "2026-12-06 12:00:00", "2026-12-13 12:00:00"]);
  });

  it("reads the recurrence add-on's rules as ESIP's script sends them: the first Monday of each month, until a day", async () => {
    const created = await send(
      "editor",
      "POST",
      "/events",
      event({ rules: [{ type: "every-month", on: "first monday", end_type: "On", end: "2027-03-31" }] }),
    );
    expectStatus(created, 201);
    expect(created.body.recurrence.rrule).toBe("FREQ=MONTHLY;BYDAY=1MO;UNTIL=20270331");
    expect(await occurrenceStarts(created.body.id)).toEqual([
      "2026-12-07 12:00:00",
      "2027-01-04 12:00:00",
      "2027-02-01 12:00:00",
      "2027-03-01 12:00:00",
    ]);
  });

  it("reads the add-on's custom rules, counts and exclusions, also form-encoded", async () => {
    const rules = {
      rules: [
        {
          type: "Custom",
          custom: { type: "Weekly", interval: 2, week: { day: [1, 3] } },
          "end-type": "After",
          "end-count": 5,
        },
      ],
      exclusions: [{ type: "Date", custom: { date: { date: "2026-12-02" } } }],
    };
    const created = await send("editor", "POST", "/events", event(rules));
    expectStatus(created, 201);
    expect(created.body.recurrence).toMatchObject({
      rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=5",
      exdate: ["2026-12-02 12:00:00"],
    });
    // The Sunday itself (its week, from Monday the 16th, is the first), then Mondays and Wednesdays every
    // other week; the excluded Wednesday counts toward COUNT, as RFC 5545 counts it.
    expect(await occurrenceStarts(created.body.id)).toEqual([
      "2026-11-30 12:00:00",
      "2026-12-14 12:00:00",
      "2026-12-16 12:00:00",
    ]);
    const form = await postForm(
      "editor",
      "/events",
      phpForm(event({ type: "Every Day", "end-type": "After", "end-count": 3 })),
    );
    expectStatus(form, 201);
    expect(await occurrenceStarts(form.body.id)).toEqual(["2026-11-23 12:00:00", "2026-11-24 12:00:00"]);
  });

  it("reads Google Calendar's RFC 5545 lines, with dates in other zones, in UTC and as days", async () => {
    const lines = [
      "RRULE:FREQ=DAILY;COUNT=6",
      "EXDATE;TZID=Europe/Lisbon:20261123T120000",
      "EXDATE:20261124T120000Z",
      "EXDATE;VALUE=DATE:20261125",
      "RDATE;VALUE=DATE:20261201",
    ];
    const created = await send("editor", "POST", "/events", event(lines));
    expectStatus(created, 201);
    expect(created.body.recurrence.exdate).toEqual([
      "2026-11-23 12:00:00",
      "2026-11-24 12:00:00",
      "2026-11-25 12:00:00",
    ]);
    expect(await occurrenceStarts(created.body.id)).toEqual([
      "2026-11-26 12:00:00",
      "2026-11-27 12:00:00",
      "2026-12-01 12:00:00",
    ]);
  });

  it("reads PHP's empty values as no rule, and removes a rule with them", async () => {
    for (const empty of [[], false, "", "0", null]) {
      const created = await send("editor", "POST", "/events", event(empty));
      expect([JSON.stringify(empty), created.status, created.body.recurrence]).toEqual([
        JSON.stringify(empty),
        201,
        null,
      ]);
    }
    const asForm = await postForm(
      "editor",
      "/events",
      "title=Form&start_date=2026-11-22%2012:00&end_date=2026-11-22%2013:00&recurrence=",
    );
    expect([asForm.status, asForm.body.recurrence]).toEqual([201, null]);
    const series = await send(
      "editor",
      "POST",
      "/events",
      event({ type: "Every Week", "end-type": "After", "end-count": 3 }),
    );
    expect((await occurrenceStarts(series.body.id)).length).toBe(2);
    const removed = await send("editor", "PATCH", `/events/${series.body.id}`, { recurrence: "" });
    expect([removed.status, removed.body.recurrence]).toEqual([200, null]);
    expect(await occurrenceStarts(series.body.id)).toEqual([]);
  });

  it("refuses what none of the forms reads, naming them", async () => {
    for (const unreadable of [
      { rules: [{ type: "fortnightly-ish" }] },
      { rules: [{ type: "weekly" }, { type: "monthly" }] },
      ["EXDATE:20261123T120000Z"],
      "FREQ=SOMETIMES",
      { type: "monthly", on: "the blue moon" },
    ]) {
      const response = await send("editor", "POST", "/events", event(unreadable));
      expect([JSON.stringify(unreadable), response.status, response.body.data?.details?.recurrence?.code]).toEqual([
        JSON.stringify(unreadable),
        400,
        "rest_invalid_recurrence",
      ]);
      expect(response.body.data.details.recurrence.message).toContain("RFC 5545 lines");
    }
  });
});

describe("WordPress core's request forms", () => {
  const created = async (title: string) =>
    (await send("editor", "POST", "/events", { title, start_date: START, end_date: END })).body as { id: number };

  it("reads _method and X-HTTP-Method-Override on a POST as the method they name, never on a GET", async () => {
    const byQuery = await created("Deleted by _method");
    const trashedByQuery = await send("editor", "POST", `/events/${byQuery.id}?_method=DELETE`);
    expect([trashedByQuery.status, trashedByQuery.body.status]).toEqual([200, "trash"]);
    const byHeader = await created("Deleted by a header");
    const trashedByHeader = await send("editor", "POST", `/events/${byHeader.id}`, undefined, {
      "X-HTTP-Method-Override": "DELETE",
    });
    expect([trashedByHeader.status, trashedByHeader.body.status]).toEqual([200, "trash"]);
    const other = await created("Patched");
    const patched = await send("editor", "POST", `/events/${other.id}?_method=patch`, {
      title: "Patched through a POST",
    });
    expect([patched.status, patched.body.title]).toEqual([200, "Patched through a POST"]);
    // A link must not delete: GET (and HEAD) stays what it is.
    const kept = await created("Kept");
    expect((await send("editor", "GET", `/events/${kept.id}?_method=DELETE`)).status).toBe(200);
    expect((await send("editor", "HEAD", `/events/${kept.id}?_method=DELETE`)).status).toBe(200);
    expect(
      (await send("editor", "HEAD", `/events/${kept.id}`, undefined, { "X-HTTP-Method-Override": "DELETE" })).status,
    ).toBe(200);
    expect(
      (await send("editor", "GET", `/events/${kept.id}`, undefined, { "X-HTTP-Method-Override": "DELETE" })).body
        .status,
    ).toBe("publish");
  });

  it("takes a write's fields from the query string, the body winning where both give one", async () => {
    const query = `title=From%20the%20query&start_date=${encodeURIComponent(START)}&end_date=${encodeURIComponent(END)}&featured=1`;
    const bodyless = await server.raw("POST", `${root}/events?${query}`, { headers: bearer("editor") });
    expectStatus(bodyless, 201);
    expect(bodyless.body).toMatchObject({ title: "From the query", featured: true });
    const both = await send("editor", "POST", `/events?${query}`, { title: "From the body" });
    expectStatus(both, 201);
    expect(both.body).toMatchObject({ title: "From the body", featured: true, start_date: START });
  });

  it("reads multipart/form-data bodies as form-encoded ones, ignoring files", async () => {
    const form = new FormData();
    form.append("title", "Sent by cURL");
    form.append("start_date", START);
    form.append("end_date", END);
    form.append("tags[0]", "multipart");
    form.append("tags[1]", "curl");
    form.append("venue[venue]", "Multipart hall");
    form.append("image_file", new Blob([Buffer.from("not really a picture")], { type: "image/png" }), "poster.png");
    const response = await fetch(`${server.origin}${root}/events`, {
      method: "POST",
      body: form,
      headers: bearer("editor"),
    });
    const body = (await response.json()) as { title: string; tags: Array<{ name: string }>; venue: { venue: string } };
    expect([response.status, body.title, body.tags.map((tag) => tag.name), body.venue.venue]).toEqual([
      201,
      "Sent by cURL",
      ["multipart", "curl"],
      "Multipart hall",
    ]);
  });

  it("answers ?rest_route= at the site root, for sites without pretty links", async () => {
    await created("Routed");
    const listed = await server.raw("GET", `/?rest_route=${encodeURIComponent(`${root}/events`)}&per_page=1`);
    expectStatus(listed, 200);
    expect(listed.body.events).toHaveLength(1);
    const inSpanish = await server.raw("GET", `/es/?rest_route=${root}/events`);
    expect([inSpanish.status, inSpanish.headers.get("content-language")]).toEqual([200, "es"]);
    const posted = await server.raw("POST", `/?rest_route=${root}/events`, {
      body: { title: "Posted by rest_route", start_date: START, end_date: END },
      headers: bearer("editor"),
    });
    expectStatus(posted, 201);
    // The address such sites advertise as their API root (issue 45).
    const viaIndex = await server.raw(
      "GET",
      `/index.php?rest_route=${encodeURIComponent(`${root}/events`)}&per_page=1`,
    );
    expect([viaIndex.status, viaIndex.body.events.length]).toEqual([200, 1]);
    const postedViaIndex = await server.raw("POST", `/index.php?rest_route=${root}/events`, {
      body: { title: "Posted by index.php", start_date: START, end_date: END },
      headers: bearer("editor"),
    });
    expectStatus(postedViaIndex, 201);
  });

  it("answers OPTIONS with the methods the caller may use in Allow, and the route's description; every answer carries Allow", async () => {
    const collection = await server.raw("OPTIONS", `${root}/events`);
    expectStatus(collection, 200);
    // As WordPress asks each method's permission check: an anonymous caller may only read (issue 45).
    expect(collection.headers.get("allow")).toBe("GET, HEAD");
    expect(collection.body).toMatchObject({ namespace: "calendar/events/v1", methods: ["GET", "POST"] });
    const asEditor = await server.raw("OPTIONS", `${root}/events`, { headers: bearer("editor") });
    expect(asEditor.headers.get("allow")).toBe("GET, HEAD, POST");
    const item = await server.raw("OPTIONS", `${root}/events/12`);
    expect([item.status, item.headers.get("allow")]).toEqual([200, "GET, HEAD"]);
    const itemAsEditor = await server.raw("OPTIONS", `${root}/events/12`, { headers: bearer("editor") });
    expect(itemAsEditor.headers.get("allow")).toBe("GET, HEAD, POST, PUT, PATCH, DELETE");
    expect(item.body.endpoints.length).toBeGreaterThan(1);
    const webhooks = await server.raw("OPTIONS", `${root}/webhooks`, { headers: bearer("editor") });
    expect([webhooks.status, webhooks.headers.get("allow")]).toEqual([200, ""]);
    expect((await server.raw("OPTIONS", `${root}/nothing-here`)).status).toBe(404);
    // Every answer on a route says the same, as WordPress's do: a read, an error, a write.
    expect((await server.raw("GET", `${root}/events`)).headers.get("allow")).toBe("GET, HEAD");
    expect((await server.raw("GET", `${root}/events/999999`, { headers: bearer("editor") })).headers.get("allow")).toBe(
      "GET, HEAD, POST, PUT, PATCH, DELETE",
    );
    const written = await send("editor", "POST", "/events", { title: "Allowed", start_date: START, end_date: END });
    expect(written.headers.get("allow")).toBe("GET, HEAD, POST");
    expect((await server.raw("GET", `${root}/no-such-route`)).headers.get("allow")).toBeNull();
    // A browser's preflight is still the CORS answer.
    const preflight = await server.raw("OPTIONS", `${root}/events`, {
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(204);
  });
});

describe("values as the original gives them", () => {
  it("derives a venue's stateprovince from its state or province, and names a missing event as the original does", async () => {
    const venue = await send("editor", "POST", "/venues", {
      venue: "Chicago hall",
      state: "IL",
      country: "United States",
    });
    expect([venue.status, venue.body.stateprovince]).toEqual([201, "IL"]);
    const other = await send("editor", "POST", "/venues", { venue: "Lyon hall", province: "Rhône", country: "France" });
    expect(other.body.stateprovince).toBe("Rhône");
    const missing = await send("editor", "GET", "/events/999999");
    expect([missing.status, missing.body.message]).toEqual([404, "Event with ID 999999 does not exist."]);
  });
});
