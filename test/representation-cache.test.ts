// Representations kept for anonymous readers (src/sync/representation-cache.ts): a read
// that follows a committed change never gets what was kept from before it, whatever changed (the
// event, its texts in a language, its links, an embedded venue, organizer or category, a count),
// wherever the change was made (this process, another process, a statement outside the service);
// and what is kept is byte for byte what would have been made, tag included.
import { Prisma } from "../generated/prisma/sqlite/client";
import { inTransaction } from "../src/db/transaction";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { deleteSearchDocument } from "./support/search-documents";
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

jest.setTimeout(90_000);

const root = "/calendar/events/v1";
const when = { start_date: "+3 days 10:00", end_date: "+3 days 12:00" };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const read = (path: string, headers: Record<string, string> = {}) => server.raw("GET", `${root}${path}`, { headers });
async function write(
  method: "POST" | "PATCH" | "DELETE",
  path: string,
  body?: Record<string, unknown>,
): Promise<RawResponse> {
  const response = await server.raw(method, `${root}${path}`, { body, headers: ADMIN_HEADERS });
  expect([response.status, response.status < 300 ? "" : response.text]).toEqual([method === "POST" ? 201 : 200, ""]);
  return response;
}

/** Reads `path` twice (the second from what the first kept) and checks both are the same bytes and tag. */
async function readTwice(path: string): Promise<RawResponse> {
  const first = await read(path);
  const second = await read(path);
  expect(second.status).toBe(first.status);
  expect(second.text).toBe(first.text);
  expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
  return second;
}

const listed = (response: RawResponse, id: number) =>
  response.body.events.find((event: { id: number }) => event.id === id);

describe("representations kept for anonymous readers", () => {
  it("are the same bytes and tag as the first answer, and revalidate with 304", async () => {
    const event = (await write("POST", "/events", { ...when, title: "Kept as made", description: "Some *words*." }))
      .body;
    const kept = await readTwice(`/events/${event.id}`);
    const conditional = await read(`/events/${event.id}`, { "If-None-Match": kept.headers.get("etag")! });
    expect(conditional.status).toBe(304);
    await readTwice(`/events/by-slug/${event.slug}`);
    await readTwice(`/events?per_page=50`);
  });

  it("follow every change of the event: its fields, its text per language, its status and password", async () => {
    const event = (await write("POST", "/events", { ...when, title: "Before the change" })).body;
    const path = `/events/${event.id}`;
    await readTwice(path);
    await readTwice(`/events/by-slug/${event.slug}`);
    await readTwice("/events?per_page=50");

    await write("PATCH", path, { title: "After the change", cost: "$12", featured: true });
    for (const response of [await readTwice(path), await readTwice(`/events/by-slug/${event.slug}`)]) {
      expect(response.body).toMatchObject({ title: "After the change", cost: "$12", featured: true });
    }
    expect(listed(await readTwice("/events?per_page=50"), event.id)).toMatchObject({
      title: "After the change",
      featured: true,
    });

    // The Spanish representation is kept apart from the English one, and follows its own text.
    expect((await server.raw("GET", `/es${root}${path}`)).body.title).toBe("After the change");
    await server.raw("PATCH", `/es${root}${path}`, { body: { title: "Después del cambio" }, headers: ADMIN_HEADERS });
    expect((await server.raw("GET", `/es${root}${path}`)).body.title).toBe("Después del cambio");
    expect((await readTwice(path)).body.title).toBe("After the change");

    await write("PATCH", path, { password: "open sesame" });
    expect((await read(path)).body.code).toBe("event-password-protected");
    expect(listed(await read("/events?per_page=50"), event.id)).toMatchObject({ description: "", cost: "", venue: [] });
    await write("PATCH", path, { password: "", status: "draft" });
    expect((await read(path)).body.code).toBe("event-not-accessible");
    expect(listed(await read("/events?per_page=50"), event.id)).toBeUndefined();
    await write("PATCH", path, { status: "publish" });
    await readTwice(path);
    await write("DELETE", path);
    expect((await read(path)).body.code).toBe("event-no-longer-available");
    expect(listed(await read("/events?per_page=50"), event.id)).toBeUndefined();
  });

  it("follow which event a slug names: one given the slug in the request language takes it over", async () => {
    const english = (
      await write("POST", "/events", { ...when, title: "Slug taken in English", slug: "a-slug-to-share" })
    ).body;
    const bySlugInSpanish = () => server.raw("GET", `/es${root}/events/by-slug/a-slug-to-share`);
    expect((await bySlugInSpanish()).body.id).toBe(english.id);
    expect((await bySlugInSpanish()).body.id).toBe(english.id);
    const spanish = (await write("POST", "/events", { ...when, title: "Otro evento" })).body;
    await server.raw("PATCH", `/es${root}/events/${spanish.id}`, {
      body: { slug: "a-slug-to-share" },
      headers: ADMIN_HEADERS,
    });
    expect((await bySlugInSpanish()).body.id).toBe(spanish.id);
    expect((await bySlugInSpanish()).body.id).toBe(spanish.id);
    // Its own slug in the request language names an event until the event gives it up.
    await server.raw("PATCH", `/es${root}/events/${spanish.id}`, {
      body: { slug: "another-slug" },
      headers: ADMIN_HEADERS,
    });
    expect((await bySlugInSpanish()).body.id).toBe(english.id);
    expect((await readTwice("/events/by-slug/a-slug-to-share")).body.id).toBe(english.id);
  });

  it("follow changes of what the event embeds: venue, organizer, category and its count", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Old hall" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Old crew" });
    const category = await createTermVia(server, "categories", { name: "Old name" });
    const event = (
      await write("POST", "/events", {
        ...when,
        title: "Embeds things",
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
      })
    ).body;
    const path = `/events/${event.id}`;
    const before = await readTwice(path);
    expect(before.body).toMatchObject({
      venue: { venue: "Old hall" },
      organizer: [{ organizer: "Old crew" }],
      categories: [{ name: "Old name", count: 1 }],
    });
    await readTwice("/events?per_page=50");

    await write("PATCH", `/venues/${venue.id}`, { venue: "New hall" });
    await write("PATCH", `/organizers/${organizer.id}`, { organizer: "New crew" });
    await write("PATCH", `/categories/${category.id}`, { name: "New name" });
    expect((await readTwice(path)).body).toMatchObject({
      venue: { venue: "New hall" },
      organizer: [{ organizer: "New crew" }],
      categories: [{ name: "New name", count: 1 }],
    });
    expect(listed(await readTwice("/events?per_page=50"), event.id)).toMatchObject({
      venue: { venue: "New hall" },
      categories: [{ name: "New name" }],
    });

    // Another event in the category changes the count every event embedding it shows.
    await write("POST", "/events", { ...when, title: "Joins the category", categories: [category.id] });
    expect((await readTwice(path)).body.categories[0].count).toBe(2);

    // A venue that stops being public leaves the anonymous representation.
    await write("PATCH", `/venues/${venue.id}`, { status: "draft" });
    expect((await readTwice(path)).body.venue).toEqual([]);
  });

  it("of venue, organizer and term lists follow the items' changes, their counts and their status", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Listed hall" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Listed crew" });
    const category = await createTermVia(server, "categories", { name: "Listed kind" });
    const entry = (response: RawResponse, key: string, id: number) =>
      response.body[key].find((item: { id: number }) => item.id === id);
    const lists = {
      venues: ["/venues?per_page=50", venue.id],
      organizers: ["/organizers?per_page=50", organizer.id],
      categories: ["/categories?per_page=50&hide_empty=false", category.id],
    } as const;
    for (const [key, [path, id]] of Object.entries(lists)) expect(entry(await readTwice(path), key, id)).toBeDefined();
    // The Spanish lists are kept apart from the English ones.
    for (const [key, [path, id]] of Object.entries(lists))
      expect(entry(await server.raw("GET", `/es${root}${path}`), key, id)).toBeDefined();

    await write("PATCH", `/venues/${venue.id}`, { venue: "Renamed hall", city: "Lisbon" });
    await write("PATCH", `/organizers/${organizer.id}`, { organizer: "Renamed crew" });
    await write("POST", "/events", { ...when, title: "Counts in the kind", categories: [category.id] });
    expect(entry(await readTwice(lists.venues[0]), "venues", venue.id)).toMatchObject({
      venue: "Renamed hall",
      city: "Lisbon",
    });
    expect(entry(await readTwice(lists.organizers[0]), "organizers", organizer.id)).toMatchObject({
      organizer: "Renamed crew",
    });
    expect(entry(await readTwice(lists.categories[0]), "categories", category.id)).toMatchObject({ count: 1 });
    await server.raw("PATCH", `/es${root}/categories/${category.id}`, {
      body: { name: "Tipo listado" },
      headers: ADMIN_HEADERS,
    });
    expect(entry(await server.raw("GET", `/es${root}${lists.categories[0]}`), "categories", category.id).name).toBe(
      "Tipo listado",
    );
    expect(entry(await readTwice(lists.categories[0]), "categories", category.id).name).toBe("Listed kind");

    // Out of the list when it is no longer public; in it again when it is.
    await write("PATCH", `/venues/${venue.id}`, { status: "draft" });
    expect(entry(await read(lists.venues[0]), "venues", venue.id)).toBeUndefined();
    expect(entry(await read(lists.venues[0], ADMIN_HEADERS), "venues", venue.id)).toMatchObject({ status: "draft" });
    expect(entry(await read(lists.venues[0]), "venues", venue.id)).toBeUndefined();
    await write("PATCH", `/venues/${venue.id}`, { status: "publish" });
    expect(entry(await readTwice(lists.venues[0]), "venues", venue.id)).toMatchObject({ venue: "Renamed hall" });
    await write("DELETE", `/categories/${category.id}?force=true`);
    expect(entry(await read(lists.categories[0]), "categories", category.id)).toBeUndefined();
  });

  it("follow changes made outside the service, through the database's change log", async () => {
    const event = (await write("POST", "/events", { ...when, title: "Changed behind its back" })).body;
    const path = `/events/${event.id}`;
    await readTwice(path);
    await inTransaction(
      server.db,
      (tx) =>
        tx.$executeRaw`UPDATE "EventText" SET "title" = 'Changed in the database' WHERE "eventId" = ${event.id} AND "language" = 'en'`,
    );
    expect((await read(path)).body.title).toBe("Changed in the database");
  });

  it("follow a burst of changes larger than one catch-up reads", async () => {
    const events = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        write("POST", "/events", { ...when, title: `Burst ${i}` }).then((r) => r.body),
      ),
    );
    for (const event of events) await readTwice(`/events/${event.id}`);
    // More changes than one catch-up reads (1,000), in one transaction: the cache starts over.
    await inTransaction(server.db, async (tx) => {
      await tx.$executeRaw`INSERT INTO "Term" ("taxonomy", "sourceLanguage")
        WITH RECURSIVE "n"("i") AS (SELECT 1 UNION ALL SELECT "i" + 1 FROM "n" WHERE "i" < 1001) SELECT 'tag', 'en' FROM "n"`;
      await tx.$executeRaw`UPDATE "EventText" SET "title" = 'After the burst'
        WHERE "eventId" IN (${Prisma.join(events.map((event) => event.id))}) AND "language" = 'en'`;
    });
    for (const event of events) expect((await read(`/events/${event.id}`)).body.title).toBe("After the burst");
  });

  it("keep an anonymous reader's page whole until anything changes, anywhere", async () => {
    // Far enough ahead that the list's total is read from the day counts; a change of those
    // counts made behind the change log's back shows whether the page was made again.
    const far = { start_date: "+6 days 10:00", end_date: "+6 days 11:00" };
    await write("POST", "/events", { ...far, title: "Kept page one" });
    const page = await readTwice("/events?per_page=5");
    const total = page.body.total;
    expect(page.headers.get("x-wp-total")).toBe(String(total));
    await inTransaction(server.db, (tx) => tx.$executeRaw`UPDATE "EventDayCount" SET "count" = "count" + 100`);
    const kept = await read("/events?per_page=5");
    expect([kept.body.total, kept.headers.get("x-wp-total"), kept.headers.get("etag")]).toEqual([
      total,
      String(total),
      page.headers.get("etag"),
    ]);
    expect(kept.headers.get("x-next-sync-token")).toBe(page.headers.get("x-next-sync-token"));
    // A signed-in caller's page is made afresh; then any change (here a venue, not on the page) drops the kept one.
    expect((await read("/events?per_page=5", ADMIN_HEADERS)).body.total).toBeGreaterThanOrEqual(total + 100);
    await write("POST", "/venues", { venue: "Somewhere else" });
    expect((await read("/events?per_page=5")).body.total).toBeGreaterThanOrEqual(total + 100);
    await inTransaction(server.db, (tx) => tx.$executeRaw`UPDATE "EventDayCount" SET "count" = "count" - 100`);
    await write("POST", "/events", { ...far, title: "Kept page two" });
    expect((await read("/events?per_page=5")).body.total).toBe(total + 1);
  });

  it("do not keep a search's page", async () => {
    const event = (await write("POST", "/events", { ...when, title: "Zebracorn gala" })).body;
    expect(listed(await read("/events?search=zebracorn"), event.id)).toBeDefined();
    // The search index is not in the change log: a page kept would still show the event.
    await deleteSearchDocument(server.db, event.id);
    expect(listed(await read("/events?search=zebracorn"), event.id)).toBeUndefined();
  });

  it("key a page by what its relative dates meant when it was made", async () => {
    // It ends four seconds from now: "ends after now" lists it now, and no longer five seconds on.
    const soon = new Date(Date.now() + 3_000);
    const event = (
      await write("POST", "/events", {
        title: "Starts in a moment",
        start_date: soon.toISOString().slice(0, 19).replace("T", " "),
        end_date: new Date(soon.getTime() + 1_000).toISOString().slice(0, 19).replace("T", " "),
        timezone: "UTC",
      })
    ).body;
    const path = "/events?start_date=now&strict_dates=true&per_page=50";
    expect(listed(await read(path), event.id)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(listed(await read(path), event.id)).toBeUndefined();
  });

  it("are not used for callers who sign in: they may see more", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Private hall", status: "draft" });
    const event = (await write("POST", "/events", { ...when, title: "With a draft venue", venue: venue.id })).body;
    expect((await readTwice(`/events/${event.id}`)).body.venue).toEqual([]);
    expect((await read(`/events/${event.id}`, ADMIN_HEADERS)).body.venue).toMatchObject({
      id: venue.id,
      venue: "Private hall",
    });
  });
});

describe("representations made for signed-in callers", () => {
  it("are never kept for anonymous readers, whoever reads first", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Backstage", status: "draft" });
    const event = (
      await write("POST", "/events", { ...when, title: "Read by an administrator first", venue: venue.id })
    ).body;
    expect((await read(`/events/${event.id}`, ADMIN_HEADERS)).body.venue).toMatchObject({ id: venue.id });
    expect(listed(await read("/events?per_page=50", ADMIN_HEADERS), event.id).venue).toMatchObject({ id: venue.id });
    expect((await read(`/events/${event.id}`)).body.venue).toEqual([]);
    expect(listed(await read("/events?per_page=50"), event.id).venue).toEqual([]);
  });
});

describe("two instances on one database", () => {
  const TOKEN = "representation-cache-token-0123456789";
  const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  let database: TestServer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  beforeAll(async () => {
    // A test server only for its fresh database; both instances are processes of their own.
    database = await startTestServer();
    const env = { DATABASE_URL: database.config.databaseUrl, CALENDAR_ADMIN_TOKEN: TOKEN, MIGRATE_ON_START: "false" };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.close();
  });

  it("an anonymous read through one follows a write through the other at once", async () => {
    const created = await fetch(`${b.base}/events`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ ...when, title: "Seen from A" }),
    });
    const event = (await created.json()) as { id: number };
    for (let round = 0; round < 5; round += 1) {
      expect(((await (await fetch(`${a.base}/events/${event.id}`)).json()) as { title: string }).title).toBe(
        round === 0 ? "Seen from A" : `Round ${round - 1}`,
      );
      const list = (await (await fetch(`${a.base}/events?per_page=50`)).json()) as {
        events: Array<{ id: number; title: string }>;
      };
      expect(list.events.find((item) => item.id === event.id)?.title).toBe(
        round === 0 ? "Seen from A" : `Round ${round - 1}`,
      );
      const patched = await fetch(`${b.base}/events/${event.id}`, {
        method: "PATCH",
        headers: auth,
        body: JSON.stringify({ title: `Round ${round}` }),
      });
      expect(patched.status).toBe(200);
    }
  });
});
