// Categories and tags: the "Categories and tags" table of docs/compatibility.md §12, with our
// departures (unknown id → 404 rest-*-not-found; collection links keep the whole query).
// The `post`/`event` filters with real events are in events-term-filters.test.ts.
import { createTermVia, createTermsVia, type Collection, type TermJson } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

// A fresh set of terms per test: delete whatever the previous test created.
afterEach(async () => {
  await server.db.write.term.deleteMany({});
});

const path = (collection: Collection, query = "") => `/calendar/events/v1/${collection}${query}`;

async function list(collection: Collection, query: Record<string, unknown> = {}) {
  const { data, response, error } = await server.api.GET(`/${collection}` as "/categories", {
    params: { query: query as never },
  });
  return {
    data: data as unknown as {
      total: number;
      total_pages: number;
      rest_url: string;
      next_rest_url?: string;
      previous_rest_url?: string;
    } & Record<Collection, TermJson[]>,
    response,
    error,
  };
}

const names = (terms: TermJson[]) => terms.map((term) => term.name);

describe.each<[Collection, string, string]>([
  ["categories", "tribe_events_cat", "rest-category-not-found"],
  ["tags", "post_tag", "rest-tag-not-found"],
])("/%s", (collection, wpTaxonomy, notFoundCode) => {
  describe(`GET /${collection}`, () => {
    it("returns an empty collection, totals 0 and no page links when there are none", async () => {
      const { data, response } = await list(collection, { hide_empty: false });
      expect(response.status).toBe(200);
      expect(data[collection]).toEqual([]);
      expect(data.total).toBe(0);
      expect(data.total_pages).toBe(0);
      expect(data).not.toHaveProperty("next_rest_url");
      expect(data).not.toHaveProperty("previous_rest_url");
      for (const header of ["X-TEC-Total", "X-TEC-TotalPages", "X-WP-Total", "X-WP-TotalPages"]) {
        expect(response.headers.get(header)).toBe("0");
      }
      expect(response.headers.get("Link")).toBe(`<${server.origin}/>; rel="https://api.w.org/"`);
    });

    it("hides terms no published event uses, unless hide_empty is false (1/0 accepted too)", async () => {
      await createTermsVia(server, collection, ["One", "Two"]);
      expect((await list(collection)).data.total).toBe(0);
      expect((await list(collection, { hide_empty: false })).data.total).toBe(2);
      const zero = await server.raw("GET", path(collection, "?hide_empty=0"));
      expect(zero.body.total).toBe(2);
      const upper = await server.raw("GET", path(collection, "?hide_empty=FALSE"));
      expect(upper.body.total).toBe(2);
    });

    it("lists the available terms", async () => {
      await createTermsVia(server, collection, ["A1", "A2", "A3", "A4", "A5"]);
      const { data } = await list(collection, { hide_empty: false });
      expect(data[collection]).toHaveLength(5);
    });

    it("pages with per_page", async () => {
      await createTermsVia(server, collection, ["t1", "t2", "t3", "t4", "t5", "t6"]);
      const first = await list(collection, { hide_empty: false, per_page: 3 });
      const second = await list(collection, { hide_empty: false, per_page: 3, page: 2 });
      expect(names(first.data[collection])).toEqual(["t1", "t2", "t3"]);
      expect(names(second.data[collection])).toEqual(["t4", "t5", "t6"]);
    });

    it("gives totals, headers and next/previous links that keep the query", async () => {
      await createTermsVia(server, collection, ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"]);
      const first = await list(collection, { hide_empty: false, per_page: 3 });
      expect(first.data.total).toBe(9);
      expect(first.data.total_pages).toBe(3);
      expect(first.response.headers.get("X-TEC-Total")).toBe("9");
      expect(first.response.headers.get("X-WP-TotalPages")).toBe("3");
      expect(first.data).not.toHaveProperty("previous_rest_url");
      expect(first.data.rest_url).toBe(`${server.base}/${collection}?page=1&per_page=3&hide_empty=false`);
      expect(first.data.next_rest_url).toBe(`${server.base}/${collection}?page=2&per_page=3&hide_empty=false`);
      expect(first.response.headers.get("Link")).toBe(
        `<${server.origin}/>; rel="https://api.w.org/", <${first.data.next_rest_url}>; rel="next"`,
      );

      const second = await list(collection, { hide_empty: false, per_page: 3, page: 2 });
      expect(second.data.previous_rest_url).toBe(`${server.base}/${collection}?page=1&per_page=3&hide_empty=false`);
      expect(second.data.next_rest_url).toContain("page=3");
      expect(second.response.headers.get("Link")).toBe(
        `<${server.origin}/>; rel="https://api.w.org/", <${second.data.next_rest_url}>; rel="next", <${second.data.previous_rest_url}>; rel="prev"`,
      );

      const third = await list(collection, { hide_empty: false, per_page: 3, page: 3 });
      expect(third.data.previous_rest_url).toContain("page=2");
      expect(third.data).not.toHaveProperty("next_rest_url");
    });

    it("answers a page past the last one with an empty list, not an error", async () => {
      await createTermsVia(server, collection, ["only"]);
      const { data, response } = await list(collection, { hide_empty: false, page: 3 });
      expect(response.status).toBe(200);
      expect(data[collection]).toEqual([]);
      expect(data.total).toBe(1);
    });

    it("clamps per_page to 50 instead of rejecting it", async () => {
      await createTermsVia(
        server,
        collection,
        Array.from({ length: 51 }, (_, i) => `term ${String(i).padStart(2, "0")}`),
      );
      const { data } = await list(collection, { hide_empty: false, per_page: 100 });
      expect(data[collection]).toHaveLength(50);
      expect(data.rest_url).toContain("per_page=50");
    });

    it.each(["foo", "-1", "0", "foo bar", "1.5"])(
      "rejects page=%s and per_page=%s with 400 rest_invalid_param",
      async (value) => {
        for (const param of ["page", "per_page"]) {
          const response = await server.raw("GET", path(collection, `?${param}=${encodeURIComponent(value)}`));
          expect(response.status).toBe(400);
          expect(response.body.code).toBe("rest_invalid_param");
          expect(Object.keys(response.body.data.params)).toEqual([param]);
        }
      },
    );

    it("searches names and slugs, ignoring case and accents", async () => {
      await createTermsVia(server, collection, ["Foo", "Bar", "Baz"]);
      await createTermVia(server, collection, { name: "One", slug: "foo-bar" });
      await createTermVia(server, collection, { name: "Música" });
      expect(names((await list(collection, { hide_empty: false, search: "foo" })).data[collection]).sort()).toEqual([
        "Foo",
        "One",
      ]);
      expect(names((await list(collection, { hide_empty: false, search: "bar" })).data[collection]).sort()).toEqual([
        "Bar",
        "One",
      ]);
      expect(names((await list(collection, { hide_empty: false, search: "MUSICA" })).data[collection])).toEqual([
        "Música",
      ]);
      const none = await list(collection, { hide_empty: false, search: "zoot" });
      expect(none.response.status).toBe(200);
      expect(none.data.total).toBe(0);
    });

    it("treats % and _ in a search as plain characters", async () => {
      await createTermsVia(server, collection, ["100% jazz", "a_b", "abb"]);
      expect(names((await list(collection, { hide_empty: false, search: "%" })).data[collection])).toEqual([
        "100% jazz",
      ]);
      expect(names((await list(collection, { hide_empty: false, search: "a_b" })).data[collection])).toEqual(["a_b"]);
    });

    it("excludes terms by id or slug", async () => {
      const [a, b, c] = await createTermsVia(server, collection, ["Alpha", "Beta", "Gamma"]);
      expect(names((await list(collection, { hide_empty: false, exclude: [String(a.id)] })).data[collection])).toEqual([
        "Beta",
        "Gamma",
      ]);
      expect(
        names((await list(collection, { hide_empty: false, exclude: [String(a.id), b.slug] })).data[collection]),
      ).toEqual(["Gamma"]);
      const all = await list(collection, { hide_empty: false, exclude: [String(a.id), String(b.id), String(c.id)] });
      expect(all.response.status).toBe(200);
      expect(all.data[collection]).toEqual([]);
    });

    it("includes only the terms given, by id or slug, as a list or a comma-separated string", async () => {
      const [a, , c] = await createTermsVia(server, collection, ["Alpha", "Beta", "Gamma"]);
      expect(names((await list(collection, { hide_empty: false, include: [String(a.id)] })).data[collection])).toEqual([
        "Alpha",
      ]);
      const csv = await server.raw("GET", path(collection, `?hide_empty=false&include=${a.id},%20${c.slug}`));
      expect(names(csv.body[collection])).toEqual(["Alpha", "Gamma"]);
      const brackets = await server.raw(
        "GET",
        path(collection, `?hide_empty=false&include[]=${a.id}&include[]=${c.id}`),
      );
      expect(names(brackets.body[collection])).toEqual(["Alpha", "Gamma"]);
    });

    it.each(["include", "exclude"])("rejects an unknown term in %s with 400 naming the parameter", async (param) => {
      const [a] = await createTermsVia(server, collection, ["Alpha"]);
      const response = await server.raw("GET", path(collection, `?${param}=${a.id},2389,no-such-slug`));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("rest_invalid_param");
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    });

    it("orders by name (ignoring case), by id, and in either direction", async () => {
      await createTermsVia(server, collection, ["b", "A", "C"]);
      const order = async (query: Record<string, unknown>) =>
        names((await list(collection, { hide_empty: false, ...query })).data[collection]);
      expect(await order({ orderby: "id", order: "desc" })).toEqual(["C", "A", "b"]);
      expect(await order({ orderby: "id", order: "asc" })).toEqual(["b", "A", "C"]);
      expect(await order({ orderby: "name", order: "asc" })).toEqual(["A", "b", "C"]);
      expect(await order({ orderby: "name", order: "DESC" })).toEqual(["C", "b", "A"]);
      expect(await order({})).toEqual(["A", "b", "C"]);
      expect(await order({ orderby: "slug", order: "desc" })).toEqual(["C", "b", "A"]);
    });

    it("orders by the include list", async () => {
      const [a, b, c] = await createTermsVia(server, collection, ["Alpha", "Beta", "Gamma"]);
      const { data } = await list(collection, {
        hide_empty: false,
        orderby: "include",
        include: [String(c.id), String(a.id), String(b.id)],
      });
      expect(names(data[collection])).toEqual(["Gamma", "Alpha", "Beta"]);
    });

    it.each(["order", "orderby"])("rejects an empty or unknown %s", async (param) => {
      for (const value of ["", "sideways"]) {
        const response = await server.raw("GET", path(collection, `?${param}=${value}`));
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.data.params)).toEqual([param]);
      }
    });

    it("filters by exact slug", async () => {
      await createTermsVia(server, collection, ["a", "b", "c"]);
      expect(names((await list(collection, { hide_empty: false, slug: "a" })).data[collection])).toEqual(["a"]);
      expect(names((await list(collection, { hide_empty: false, slug: "c" })).data[collection])).toEqual(["c"]);
      const none = await list(collection, { hide_empty: false, slug: "foo" });
      expect(none.response.status).toBe(200);
      expect(none.data[collection]).toEqual([]);
      expect((await server.raw("GET", path(collection, "?slug="))).status).toBe(400);
    });

    it.each(["post", "event"])("rejects %s that is empty, not numeric or not an existing event", async (param) => {
      for (const value of ["", "23", "foo"]) {
        const response = await server.raw("GET", path(collection, `?${param}=${value}`));
        expect(response.status).toBe(400);
        expect(response.body.code).toBe("rest_invalid_param");
        expect(Object.keys(response.body.data.params)).toEqual([param]);
      }
    });

    it("ignores unknown query parameters, as the original does (a misspelt filter filters nothing)", async () => {
      await createTermsVia(server, collection, ["One", "Two"]);
      const response = await server.raw("GET", path(collection, "?per-page=1&hide_empty=false"));
      expect(response.status).toBe(200);
      expect(response.body.total).toBe(2);
      expect(response.body[collection]).toHaveLength(2);
      // Names that are also properties of every JavaScript object are names like any other.
      for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
        const odd = await server.raw("GET", path(collection, `?${name}=1&hide_empty=false`));
        expect({ name, status: odd.status, total: odd.body.total }).toEqual({ name, status: 200, total: 2 });
      }
    });
  });

  describe(`GET /${collection}/{id}`, () => {
    it("returns the term in the documented shape", async () => {
      const created = await createTermVia(server, collection, {
        name: "Jazz",
        description: "Smooth",
        slug: "jazz-music",
      });
      const { data, response } = await server.api.GET(`/${collection}/{id}` as "/categories/{id}", {
        params: { path: { id: created.id } },
      });
      expect(response.status).toBe(200);
      expect(data).toEqual({
        id: created.id,
        count: 0,
        description: "Smooth",
        name: "Jazz",
        slug: "jazz-music",
        taxonomy: wpTaxonomy,
        ...(collection === "categories" ? { parent: 0 } : {}),
        meta: [],
        url: `${server.origin}/${collection === "categories" ? "events/category" : "tag"}/jazz-music/`,
        urls: { self: `${server.base}/${collection}/${created.id}`, collection: `${server.base}/${collection}` },
        translations: {
          en: { slug: "jazz-music", rest_url: `${server.origin}/en/calendar/events/v1/${collection}/${created.id}` },
        },
      });
      expect(response.headers.get("X-TEC-Total")).toBeNull();
    });

    it(`answers an unknown id (0 too) with 404 ${notFoundCode}`, async () => {
      const response = await server.raw("GET", path(collection, "/2389"));
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        code: notFoundCode,
        message: expect.stringContaining("2389"),
        data: { status: 404 },
      });
      expect((await server.raw("GET", path(collection, "/0"))).body.code).toBe(notFoundCode);
    });

    it("answers the id of a term of the other taxonomy with 404", async () => {
      const other = await createTermVia(server, collection === "categories" ? "tags" : "categories", {
        name: "Elsewhere",
      });
      expect((await server.raw("GET", path(collection, `/${other.id}`))).status).toBe(404);
    });

    it.each(["foo", "foo%20bar", "1.5", "99999999999"])(
      "does not match a non-numeric or out-of-range id (%s): 404 rest_no_route",
      async (id) => {
        const response = await server.raw("GET", path(collection, `/${id}`));
        expect(response.status).toBe(404);
        expect(response.body.code).toBe("rest_no_route");
      },
    );

    it("answers HEAD like GET, without a body", async () => {
      const created = await createTermVia(server, collection, { name: "Heads" });
      const response = await fetch(`${server.base}/${collection}/${created.id}`, { method: "HEAD" });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await response.text()).toBe("");
    });
  });

  describe(`POST /${collection}`, () => {
    it("creates a term: 201, the term, and its Location", async () => {
      const { data, response } = await server.admin.POST(`/${collection}` as "/categories", {
        body: { name: "Open air", description: "Outside", slug: "open-air" },
      });
      expect(response.status).toBe(201);
      expect(data).toMatchObject({
        name: "Open air",
        description: "Outside",
        slug: "open-air",
        count: 0,
        taxonomy: wpTaxonomy,
      });
      expect(response.headers.get("Location")).toBe(`${server.base}/${collection}/${data!.id}`);
    });

    it("derives the slug from the name and makes it unique", async () => {
      const first = await createTermVia(server, collection, { name: "Rock & Roll Ünïcode" });
      expect(first.slug).toBe("rock-roll-unicode");
      const clash = await createTermVia(server, collection, { name: "Other", slug: "rock-roll-unicode" });
      expect(clash.slug).toBe("rock-roll-unicode-2");
      const again = await createTermVia(server, collection, { name: "Third", slug: "Rock Roll Unicode" });
      expect(again.slug).toBe("rock-roll-unicode-3");
    });

    it("refuses a name already used (ignoring case and accents) with 400 term_exists and the existing id", async () => {
      const existing = await createTermVia(server, collection, { name: "Música" });
      const response = await server.raw("POST", path(collection), { body: { name: "MUSICA" }, headers: ADMIN_HEADERS });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("term_exists");
      expect(response.body.data.term_id).toBe(existing.id);
    });

    it("answers an anonymous create with 401, whatever the body", async () => {
      for (const request of [
        { body: { name: "x" } },
        { body: {} },
        { rawBody: "{not json", headers: { "Content-Type": "application/json" } },
      ]) {
        const response = await server.raw("POST", path(collection), request);
        expect(response.status).toBe(401);
        expect(response.body.code).toBe("rest_forbidden");
        expect(response.headers.get("WWW-Authenticate")).toContain("Bearer");
      }
    });

    it("answers a wrong key with 401 and no hint", async () => {
      const response = await server.raw("POST", path(collection), {
        body: { name: "x" },
        headers: { Authorization: "Bearer nope-nope-nope" },
      });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        code: "rest_forbidden",
        message: "Sorry, you are not allowed to do that.",
        data: { status: 401 },
      });
    });

    it("requires a name: 400 rest_missing_callback_param", async () => {
      const response = await server.raw("POST", path(collection), {
        body: { description: "no name" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: "rest_missing_callback_param",
        message: "Missing parameter(s): name",
        data: { status: 400, params: ["name"] },
      });
    });

    it.each([
      ["name", ""],
      ["description", ""],
      ["slug", ""],
      ["name", 42],
    ])("rejects %s=%j with 400 naming it", async (field, value) => {
      const response = await server.raw("POST", path(collection), {
        body: { name: "Valid", [field]: value },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("rest_invalid_param");
      expect(Object.keys(response.body.data.params)).toEqual([field]);
    });

    it("rejects malformed JSON with 400 rest_invalid_json", async () => {
      const response = await server.raw("POST", path(collection), {
        rawBody: '{"name": ',
        headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("rest_invalid_json");
    });

    it("takes a form-encoded body as a JSON one, and refuses other media types with 415", async () => {
      const form = await server.raw("POST", path(collection), {
        rawBody: "name=Formed+term&description=From+a+form",
        headers: { ...ADMIN_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(form.status).toBe(201);
      expect(form.body).toMatchObject({ name: "Formed term", description: "From a form" });
      const response = await server.raw("POST", path(collection), {
        rawBody: "name=x",
        headers: { ...ADMIN_HEADERS, "Content-Type": "text/plain" },
      });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe("rest_unsupported_media_type");
    });

    it("ignores read-only and unknown fields, so a term read can be sent back", async () => {
      const created = await createTermVia(server, collection, {
        name: "Round trip",
        description: "Read, then sent back",
      });
      const response = await server.raw("POST", path(collection, `/${created.id}`), {
        body: { ...created, count: 99, name: "Round trip 2" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: created.id, count: 0, name: "Round trip 2" });
    });
  });

  describe(`POST, PUT and PATCH /${collection}/{id}`, () => {
    it.each(["POST", "PUT", "PATCH"])("%s changes only the fields given", async (method) => {
      const created = await createTermVia(server, collection, { name: "Before", description: "Kept" });
      const response = await server.raw(method, path(collection, `/${created.id}`), {
        body: { name: "After" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: created.id, name: "After", description: "Kept", slug: created.slug });
    });

    it("removes a description with null", async () => {
      const created = await createTermVia(server, collection, { name: "Described", description: "Text" });
      const { data } = await server.admin.PATCH(`/${collection}/{id}` as "/categories/{id}", {
        params: { path: { id: created.id } },
        body: { description: null },
      });
      expect(data?.description).toBe("");
    });

    it("keeps a term's own slug when asked for it again, and makes a taken one unique", async () => {
      const [a, b] = await createTermsVia(server, collection, ["Alpha", "Beta"]);
      const same = await server.raw("PATCH", path(collection, `/${a.id}`), {
        body: { slug: "alpha" },
        headers: ADMIN_HEADERS,
      });
      expect(same.body.slug).toBe("alpha");
      const taken = await server.raw("PATCH", path(collection, `/${b.id}`), {
        body: { slug: "alpha" },
        headers: ADMIN_HEADERS,
      });
      expect(taken.body.slug).toBe("alpha-2");
    });

    it("refuses to rename to another term's name", async () => {
      const [a] = await createTermsVia(server, collection, ["Alpha", "Beta"]);
      const response = await server.raw("PATCH", path(collection, `/${a.id}`), {
        body: { name: "beta" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("term_exists");
    });

    it(`answers an unknown id with 404 ${notFoundCode}, after authentication`, async () => {
      expect((await server.raw("PATCH", path(collection, "/2389"), { body: { name: "x" } })).status).toBe(401);
      const response = await server.raw("PATCH", path(collection, "/2389"), {
        body: { name: "x" },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe(notFoundCode);
    });

    it.each([
      ["name", ""],
      ["description", ""],
      ["slug", ""],
    ])("rejects %s=%j", async (field, value) => {
      const created = await createTermVia(server, collection, { name: "Valid" });
      const response = await server.raw("POST", path(collection, `/${created.id}`), {
        body: { [field]: value },
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual([field]);
    });
  });

  describe(`DELETE /${collection}/{id}`, () => {
    it("deletes the term for good and answers with it as it was", async () => {
      const created = await createTermVia(server, collection, { name: "Doomed", description: "Bye" });
      const { data, response } = await server.admin.DELETE(`/${collection}/{id}` as "/categories/{id}", {
        params: { path: { id: created.id } },
      });
      expect(response.status).toBe(200);
      expect(data).toEqual(created);
      expect((await server.raw("GET", path(collection, `/${created.id}`))).status).toBe(404);
    });

    it("answers anonymous deletes with 401 and unknown ids with 404", async () => {
      const created = await createTermVia(server, collection, { name: "Safe" });
      expect((await server.raw("DELETE", path(collection, `/${created.id}`))).status).toBe(401);
      const unknown = await server.raw("DELETE", path(collection, "/23"), { headers: ADMIN_HEADERS });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe(notFoundCode);
    });
  });
});

describe("category hierarchy", () => {
  it("creates children with urls.up, and lists a parent's direct children", async () => {
    const parent = await createTermVia(server, "categories", { name: "b" });
    const child = await createTermVia(server, "categories", { name: "Child 1", parent: parent.id });
    await createTermVia(server, "categories", { name: "Child 2", parent: parent.id });
    await createTermVia(server, "categories", { name: "Grandchild", parent: child.id });
    expect(child).toMatchObject({ parent: parent.id, urls: { up: `${server.base}/categories/${parent.id}` } });
    const { data } = await server.api.GET("/categories", {
      params: { query: { hide_empty: false, parent: parent.id } },
    });
    expect(data?.total).toBe(2);
    const top = await server.api.GET("/categories", { params: { query: { hide_empty: false, parent: 0 } } });
    expect(top.data?.categories.map((c) => c.name)).toEqual(["b"]);
  });

  it("rejects a parent filter that is empty, unknown or not a number", async () => {
    for (const value of ["", "2389", "foo"]) {
      const response = await server.raw("GET", `/calendar/events/v1/categories?parent=${value}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.data.params)).toEqual(["parent"]);
    }
  });

  it("allows the same name under different parents, not under the same one", async () => {
    const a = await createTermVia(server, "categories", { name: "A" });
    const b = await createTermVia(server, "categories", { name: "B" });
    await createTermVia(server, "categories", { name: "Kids", parent: a.id });
    await createTermVia(server, "categories", { name: "Kids", parent: b.id });
    const clash = await server.raw("POST", "/calendar/events/v1/categories", {
      body: { name: "kids", parent: a.id },
      headers: ADMIN_HEADERS,
    });
    expect(clash.body.code).toBe("term_exists");
  });

  it.each([
    ["", "empty"],
    [2389, "unknown"],
    ["foo", "not a number"],
  ])("rejects parent %j (%s) on create", async (parent, _why) => {
    const response = await server.raw("POST", "/calendar/events/v1/categories", {
      body: { name: "Orphan", parent },
      headers: ADMIN_HEADERS,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.data.params)).toEqual(["parent"]);
  });

  it("refuses a tag as parent, and a category as its own ancestor", async () => {
    const tag = await createTermVia(server, "tags", { name: "A tag" });
    const tagParent = await server.raw("POST", "/calendar/events/v1/categories", {
      body: { name: "X", parent: tag.id },
      headers: ADMIN_HEADERS,
    });
    expect(tagParent.status).toBe(400);
    const root = await createTermVia(server, "categories", { name: "Root" });
    const leaf = await createTermVia(server, "categories", { name: "Leaf", parent: root.id });
    const cycle = await server.raw("PATCH", `/calendar/events/v1/categories/${root.id}`, {
      body: { parent: leaf.id },
      headers: ADMIN_HEADERS,
    });
    expect(cycle.status).toBe(400);
    expect(Object.keys(cycle.body.data.params)).toEqual(["parent"]);
    const self = await server.raw("PATCH", `/calendar/events/v1/categories/${root.id}`, {
      body: { parent: root.id },
      headers: ADMIN_HEADERS,
    });
    expect(self.status).toBe(400);
  });

  it("moves children up to the grandparent when their parent is deleted, and detaches with parent 0", async () => {
    const root = await createTermVia(server, "categories", { name: "Root" });
    const middle = await createTermVia(server, "categories", { name: "Middle", parent: root.id });
    const leaf = await createTermVia(server, "categories", { name: "Leaf", parent: middle.id });
    await server.admin.DELETE("/categories/{id}", { params: { path: { id: middle.id } } });
    const { data } = await server.api.GET("/categories/{id}", { params: { path: { id: leaf.id } } });
    expect(data?.parent).toBe(root.id);
    const detached = await server.admin.PATCH("/categories/{id}", {
      params: { path: { id: leaf.id } },
      body: { parent: 0 },
    });
    expect(detached.data?.parent).toBe(0);
    expect(detached.data?.urls).not.toHaveProperty("up");
  });

  it("does not take a parent on tags: it is ignored, as any unknown parameter", async () => {
    const [tag] = await createTermsVia(server, "tags", ["Unfiled"]);
    const response = await server.raw("GET", `/calendar/events/v1/tags?parent=${tag.id}&hide_empty=false`);
    expect(response.status).toBe(200);
    expect(response.body.tags.map((item: { id: number }) => item.id)).toEqual([tag.id]);
  });
});

describe("search edge cases", () => {
  it("looks for a query of punctuation only as it is, instead of matching everything", async () => {
    await createTermsVia(server, "tags", ["Rock, Pop", "Jazz"]);
    const { data } = await server.api.GET("/tags", { params: { query: { hide_empty: false, search: "," } } });
    expect(data?.tags.map((tag) => tag.name)).toEqual(["Rock, Pop"]);
  });
});
