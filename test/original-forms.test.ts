// Forms the original accepts and clients of it send (issue 59): terms as objects (PHP's arrays with
// keys), a site's offset as the zone (`UTC+2`), a cost as a number, an application password with the
// user's e-mail address, one value for a list in a form body, and `author` as a string of digits,
// both ways. Each value a write accepts is read back through the item, the lists that show it and
// the feed. Last, a CSV importer's flow as such clients write it: each item made once, however
// often it runs.
import { createUser as createUserWithCredentials } from "../src/resources/users/user-admin";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const base = "/calendar/events/v1";
beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_DELIVERY: "false" });
});
afterAll(() => server.close());

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN_HEADERS) =>
  server.raw(method, `${base}${path}`, { body, headers });
const event = (extra: Record<string, unknown>) =>
  send("POST", "/events", {
    title: "Form probe",
    start_date: "2027-04-01 20:00",
    end_date: "2027-04-01 22:00",
    ...extra,
  });
const termIds = (terms: Array<{ id: number }>) => terms.map((term) => term.id);

describe("categories and tags as objects, as PHP clients send arrays with keys", () => {
  it("reads an object's values as the list, in order, and {} as none", async () => {
    const [jazz, blues, late] = await Promise.all(
      ["Jazz", "Blues", "Late"].map(async (name, i) => {
        const response = await send("POST", i < 2 ? "/categories" : "/tags", { name });
        expect(response.status).toBe(201);
        return response.body as { id: number };
      }),
    );
    const created = await event({ categories: { id: jazz.id }, tags: { "0": late.id } });
    expect(created.status).toBe(201);
    expect([termIds(created.body.categories), termIds(created.body.tags)]).toEqual([[jazz.id], [late.id]]);
    const keyed = await send("PATCH", `/events/${created.body.id}`, { categories: { "0": blues.id, "2": "jazz" } });
    expect(termIds(keyed.body.categories)).toEqual([blues.id, jazz.id]);
    const cleared = await send("PATCH", `/events/${created.body.id}`, { categories: {} });
    expect(cleared.body.categories).toEqual([]);
    const form = await server.raw("POST", `${base}/events`, {
      rawBody: `title=Form+terms&start_date=2027-04-02&end_date=2027-04-02&categories[id]=${blues.id}`,
      headers: { ...ADMIN_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect([form.status, termIds(form.body.categories ?? [])]).toEqual([201, [blues.id]]);
    const nested = await event({ categories: { a: { id: jazz.id } } });
    expect([nested.status, nested.body.code]).toEqual([400, "rest_invalid_param"]);
  });
});

describe("a WordPress offset as the time zone", () => {
  it.each([
    ["UTC+2", "Etc/GMT-2", "2027-04-01 18:00:00"],
    ["UTC-3:30", null, null],
    ["UTC+5.5", "Asia/Kolkata", "2027-04-01 14:30:00"],
    ["utc+0", "UTC", "2027-04-01 20:00:00"],
    ["UTC+3.5", null, null],
    ["UTC+15", null, null],
  ])("%s is %s", async (given, zone, utcStart) => {
    const created = await event({ title: `Offset ${given}`, timezone: given });
    if (zone === null) {
      expect([created.status, created.body.data.details.timezone.code]).toEqual([400, "rest_invalid_timezone"]);
      return;
    }
    expect(created.status).toBe(201);
    const shown = { timezone: zone, start_date: "2027-04-01 20:00:00", utc_start_date: utcStart };
    expect(created.body).toMatchObject(shown);
    expect((await send("GET", `/events/${created.body.id}`, undefined, {})).body).toMatchObject(shown);
    const listed = await send("GET", `/events?search=${encodeURIComponent(`Offset ${given}`)}`, undefined, {});
    expect(listed.body.events).toEqual([expect.objectContaining(shown)]);
    const feed = await server.raw("GET", `${base}/events/${created.body.id}.ics`);
    const start = zone === "UTC" ? "DTSTART:20270401T200000Z" : `DTSTART;TZID=${zone}:20270401T200000`;
    expect([feed.status, feed.text]).toEqual([200, expect.stringContaining(start)]);
  });
});

describe("a cost as a number", () => {
  it("is its text, alone and in a list, in the item and the list (feeds carry no cost)", async () => {
    const single = await event({ title: "Numbered cost", cost: 10 });
    expect([single.status, single.body.cost, single.body.cost_details.values]).toEqual([201, "10", ["10"]]);
    const listed = await send("GET", "/events?search=Numbered%20cost", undefined, {});
    expect(listed.body.events[0].cost).toBe("10");
    const range = await event({ title: "Ranged cost", cost: [5, 10.5] });
    expect([range.status, range.body.cost_details.values]).toEqual([201, ["5", "10.5"]]);
  });
});

describe("an application password with the user's e-mail address", () => {
  it("signs in as WordPress takes it, in any case; a login still comes first", async () => {
    const ana = await createUserWithCredentials(server.db, { login: "ana", role: "editor", email: "Ana@Example.org" });
    const basic = (name: string, password = ana.application_password) => ({
      Authorization: `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`,
    });
    for (const name of ["ana", "Ana@Example.org", "ana@example.org"]) {
      const created = await send("POST", "/venues", { venue: `Venue of ${name}` }, basic(name));
      expect([name, created.status, created.body.author]).toEqual([name, 201, String(ana.id)]);
    }
    expect((await send("POST", "/venues", { venue: "Nobody's" }, basic("bob@example.org"))).status).toBe(401);
    // A user whose login is another's address signs in with their own password under it.
    const other = await createUserWithCredentials(server.db, { login: "ana@example.org", role: "author" });
    const asLogin = await send(
      "POST",
      "/venues",
      { venue: "Login first" },
      basic("ana@example.org", other.application_password),
    );
    expect(asLogin.body.author).toBe(String(other.id));
  });
});

describe("one value for a list, in a form body", () => {
  it.each([
    ["application/x-www-form-urlencoded", "url=http%3A%2F%2F127.0.0.1%3A9%2Fhook&event_types=event.created"],
    ["multipart/form-data; boundary=XyZ", null],
  ])("is a list of one item (%s)", async (type, body) => {
    const multipart = [
      "--XyZ",
      'Content-Disposition: form-data; name="url"',
      "",
      "http://127.0.0.1:9/hook",
      "--XyZ",
      'Content-Disposition: form-data; name="event_types"',
      "",
      "event.created",
      "--XyZ--",
      "",
    ].join("\r\n");
    const created = await server.raw("POST", `${base}/webhooks`, {
      rawBody: body ?? multipart,
      headers: { ...ADMIN_HEADERS, "Content-Type": type },
    });
    expect([created.status, created.body.event_types]).toEqual([201, ["event.created"]]);
  });
});

describe("author, as the original gives and takes it", () => {
  it("is a string of digits in every item and list, and is taken as one", async () => {
    const writer = await createUserWithCredentials(server.db, { login: "writer", role: "author" });
    const venue = await send("POST", "/venues", { venue: "Authored hall", author: String(writer.id) });
    expect([venue.status, venue.body.author]).toEqual([201, String(writer.id)]);
    const created = await event({ title: "Authored", author: `${writer.id}`, venue: [venue.body.id] });
    expect(created.body).toMatchObject({ author: String(writer.id), venue: { author: String(writer.id) } });
    const lists = await Promise.all(
      ["/events?search=Authored", "/venues?search=Authored"].map((path) => send("GET", path)),
    );
    expect([lists[0].body.events[0].author, lists[1].body.venues[0].author]).toEqual([
      String(writer.id),
      String(writer.id),
    ]);
    expect((await send("POST", "/venues", { venue: "Nobody's hall", author: "99999999999" })).status).toBe(400);
  });
});

describe("a CSV importer's flow, as clients of the original write it", () => {
  // Each row: find its venue among the writer's own (by name, `author` compared as the string it
  // is), else make it; then the event, its category given as {"id": …}.
  const rows = [
    { title: "Fado at Mouraria", venue: "Casa da Mouraria", category: "Fado" },
    { title: "Second fado", venue: "Casa da Mouraria", category: "Fado" },
    { title: "Tango night", venue: "Salón Sur", category: "Tango" },
  ];
  async function importRows(me: string): Promise<void> {
    for (const row of rows) {
      const venues = (await send("GET", `/venues?search=${encodeURIComponent(row.venue)}&per_page=50`)).body
        .venues as Array<{
        id: number;
        venue: string;
        author: unknown;
      }>;
      const mine = venues.find((venue) => venue.venue === row.venue && venue.author === me);
      const venueId = mine?.id ?? (await send("POST", "/venues", { venue: row.venue })).body.id;
      const terms = (await send("GET", `/categories?search=${row.category}&hide_empty=false`)).body
        .categories as Array<{
        id: number;
        name: string;
      }>;
      const category =
        terms.find((term) => term.name === row.category) ??
        (await send("POST", "/categories", { name: row.category })).body;
      const events = (await send("GET", `/events?search=${encodeURIComponent(row.title)}&start_date=2027-01-01`)).body
        .events as Array<{ title: string }>;
      if (events.some((item) => item.title === row.title)) continue;
      const created = await event({ title: row.title, venue: venueId, categories: { id: category.id } });
      expect(created.status).toBe(201);
    }
  }

  it("makes each venue, category and event once, however often it runs", async () => {
    const me = String((await send("POST", "/venues", { venue: "Who am I" })).body.author);
    await importRows(me);
    await importRows(me);
    const venues = await send("GET", "/venues?per_page=50");
    const names = (venues.body.venues as Array<{ venue: string }>).map((venue) => venue.venue);
    expect(names.filter((name) => name === "Casa da Mouraria")).toHaveLength(1);
    expect(names.filter((name) => name === "Salón Sur")).toHaveLength(1);
    const fado = await send("GET", "/events?search=fado&start_date=2027-01-01");
    expect(fado.body.events.map((item: { categories: Array<{ name: string }> }) => item.categories[0].name)).toEqual([
      "Fado",
      "Fado",
    ]);
  });
});
