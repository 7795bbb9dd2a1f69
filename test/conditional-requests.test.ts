// Conditional requests (docs/compatibility.md "What this service promises"): strong ETags on every item and collection, 304 for
// a current If-None-Match, 412 rest_precondition_failed for an If-Match that does not hold, on
// every resource, by id and by slug; and a read-modify-write race that If-Match makes safe.
import { createEventVia, fixedClock, utcWall } from "./support/events";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());

const root = "/calendar/events/v1";
const get = (path: string, headers: Record<string, string> = {}) => server.raw("GET", `${root}${path}`, { headers });
const write = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  server.raw(method, `${root}${path}`, { body, headers: { ...ADMIN_HEADERS, ...headers } });
const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

describe("ETag and If-None-Match", () => {
  it("tags every item and collection with a strong tag, and answers a current copy with 304 and no body", async () => {
    const event = await createEventVia(server, { title: "Tagged", start_date: utcWall(24), end_date: utcWall(25) });
    const venue = await createLinkedVia(server, "venues", { venue: "Tagged hall" });
    const category = await createTermVia(server, "categories", { name: "Tagged" });
    for (const path of [
      `/events/${event.id}`,
      `/events/by-slug/${event.slug}`,
      "/events",
      `/venues/${venue.id}`,
      `/venues/by-slug/${venue.slug}`,
      "/venues",
      `/categories/${category.id}`,
      "/categories",
      "/tags",
      "/organizers",
      "",
      "/doc",
    ]) {
      const first = await get(path);
      expect([path, first.status]).toEqual([path, 200]);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(STRONG_TAG);
      expect((await get(path)).headers.get("etag")).toBe(etag);
      const again = await get(path, { "If-None-Match": etag });
      expect([path, again.status, again.text]).toEqual([path, 304, ""]);
      expect(again.headers.get("etag")).toBe(etag);
      // Weak comparison for If-None-Match (RFC 9110 §13.1.2), and lists of tags.
      expect((await get(path, { "If-None-Match": `"other", W/${etag}` })).status).toBe(304);
      expect((await get(path, { "If-None-Match": '"other"' })).status).toBe(200);
      expect((await server.raw("HEAD", `${root}${path}`, { headers: { "If-None-Match": etag } })).status).toBe(304);
      // A 304 has no body, so no Content-Type (a proxy that checks one against the other fails it).
      expect([path, again.headers.get("content-type")]).toEqual([path, null]);
    }
  });

  it("serves /doc as JSON or HTML by Accept, says so in Vary, and answers HEAD as GET without the body", async () => {
    for (const accept of ["application/json", "text/html"]) {
      const page = await get("/doc", { Accept: accept });
      expect(page.headers.get("vary")).toBe("Accept, Accept-Encoding");
      expect(page.headers.get("content-type")).toContain(accept);
      const head = await server.raw("HEAD", `${root}/doc`, { headers: { Accept: accept } });
      expect([head.status, head.text, head.headers.get("etag"), head.headers.get("content-type")]).toEqual([
        200,
        "",
        page.headers.get("etag"),
        page.headers.get("content-type"),
      ]);
      const unchanged = await get("/doc", { Accept: accept, "If-None-Match": page.headers.get("etag")! });
      expect([unchanged.status, unchanged.headers.get("content-type"), unchanged.headers.get("vary")]).toEqual([
        304,
        null,
        "Accept, Accept-Encoding",
      ]);
    }
  });

  it("changes an item's tag with every change of its representation, in its own fields or in what it embeds", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Embedded hall" });
    const event = await createEventVia(server, {
      title: "Changing",
      start_date: utcWall(30),
      end_date: utcWall(31),
      venue: [venue.id],
    });
    const path = `/events/${event.id}`;
    const tags = [(await get(path)).headers.get("etag")];
    await write("PATCH", path, { featured: true });
    tags.push((await get(path)).headers.get("etag"));
    // A translation written in another language: the English representation lists it.
    await server.raw("PATCH", `/es${root}${path}`, { body: { title: "Cambiante" }, headers: ADMIN_HEADERS });
    tags.push((await get(path)).headers.get("etag"));
    // The venue it embeds is renamed.
    await write("PATCH", `/venues/${venue.id}`, { venue: "Renamed hall" });
    tags.push((await get(path)).headers.get("etag"));
    expect(new Set(tags).size).toBe(4);
    expect((await get(path, { "If-None-Match": tags[0]! })).status).toBe(200);
    // Each language's representation has its own tag.
    expect((await server.raw("GET", `/es${root}${path}`)).headers.get("etag")).not.toBe(tags[3]);
  });

  it("changes a collection's tag when an item of the page changes", async () => {
    await createEventVia(server, { title: "Listed", start_date: utcWall(40), end_date: utcWall(41) });
    const before = (await get("/events?search=listed")).headers.get("etag")!;
    const event = (await get("/events?search=listed")).body.events[0];
    await write("PATCH", `/events/${event.id}`, { sticky: true });
    const after = await get("/events?search=listed", { "If-None-Match": before });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before);
  });
});

describe("If-Match", () => {
  it("writes when the tag is current, answering with the tag a GET then gives", async () => {
    const event = await createEventVia(server, {
      title: "Conditional",
      start_date: utcWall(50),
      end_date: utcWall(51),
    });
    const path = `/events/${event.id}`;
    const etag = (await get(path)).headers.get("etag")!;
    const patched = await write("PATCH", path, { title: "Conditional, changed" }, { "If-Match": etag });
    expect(patched.status).toBe(200);
    expect(patched.headers.get("etag")).toMatch(STRONG_TAG);
    expect(patched.headers.get("etag")).toBe((await get(path)).headers.get("etag"));
    // That tag can be sent back at once: chained writes need no read in between.
    const chained = await write("PATCH", path, { sticky: true }, { "If-Match": patched.headers.get("etag")! });
    expect(chained.status).toBe(200);
  });

  it("refuses with 412 rest_precondition_failed, changing nothing, when the item changed since", async () => {
    const event = await createEventVia(server, { title: "Stale", start_date: utcWall(52), end_date: utcWall(53) });
    const path = `/events/${event.id}`;
    const stale = (await get(path)).headers.get("etag")!;
    await write("PATCH", path, { featured: true });
    for (const [method, body] of [
      ["PATCH", { title: "Lost" }],
      ["PUT", { title: "Lost" }],
      ["POST", { title: "Lost" }],
      ["DELETE", undefined],
    ] as const) {
      const refused = await write(method, path, body, { "If-Match": stale });
      expect(refused.status).toBe(412);
      expect(refused.body).toEqual({
        code: "rest_precondition_failed",
        message: "The item has changed since the version the request names (If-Match), or does not exist.",
        data: { status: 412 },
      });
    }
    expect((await get(path)).body).toMatchObject({ title: "Stale", status: "publish", featured: true });
    // A weak tag never matches If-Match (strong comparison).
    const current = (await get(path)).headers.get("etag")!;
    expect((await write("PATCH", path, { sticky: true }, { "If-Match": `W/${current}` })).status).toBe(412);
    expect((await write("PATCH", path, { sticky: true }, { "If-Match": `"other", ${current}` })).status).toBe(200);
  });

  it("takes * as any current item, and answers * (or any tag) on a missing item with 412 instead of 404", async () => {
    const event = await createEventVia(server, { title: "Starred", start_date: utcWall(54), end_date: utcWall(55) });
    expect((await write("PATCH", `/events/${event.id}`, { sticky: true }, { "If-Match": "*" })).status).toBe(200);
    for (const query of ["", "?force=true"])
      expect((await write("DELETE", `/events/${event.id}${query}`, undefined, { "If-Match": "*" })).status).toBe(200);
    expect((await write("PATCH", `/events/${event.id}`, { sticky: true }, { "If-Match": "*" })).status).toBe(412);
    expect((await write("DELETE", "/events/99999", undefined, { "If-Match": '"whatever"' })).status).toBe(412);
    expect((await write("PATCH", `/events/${event.id}`, { sticky: true })).status).toBe(404);
  });

  it("guards every resource's writes, by id and by slug", async () => {
    const event = await createEventVia(server, {
      title: "Every resource",
      start_date: utcWall(56),
      end_date: utcWall(57),
    });
    const venue = await createLinkedVia(server, "venues", { venue: "Every hall" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Every society" });
    const category = await createTermVia(server, "categories", { name: "Every category" });
    const tag = await createTermVia(server, "tags", { name: "Every tag" });
    const items: Array<[string, Record<string, unknown>]> = [
      [`/events/by-slug/${event.slug}`, { excerpt: "x" }],
      [`/venues/${venue.id}`, { city: "x" }],
      [`/venues/by-slug/${venue.slug}`, { city: "y" }],
      [`/organizers/by-slug/${organizer.slug}`, { phone: "1" }],
      [`/categories/${category.id}`, { description: "x" }],
      [`/tags/${tag.id}`, { description: "x" }],
    ];
    for (const [path, body] of items) {
      expect([path, (await write("PATCH", path, body, { "If-Match": '"not-the-tag"' })).status]).toEqual([path, 412]);
      const etag = (await get(path)).headers.get("etag")!;
      const written = await write("PATCH", path, body, { "If-Match": etag });
      expect([path, written.status]).toEqual([path, 200]);
      expect(written.headers.get("etag")).toBe((await get(path)).headers.get("etag"));
    }
    const termTag = (await get(`/tags/${tag.id}`)).headers.get("etag")!;
    const deleted = await write("DELETE", `/tags/${tag.id}`, undefined, { "If-Match": termTag });
    expect(deleted.status).toBe(200);
    // Deleted for good: no current representation, no tag.
    expect(deleted.headers.get("etag")).toBeNull();
  });

  it("makes a read-modify-write race safe: of two writers with the same tag, one wins and the other gets 412", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Contended hall", phone: "100" });
    for (let round = 0; round < 5; round += 1) {
      const { headers, body } = await get(`/venues/${venue.id}`);
      const etag = headers.get("etag")!;
      const next = String(Number(body.phone) + 1);
      const answers = await Promise.all(
        [1, 2].map(() => write("PATCH", `/venues/${venue.id}`, { phone: next }, { "If-Match": etag })),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
    }
    expect((await get(`/venues/${venue.id}`)).body.phone).toBe("105");
  });
});

describe("item tags across releases (issue 58)", () => {
  it("name the item's state: an If-Match read from an instance that renders it otherwise is honoured, for an unchanged item", async () => {
    // Another instance on the same database that renders every item otherwise (its addresses are
    // another site's), as the previous release beside this one renders some: the same state, other bytes.
    const other = await startTestServer({
      DATABASE_URL: server.config.databaseUrl,
      PUBLIC_URL: "https://other.example",
    });
    try {
      const event = await createEventVia(server, {
        title: "Two renderings",
        start_date: utcWall(60),
        end_date: utcWall(61),
      });
      const venue = await createLinkedVia(server, "venues", { venue: "Two renderings hall" });
      const category = await createTermVia(server, "categories", { name: "Two renderings" });
      for (const path of [`/events/${event.id}`, `/venues/${venue.id}`, `/categories/${category.id}`]) {
        const here = await get(path);
        const there = await other.raw("GET", `${root}${path}`);
        expect(here.text).not.toBe(there.text);
        expect(there.headers.get("etag")).toBe(here.headers.get("etag"));
        const written = await other.raw("PATCH", `${root}${path}`, {
          body: path.startsWith("/categories") ? { description: "Changed" } : { featured: false },
          headers: { ...ADMIN_HEADERS, "If-Match": here.headers.get("etag")! },
        });
        expect([path, written.status]).toEqual([path, 200]);
        // Changed since: the tag read before no longer holds, on either instance.
        const stale = await write(
          "PATCH",
          path,
          path.startsWith("/categories") ? { description: "Again" } : { sticky: true },
          {
            "If-Match": here.headers.get("etag")!,
          },
        );
        expect([path, stale.status]).toEqual([path, 412]);
      }
    } finally {
      await other.close();
    }
  });

  it("still take the tag the release before gave (a digest of its representation), for an unchanged item", async () => {
    const event = await createEventVia(server, { title: "Tag of old", start_date: utcWall(62), end_date: utcWall(63) });
    const read = await get(`/events/${event.id}`);
    const { createHash } = await import("node:crypto");
    const digest = `"${createHash("sha256").update(read.text).digest("base64url").slice(0, 27)}"`;
    const written = await write("PATCH", `/events/${event.id}`, { featured: true }, { "If-Match": digest });
    expect(written.status).toBe(200);
  });
});
