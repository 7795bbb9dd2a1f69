// One resolver per resource: an id or a slug names the same item for reads and for writes (and
// for the permission check before a write), with one language rule for slugs; every resource
// with slugs has them per language; a translation written without a slug gets one from its name.
// And writes touch only what they change: the day counts are rewritten only when an event's
// dates, status or listing change.
import { createUser as createUserWithCredentials } from "../src/resources/users/user-admin";
import { createEventVia, fixedClock, utcWall } from "./support/events";
import { createLinkedVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";
import { testDatabaseProvider } from "./support/test-database";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
});
afterAll(() => server.close());

const api = (language: string) => `/${language}/calendar/events/v1`;

describe("by-slug routes", () => {
  it("find the same item for a write as for a read, in every language: another author's slug in another language does not take over", async () => {
    const x = await createUserWithCredentials(server.db, { login: "author-x", role: "author" });
    const y = await createUserWithCredentials(server.db, { login: "author-y", role: "author" });
    const as = (user: { api_key: string }) => ({ Authorization: `Bearer ${user.api_key}` });
    // X's event has the slug "fiesta" in Spanish; Y's has it in English.
    const first = await server.raw("POST", `${api("es")}/events`, {
      body: { title: "Fiesta", start_date: utcWall(24), end_date: utcWall(25) },
      headers: as(x),
    });
    const second = await server.raw("POST", `${api("en")}/events`, {
      body: { title: "Fiesta", start_date: utcWall(26), end_date: utcWall(27) },
      headers: as(y),
    });
    expect([first.body.slug, second.body.slug]).toEqual(["fiesta", "fiesta"]);
    for (const language of ["pt-br", "en"]) {
      expect((await server.raw("GET", `${api(language)}/events/by-slug/fiesta`)).body.id).toBe(second.body.id);
      const patched = await server.raw("PATCH", `${api(language)}/events/by-slug/fiesta`, {
        body: { excerpt: `By Y in ${language}` },
        headers: as(y),
      });
      expect([language, patched.status, patched.body.id]).toEqual([language, 200, second.body.id]);
      // X may not write Y's event, whichever language names it.
      expect(
        (
          await server.raw("PATCH", `${api(language)}/events/by-slug/fiesta`, {
            body: { excerpt: "By X" },
            headers: as(x),
          })
        ).status,
      ).toBe(403);
    }
    expect((await server.raw("GET", `${api("es")}/events/by-slug/fiesta`)).body.id).toBe(first.body.id);
    const patchedByX = await server.raw("PATCH", `${api("es")}/events/by-slug/fiesta`, {
      body: { excerpt: "By X in es" },
      headers: as(x),
    });
    expect([patchedByX.status, patchedByX.body.id]).toEqual([200, first.body.id]);
    expect((await server.raw("DELETE", `${api("pt-br")}/events/by-slug/fiesta`, { headers: as(y) })).body.id).toBe(
      second.body.id,
    );
  });

  it.each(["venues", "organizers"] as const)("find %s by their slug in each language", async (collection) => {
    const field = collection === "venues" ? "venue" : "organizer";
    const created = await createLinkedVia(server, collection, { [field]: `Concert Hall ${collection}` });
    const spanish = await server.raw("PATCH", `${api("es")}/${collection}/${created.id}`, {
      body: { [field]: `Sala de conciertos ${collection}` },
      headers: ADMIN_HEADERS,
    });
    expect(spanish.body.slug).toBe(`sala-de-conciertos-${collection}`);
    expect(spanish.body.translations.es.slug).toBe(`sala-de-conciertos-${collection}`);
    expect(
      (await server.raw("GET", `${api("es")}/${collection}/by-slug/sala-de-conciertos-${collection}`)).body.id,
    ).toBe(created.id);
    expect((await server.raw("GET", `${api("en")}/${collection}/by-slug/concert-hall-${collection}`)).body.slug).toBe(
      `concert-hall-${collection}`,
    );
    // A language without a slug of its own shows, and finds, the default language's.
    expect(
      (await server.raw("GET", `${api("pt-br")}/${collection}/by-slug/concert-hall-${collection}`)).body.slug,
    ).toBe(`concert-hall-${collection}`);
    // A slug given explicitly, in a language, and a write through it.
    const renamed = await server.raw("PATCH", `${api("pt-br")}/${collection}/by-slug/concert-hall-${collection}`, {
      body: { slug: `sala-${collection}` },
      headers: ADMIN_HEADERS,
    });
    expect([renamed.status, renamed.body.slug]).toEqual([200, `sala-${collection}`]);
    expect((await server.raw("GET", `${api("pt-br")}/${collection}/by-slug/sala-${collection}`)).body.id).toBe(
      created.id,
    );
    expect(
      (await server.raw("GET", `${api("en")}/${collection}/by-slug/sala-de-conciertos-${collection}`)).body.id,
    ).toBe(created.id);
  });

  it("give a translation written without a slug one made from its own title, and keep it when the title changes again", async () => {
    const event = await server.raw("POST", `${api("pt-br")}/events`, {
      body: { title: "Concerto de Natal", start_date: utcWall(30), end_date: utcWall(31) },
      headers: ADMIN_HEADERS,
    });
    expect(event.body.slug).toBe("concerto-de-natal");
    const spanish = await server.raw("PATCH", `${api("es")}/events/${event.body.id}`, {
      body: { title: "Concierto de Navidad" },
      headers: ADMIN_HEADERS,
    });
    expect(spanish.body.slug).toBe("concierto-de-navidad");
    expect((await server.raw("GET", `${api("es")}/events/by-slug/concierto-de-navidad`)).body.id).toBe(event.body.id);
    await server.raw("PATCH", `${api("es")}/events/${event.body.id}`, {
      body: { title: "Gran concierto de Navidad" },
      headers: ADMIN_HEADERS,
    });
    expect((await server.raw("GET", `${api("es")}/events/${event.body.id}`)).body.slug).toBe("concierto-de-navidad");
    // Taken in that language: the next free one.
    const other = await server.raw("POST", `${api("pt-br")}/events`, {
      body: { title: "Outro", start_date: utcWall(32), end_date: utcWall(33) },
      headers: ADMIN_HEADERS,
    });
    const clash = await server.raw("PATCH", `${api("es")}/events/${other.body.id}`, {
      body: { title: "Concierto de Navidad" },
      headers: ADMIN_HEADERS,
    });
    expect(clash.body.slug).toBe("concierto-de-navidad-2");
  });
});

describe("what a write touches", () => {
  // A trigger of the test's own logs every rewrite of a day-count row.
  beforeAll(async () => {
    const sql =
      testDatabaseProvider() === "postgresql"
        ? [
            `CREATE TABLE "DayCountWrites" ("n" SERIAL PRIMARY KEY)`,
            `CREATE FUNCTION "log_day_count_write"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "DayCountWrites" DEFAULT VALUES; RETURN NULL; END $$`,
            `CREATE TRIGGER "DayCountWritesLog" AFTER INSERT OR UPDATE ON "EventDayCount" FOR EACH ROW EXECUTE FUNCTION "log_day_count_write"()`,
          ]
        : [
            `CREATE TABLE "DayCountWrites" ("n" INTEGER PRIMARY KEY AUTOINCREMENT)`,
            `CREATE TRIGGER "DayCountWritesLog" AFTER UPDATE ON "EventDayCount" BEGIN INSERT INTO "DayCountWrites" ("n") VALUES (NULL); END`,
            `CREATE TRIGGER "DayCountWritesLogInsert" AFTER INSERT ON "EventDayCount" BEGIN INSERT INTO "DayCountWrites" ("n") VALUES (NULL); END`,
          ];
    for (const statement of sql) await server.db.write.$executeRawUnsafe(statement);
  });

  const dayCountWrites = async () =>
    Number(
      (
        await server.db.write.$queryRawUnsafe<Array<{ n: number | bigint }>>(
          `SELECT COUNT(*) AS "n" FROM "DayCountWrites"`,
        )
      )[0].n,
    );

  it("rewrites no day count for a change of text, flags, links or the time zone's wall clock kept", async () => {
    const event = await createEventVia(server, { title: "Quiet", start_date: utcWall(40), end_date: utcWall(41) });
    const before = await dayCountWrites();
    for (const body of [
      { title: "Quiet, renamed" },
      { description: "Words" },
      { featured: true, sticky: true },
      { cost: "$5" },
      { start_date: utcWall(40) },
    ]) {
      const response = await server.raw("PATCH", `/calendar/events/v1/events/${event.id}`, {
        body,
        headers: ADMIN_HEADERS,
      });
      expect(response.status).toBe(200);
    }
    await server.raw("PATCH", `/es/calendar/events/v1/events/${event.id}`, {
      body: { title: "Tranquilo" },
      headers: ADMIN_HEADERS,
    });
    expect(await dayCountWrites()).toBe(before);
  });

  it("rewrites them when the dates, the status or the listing change", async () => {
    const event = await createEventVia(server, { title: "Moving", start_date: utcWall(50), end_date: utcWall(51) });
    for (const body of [
      { start_date: utcWall(80), end_date: utcWall(81) },
      { status: "draft" },
      { hide_from_listings: true },
    ]) {
      const before = await dayCountWrites();
      await server.raw("PATCH", `/calendar/events/v1/events/${event.id}`, { body, headers: ADMIN_HEADERS });
      expect(await dayCountWrites()).toBeGreaterThan(before);
    }
  });

  it("writes only the text rows that change", async () => {
    const event = await createEventVia(server, { title: "Rows", start_date: utcWall(60), end_date: utcWall(61) });
    const rows = async () =>
      server.db.read.eventText.findMany({ where: { eventId: event.id }, orderBy: { language: "asc" } });
    const before = await rows();
    await server.raw("PATCH", `/calendar/events/v1/events/${event.id}`, {
      body: { featured: true },
      headers: ADMIN_HEADERS,
    });
    expect(await rows()).toEqual(before);
    // A Spanish title changes the Spanish row only: the others fall back to English as before.
    await server.raw("PATCH", `/es/calendar/events/v1/events/${event.id}`, {
      body: { title: "Filas" },
      headers: ADMIN_HEADERS,
    });
    const after = await rows();
    expect(after.filter((row) => row.language !== "es")).toEqual(before.filter((row) => row.language !== "es"));
    expect(after.find((row) => row.language === "es")).toMatchObject({ title: "Filas", slug: "filas" });
  });
});
