// Venues and organizers: the venue and organizer tables of docs/compatibility.md §12 that need neither
// events nor roles (those are in events-linked-posts.test.ts and access.test.ts), with our
// departures: 404 for unknown ids and slugs, every field present, no de-duplication, right totals.
import { createLinkedVia, createNamedVia, createUser, nameField, type LinkedCollection } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

afterEach(async () => {
  await server.db.write.venue.deleteMany({});
  await server.db.write.organizer.deleteMany({});
});

const root = "/calendar/events/v1";

async function list(collection: LinkedCollection, query = "", headers: Record<string, string> = {}) {
  return server.raw("GET", `${root}/${collection}${query}`, { headers });
}

const names = (collection: LinkedCollection, body: any): string[] =>
  body[collection].map((item: any) => item[nameField(collection)]);

describe.each<[LinkedCollection, string, string]>([
  ["venues", "venue", "Venue"],
  ["organizers", "organizer", "Organizer"],
])("/%s", (collection, noun) => {
  const name = nameField(collection);

  describe(`GET /${collection}`, () => {
    it("answers an empty collection with totals 0 and no page links", async () => {
      const response = await list(collection);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        [collection]: [],
        rest_url: `${server.base}/${collection}?page=1&per_page=10`,
        total: 0,
        total_pages: 0,
        next_sync_token: expect.any(String),
      });
      expect(response.headers.get("X-TEC-Total")).toBe("0");
      expect(response.headers.get("X-WP-TotalPages")).toBe("0");
    });

    it("pages newest first, with totals, headers and links", async () => {
      await createNamedVia(
        server,
        collection,
        Array.from({ length: 10 }, (_, i) => `${noun} ${i + 1}`),
      );
      const first = await list(collection, "?per_page=5");
      expect(names(collection, first.body)).toEqual([10, 9, 8, 7, 6].map((i) => `${noun} ${i}`));
      expect(first.body).toMatchObject({ total: 10, total_pages: 2 });
      expect(first.headers.get("X-TEC-Total")).toBe("10");
      expect(first.headers.get("X-TEC-TotalPages")).toBe("2");
      expect(first.body.next_rest_url).toBe(`${server.base}/${collection}?page=2&per_page=5`);
      expect(first.body).not.toHaveProperty("previous_rest_url");
      const second = await list(collection, "?per_page=5&page=2");
      expect(names(collection, second.body)).toEqual([5, 4, 3, 2, 1].map((i) => `${noun} ${i}`));
      expect(second.body.previous_rest_url).toBe(`${server.base}/${collection}?page=1&per_page=5`);
      expect(second.body).not.toHaveProperty("next_rest_url");
      expect((await list(collection, "?per_page=4")).body).toMatchObject({ total_pages: 3 });
      const small = await list(collection, "?per_page=2&page=2");
      expect(small.body[collection]).toHaveLength(2);
      expect(small.body.total_pages).toBe(5);
    });

    it(`answers a page past the last one with 404 ${noun}-archive-page-not-found`, async () => {
      await createNamedVia(server, collection, ["a", "b", "c"]);
      const response = await list(collection, "?per_page=3&page=2");
      expect(response.status).toBe(404);
      expect(response.body.code).toBe(`${noun}-archive-page-not-found`);
    });

    it("clamps per_page to 50", async () => {
      await createNamedVia(
        server,
        collection,
        Array.from({ length: 51 }, (_, i) => `n${i}`),
      );
      const response = await list(collection, "?per_page=100");
      expect(response.body[collection]).toHaveLength(50);
      expect(response.body.total).toBe(51);
    });

    it.each(["foo", "-1", "0", "foo%20bar"])("rejects page=%s and per_page=%s", async (value) => {
      for (const param of ["page", "per_page"]) {
        const response = await list(collection, `?${param}=${value}`);
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.data.params)).toEqual([param]);
      }
    });

    it("hides drafts from anonymous callers (not listed, not counted) and shows them to editors", async () => {
      await createNamedVia(server, collection, ["d1", "d2", "d3"], { status: "draft" });
      const anonymous = await list(collection);
      expect(anonymous.body).toMatchObject({ [collection]: [], total: 0 });
      const editor = await list(collection, "", ADMIN_HEADERS);
      expect(editor.body.total).toBe(3);
    });

    it("filters by status for editors, as a list or a comma-separated string", async () => {
      await createNamedVia(server, collection, ["p1", "p2", "p3"]);
      await createNamedVia(server, collection, ["d1", "d2", "d3"], { status: "draft" });
      await createNamedVia(server, collection, ["q1", "q2", "q3"], { status: "pending" });
      expect((await list(collection, "?status=publish", ADMIN_HEADERS)).body.total).toBe(3);
      expect((await list(collection, "?status=publish,%20draft", ADMIN_HEADERS)).body.total).toBe(6);
      expect(
        (await list(collection, "?status[]=publish&status[]=draft&status[]=pending", ADMIN_HEADERS)).body.total,
      ).toBe(9);
      for (const bad of ["foo", "foo,bar", "foo,%20bar,%20publish", "any"]) {
        const response = await list(collection, `?status=${bad}`, ADMIN_HEADERS);
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.data.params)).toEqual(["status"]);
      }
    });

    it("lets anonymous callers ask for publish only", async () => {
      await createNamedVia(server, collection, ["p1", "p2", "p3"]);
      await createNamedVia(server, collection, ["d1"], { status: "draft" });
      expect((await list(collection, "?status=publish")).body.total).toBe(3);
      const response = await list(collection, "?status=publish,draft");
      expect(response.status).toBe(400);
      expect(response.body.data.params).toHaveProperty("status");
    });

    it("searches words in the name and description, whole query or not at all, with right totals on no match", async () => {
      await createLinkedVia(server, collection, { [name]: `${noun} foo`, description: "Has a garden" });
      await createLinkedVia(server, collection, { [name]: `${noun} bar`, description: "By the river" });
      await createLinkedVia(server, collection, { [name]: `${noun} baz`, description: "Near the GARDEN" });
      const none = await list(collection, "?search=woo");
      expect(none.status).toBe(200);
      expect(none.body).toMatchObject({ total: 0, total_pages: 0, [collection]: [] });
      expect((await list(collection, `?search=${noun}`)).body.total).toBe(3);
      expect(names(collection, (await list(collection, `?search=${noun}%20foo`)).body)).toEqual([`${noun} foo`]);
      expect((await list(collection, "?search=garden")).body.total).toBe(2);
      expect(names(collection, (await list(collection, "?search=river%20bar")).body)).toEqual([`${noun} bar`]);
    });

    it("searches `%`, `_` and `\\` as the characters they are, not as patterns", async () => {
      await createLinkedVia(server, collection, { [name]: `${noun} 100% club` });
      await createLinkedVia(server, collection, { [name]: `${noun} snake_case` });
      await createLinkedVia(server, collection, { [name]: `${noun} plain` });
      const found = async (search: string) =>
        names(collection, (await list(collection, `?search=${encodeURIComponent(search)}`)).body);
      expect(await found("100%")).toEqual([`${noun} 100% club`]);
      expect(await found("snake_case")).toEqual([`${noun} snake_case`]);
      expect(await found("snake%case")).toEqual([]);
      expect(await found("e_c")).toEqual([`${noun} snake_case`]);
      expect(await found("a_n")).toEqual([]);
    });

    it("rejects an event filter that names no event", async () => {
      const response = await list(collection, "?event=23");
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual(["event"]);
    });
  });

  describe(`POST /${collection}`, () => {
    it("answers anonymous callers with 401", async () => {
      const response = await server.raw("POST", `${root}/${collection}`, { body: { [name]: "A" } });
      expect(response.status).toBe(401);
    });

    it(`creates a ${noun}: 201, every field present, a Location`, async () => {
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: { [name]: `A ${noun}` },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        [name]: `A ${noun}`,
        status: "publish",
        slug: `a-${noun}`,
        description: null,
        image: null,
        author: expect.stringMatching(/^\d+$/),
      });
      expect(response.headers.get("location")).toBe(`${server.base}/${collection}/${response.body.id}`);
      expect(response.body.rest_url).toBe(`${server.base}/${collection}/${response.body.id}`);
      expect(response.body.url).toBe(`${server.origin}/${noun}/a-${noun}/`);
      expect(response.body).not.toHaveProperty("json_ld");
    });

    it("stores the post fields: author, dates (Unix seconds here), description, status", async () => {
      const editor = await createUser(server, `editor-of-${collection}`, "editor");
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: {
          [name]: "Dated",
          author: String(editor.id),
          date: 1514808000,
          date_utc: 1514811600,
          description: "Some words",
          status: "draft",
          timezone: "ignored",
        },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        author: String(editor.id),
        date: "2018-01-01 13:00:00",
        date_utc: "2018-01-01 13:00:00",
        description: "<p>Some words</p>",
        excerpt: "<p>Some words</p>",
        status: "draft",
      });
    });

    it("reads date in the site time zone and date_utc in UTC", async () => {
      const lisbon = await startTestServer({ SITE_TIMEZONE: "America/New_York" });
      try {
        const local = await lisbon.raw("POST", `${root}/${collection}`, {
          body: { [name]: "Local", date: "2018-07-01 10:00:00" },
          headers: ADMIN_HEADERS,
        });
        expect(local.body).toMatchObject({ date: "2018-07-01 10:00:00", date_utc: "2018-07-01 14:00:00" });
        const utc = await lisbon.raw("POST", `${root}/${collection}`, {
          body: { [name]: "UTC", date_utc: "2018-01-01 10:00:00" },
          headers: ADMIN_HEADERS,
        });
        expect(utc.body).toMatchObject({ date: "2018-01-01 05:00:00", date_utc: "2018-01-01 10:00:00" });
      } finally {
        await lisbon.close();
      }
    });

    it("schedules an item dated in the future (status future)", async () => {
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: { [name]: "Later", date: "+1 year" },
        headers: ADMIN_HEADERS,
      });
      expect(response.body.status).toBe("future");
    });

    it.each([
      [{ [nameField(collection)]: "" }, nameField(collection)],
      [{ [nameField(collection)]: "   " }, nameField(collection)],
      [{ author: 23 }, "author"],
      [{ author: "foo" }, "author"],
      [{ date: "foo" }, "date"],
      [{ date_utc: "foo" }, "date_utc"],
      [{ date: "2018-02-30" }, "date"],
      [{ status: "kinda_thinking_about_it" }, "status"],
      [{ website: "foo" }, "website"],
      [{ website: "javascript:alert(1)" }, "website"],
      [{ image: "23" }, "image"],
    ])("rejects %j with 400 naming %s", async (fields, param) => {
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: { [name]: "Valid", ...fields },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("rest_invalid_param");
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    });

    it("reports every invalid parameter at once", async () => {
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: { [name]: "Valid", author: 23, date: "foo" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params).sort()).toEqual(["author", "date"]);
    });

    it(`requires the ${name}`, async () => {
      const response = await server.raw("POST", `${root}/${collection}`, {
        body: { description: "nameless" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "rest_missing_callback_param", data: { params: [name] } });
    });

    it("does not de-duplicate: the same name twice makes two items with unique slugs", async () => {
      const [first, second] = await createNamedVia(server, collection, ["Same Name", "same name"]);
      expect(second.id).not.toBe(first.id);
      expect([first.slug, second.slug]).toEqual(["same-name", "same-name-2"]);
    });

    it("takes an image URL", async () => {
      const created = await createLinkedVia(server, collection, {
        [name]: "Pictured",
        image: "https://images.example.org/a/Photo.JPG?size=large",
      });
      expect(created.image).toEqual({ url: "https://images.example.org/a/Photo.JPG?size=large", extension: "jpg" });
    });
  });

  describe(`GET /${collection}/{id} and /${collection}/by-slug/{slug}`, () => {
    it("answers with every field and the schema.org description", async () => {
      const created = await createLinkedVia(server, collection, { [name]: "Full", description: "Described\n\nTwice" });
      for (const path of [`/${created.id}`, `/by-slug/${created.slug}`]) {
        const response = await server.raw("GET", `${root}/${collection}${path}`);
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({
          ...created,
          json_ld: {
            "@context": "http://schema.org",
            "@type": collection === "venues" ? "Place" : "Person",
            name: "Full",
          },
        });
        expect(response.body.description).toBe("<p>Described</p>\n<p>Twice</p>");
      }
    });

    it(`answers unknown ids and slugs with 404 rest-${noun}-not-found`, async () => {
      for (const path of ["/23", "/0", "/by-slug/no-such-thing"]) {
        const response = await server.raw("GET", `${root}/${collection}${path}`);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe(`rest-${noun}-not-found`);
      }
    });

    it.each(["foo", "foo%20bar", "foo-bar"])("does not match the id route with %s", async (id) => {
      const response = await server.raw("GET", `${root}/${collection}/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("rest_no_route");
    });

    it("answers an empty slug with 404 rest_no_route", async () => {
      expect((await server.raw("GET", `${root}/${collection}/by-slug/`)).body.code).toBe("rest_no_route");
    });

    it(`answers a draft with 403 ${noun}-not-accessible to anonymous callers, and in full to editors`, async () => {
      const draft = await createLinkedVia(server, collection, { [name]: "Hidden", status: "draft" });
      for (const path of [`/${draft.id}`, `/by-slug/${draft.slug}`]) {
        const anonymous = await server.raw("GET", `${root}/${collection}${path}`);
        expect(anonymous.status).toBe(403);
        expect(anonymous.body.code).toBe(`${noun}-not-accessible`);
        expect((await server.raw("GET", `${root}/${collection}${path}`, { headers: ADMIN_HEADERS })).status).toBe(200);
      }
    });
    it(`shows a trashed ${noun} to those who may edit it, as the original does, and 403 to others`, async () => {
      const trashed = await createLinkedVia(server, collection, { [name]: "Binned" });
      const deleted = await server.raw("DELETE", `${root}/${collection}/${trashed.id}`, { headers: ADMIN_HEADERS });
      expect(deleted.status).toBe(200);
      for (const path of [`/${trashed.id}`, `/by-slug/${trashed.slug}`]) {
        const anonymous = await server.raw("GET", `${root}/${collection}${path}`);
        expect([anonymous.status, anonymous.body.code]).toEqual([403, `${noun}-not-accessible`]);
        const admin = await server.raw("GET", `${root}/${collection}${path}`, { headers: ADMIN_HEADERS });
        expect([admin.status, admin.body.status, admin.body.id]).toEqual([200, "trash", trashed.id]);
      }
      // Its list does not show it to anonymous callers either.
      const listed = await server.raw("GET", `${root}/${collection}?search=Binned`);
      expect(listed.body.total).toBe(0);
    });
  });

  describe(`POST, PUT and PATCH /${collection}/{id} and by slug`, () => {
    it("answers anonymous callers with 401, even on a draft", async () => {
      const draft = await createLinkedVia(server, collection, { [name]: "Draft", status: "draft" });
      expect((await server.raw("PUT", `${root}/${collection}/${draft.id}`, { body: { [name]: "x" } })).status).toBe(
        401,
      );
    });

    it.each(["POST", "PUT", "PATCH"])("%s changes only the fields given", async (method) => {
      const created = await createLinkedVia(server, collection, {
        [name]: "Before",
        description: "Kept",
        phone: "555",
        website: "https://kept.example.org/",
      });
      const response = await server.raw(method, `${root}/${collection}/${created.id}`, {
        body: { [name]: "After" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        id: created.id,
        [name]: "After",
        description: "<p>Kept</p>",
        phone: "555",
        website: "https://kept.example.org/",
        slug: created.slug,
      });
    });

    it("updates by slug too", async () => {
      const created = await createLinkedVia(server, collection, { [name]: "Sluggish" });
      const response = await server.raw("PATCH", `${root}/${collection}/by-slug/${created.slug}`, {
        body: { phone: "123" },
        headers: ADMIN_HEADERS,
      });
      expect(response.body).toMatchObject({ id: created.id, phone: "123" });
    });

    it("clears fields with empty strings or null", async () => {
      const created = await createLinkedVia(server, collection, {
        [name]: "Filled",
        description: "Text",
        phone: "555",
        website: "https://a.example.org/",
        image: "https://a.example.org/i.png",
      });
      const response = await server.raw("PATCH", `${root}/${collection}/${created.id}`, {
        body: { description: "", phone: null, website: "", image: null },
        headers: ADMIN_HEADERS,
      });
      expect(response.body).toMatchObject({
        description: null,
        excerpt: null,
        phone: null,
        website: null,
        image: null,
      });
    });

    it("changes the post fields", async () => {
      const created = await createLinkedVia(server, collection, { [name]: "Post fields" });
      const editor = await createUser(server, `other-editor-of-${collection}`, "editor");
      const response = await server.raw("POST", `${root}/${collection}/${created.id}`, {
        body: { author: editor.id, date_utc: "2020-02-02 02:02:02", status: "pending" },
        headers: ADMIN_HEADERS,
      });
      expect(response.body).toMatchObject({
        author: String(editor.id),
        date_utc: "2020-02-02 02:02:02",
        status: "pending",
      });
    });

    it("allows renaming to another item's name", async () => {
      const [a] = await createNamedVia(server, collection, ["First", "Second"]);
      const response = await server.raw("PATCH", `${root}/${collection}/${a.id}`, {
        body: { [name]: "Second" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
      expect(response.body[name]).toBe("Second");
    });

    it.each([
      [{ [nameField(collection)]: "" }, nameField(collection)],
      [{ author: 23 }, "author"],
      [{ date: "foo" }, "date"],
      [{ status: "nope" }, "status"],
      [{ website: "not a url" }, "website"],
    ])("rejects %j with 400 naming %s", async (fields, param) => {
      const created = await createLinkedVia(server, collection, { [name]: "Valid" });
      const response = await server.raw("PATCH", `${root}/${collection}/${created.id}`, {
        body: fields,
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    });

    it(`answers unknown ids and slugs with 404 rest-${noun}-not-found`, async () => {
      for (const path of ["/2389", "/by-slug/nope"]) {
        const response = await server.raw("PATCH", `${root}/${collection}${path}`, {
          body: { phone: "1" },
          headers: ADMIN_HEADERS,
        });
        expect(response.status).toBe(404);
        expect(response.body.code).toBe(`rest-${noun}-not-found`);
      }
    });
  });

  describe(`DELETE /${collection}/{id} and by slug`, () => {
    it("checks credentials before anything else", async () => {
      const created = await createLinkedVia(server, collection, { [name]: "Guarded" });
      expect((await server.raw("DELETE", `${root}/${collection}/23`)).status).toBe(401);
      expect((await server.raw("DELETE", `${root}/${collection}/${created.id}`)).status).toBe(401);
    });

    it(`moves to the trash (200, status trash), then answers 410 ${noun}-is-in-trash`, async () => {
      const created = await createLinkedVia(server, collection, { [name]: "Doomed" });
      const first = await server.raw("DELETE", `${root}/${collection}/${created.id}`, { headers: ADMIN_HEADERS });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: created.id, status: "trash" });
      const again = await server.raw("DELETE", `${root}/${collection}/by-slug/${created.slug}`, {
        headers: ADMIN_HEADERS,
      });
      expect(again.status).toBe(410);
      expect(again.body.code).toBe(`${noun}-is-in-trash`);
      expect((await server.raw("GET", `${root}/${collection}/${created.id}`)).status).toBe(403);
    });

    it("moves a live item to the trash even with force=true, and deletes a trashed one for good with it", async () => {
      const [live, trashed] = await createNamedVia(server, collection, ["Live", "Trashed"]);
      await server.raw("DELETE", `${root}/${collection}/${trashed.id}`, { headers: ADMIN_HEADERS });
      const moved = await server.raw("DELETE", `${root}/${collection}/${live.id}?force=true`, {
        headers: ADMIN_HEADERS,
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ id: live.id, status: "trash" });
      const response = await server.raw("DELETE", `${root}/${collection}/${trashed.id}?force=true`, {
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
      expect(response.body.id).toBe(trashed.id);
      expect((await server.raw("GET", `${root}/${collection}/${trashed.id}`, { headers: ADMIN_HEADERS })).status).toBe(
        404,
      );
    });

    it(`answers an unknown id with 404 rest-${noun}-not-found`, async () => {
      const response = await server.raw("DELETE", `${root}/${collection}/23`, { headers: ADMIN_HEADERS });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe(`rest-${noun}-not-found`);
    });
  });
});

describe("venue specifics", () => {
  it("stores the address fields, map flags and coordinates", async () => {
    const fields = {
      venue: "Le Temple",
      address: "100, Avenue du Temple",
      city: "Paris",
      country: "France",
      province: "Île-de-France",
      state: "Île-de-France",
      zip: "75003",
      phone: "+33 1 23 45 67 89",
      stateprovince: "Île-de-France",
      website: "https://temple.example.fr/",
      show_map: false,
      show_map_link: false,
      geo_lat: 48.866,
      geo_lng: 2.363,
    };
    const created = await createLinkedVia(server, "venues", fields);
    expect(created).toMatchObject(fields);
    const { data } = await server.api.GET("/venues/{id}", { params: { path: { id: created.id } } });
    expect(data?.json_ld).toMatchObject({
      address: {
        "@type": "PostalAddress",
        streetAddress: "100, Avenue du Temple",
        addressLocality: "Paris",
        postalCode: "75003",
        addressCountry: "France",
      },
      geo: { "@type": "GeoCoordinates", latitude: 48.866, longitude: 2.363 },
      telephone: "+33 1 23 45 67 89",
    });
  });

  it("rejects coordinates out of range", async () => {
    for (const [field, value] of [
      ["geo_lat", 91],
      ["geo_lng", -181],
      ["geo_lat", "north"],
    ] as const) {
      const response = await server.raw("POST", `${root}/venues`, {
        body: { venue: "Off the map", [field]: value },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([field]);
    }
  });

  it("searches the address fields, but not the country", async () => {
    await createLinkedVia(server, "venues", {
      venue: "One",
      address: "1 London Road",
      city: "London",
      state: "Greater London",
      zip: "223345",
      phone: "3333333",
    });
    await createLinkedVia(server, "venues", {
      venue: "Two",
      address: "2 Strand",
      city: "London",
      province: "Greater London",
      zip: "223345",
    });
    await createLinkedVia(server, "venues", {
      venue: "Three",
      address: "100, Avenue du Temple",
      city: "Paris",
      state: "France",
      stateprovince: "Île de France",
      country: "Germany",
    });
    const count = async (search: string) => (await list("venues", `?search=${encodeURIComponent(search)}`)).body.total;
    expect(await count("london")).toBe(2);
    expect(await count("3333333")).toBe(1);
    expect(await count("temple avenue")).toBe(1);
    expect(await count("greater london")).toBe(2);
    expect(await count("france")).toBe(1);
    expect(await count("france, ile de")).toBe(1);
    expect(await count("223345")).toBe(2);
    expect(await count("germany")).toBe(0);
  });
});

describe("organizer specifics", () => {
  it("stores e-mail, phone and website; an e-mail as written, as the original does", async () => {
    const created = await createLinkedVia(server, "organizers", {
      organizer: "Org",
      email: "org@example.org",
      phone: "123",
      website: "https://org.example.org/",
    });
    expect(created).toMatchObject({ email: "org@example.org", phone: "123", website: "https://org.example.org/" });
    for (const email of ["Info <info@example.test>", "not-an-email"]) {
      const copied = await createLinkedVia(server, "organizers", { organizer: `Copied ${email}`, email });
      expect(copied.email).toBe(email);
    }
    const tooLong = await server.raw("POST", `${root}/organizers`, {
      body: { organizer: "Long", email: `${"a".repeat(250)}@example.org` },
      headers: ADMIN_HEADERS,
    });
    expect(tooLong.status).toBe(400);
    expect(Object.keys(tooLong.body.data.params)).toEqual(["email"]);
  });

  it("searches e-mail addresses, phones and websites", async () => {
    await createLinkedVia(server, "organizers", {
      organizer: "One",
      phone: "111111111",
      email: "one@common.com",
      website: "http://one.com",
    });
    await createLinkedVia(server, "organizers", {
      organizer: "Two",
      phone: "222223333",
      email: "two@common.com",
      website: "http://two.com",
    });
    await createLinkedVia(server, "organizers", { organizer: "Three", phone: "1111", email: "three@three.com" });
    const count = async (search: string) =>
      (await list("organizers", `?search=${encodeURIComponent(search)}`)).body.total;
    expect(await count("1111")).toBe(2);
    expect(await count("111111111")).toBe(1);
    expect(await count("222223333")).toBe(1);
    expect(await count("three@three.com")).toBe(1);
    expect(await count("common.com")).toBe(2);
    expect(await count("http://one.com")).toBe(1);
    expect(await count("@common.com")).toBe(2);
  });
});
