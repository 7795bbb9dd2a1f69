// Concurrent writes of one item never lose one another (docs/compatibility.md "What this service promises"): sixteen PATCHes
// of different fields of one event, of a venue, of a category, sent at once, round after round,
// in one process and through two worker processes on one database; every field ends with the
// value written, and what is derived from them (the search index, the day counts behind list
// totals, term counts) follows. Races with deletions answer 4xx, never 500.
import { inTransaction } from "../src/db/transaction";
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "./support/test-database";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(180_000);

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 8);

interface Target {
  origin: string;
}

interface Answer {
  status: number;
  body: any;
}

async function call(target: Target, method: string, path: string, body?: unknown, language = ""): Promise<Answer> {
  const response = await fetch(`${target.origin}${language ? `/${language}` : ""}/calendar/events/v1${path}`, {
    method,
    headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const created = async (answer: Promise<Answer>) => {
  const { status, body } = await answer;
  if (status !== 201) throw new Error(`expected 201, got ${status}: ${JSON.stringify(body)}`);
  return body;
};

/** Sends all the writes at once; every one must succeed. */
async function race(target: Target, writes: Array<[string, unknown, string?]>, path: string): Promise<void> {
  const answers = await Promise.all(writes.map(([, body, language]) => call(target, "PATCH", path, body, language)));
  const failed = answers
    .map((answer, i) => [writes[i][0], answer.status, answer.body?.code])
    .filter(([, status]) => status !== 200);
  expect(failed).toEqual([]);
}

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

function raceSuite(name: string, start: () => Promise<{ target: Target; stop(): Promise<void> }>) {
  describe(name, () => {
    let target: Target;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      ({ target, stop } = await start());
    });
    afterAll(() => stop());

    it(`keeps every field of 16 concurrent PATCHes of one event, ${ROUNDS} rounds`, async () => {
      const category = await created(call(target, "POST", "/categories", { name: "Raced category" }));
      const tag = await created(call(target, "POST", "/tags", { name: "Raced tag" }));
      const venue = await created(call(target, "POST", "/venues", { venue: "Raced venue" }));
      const organizer = await created(call(target, "POST", "/organizers", { organizer: "Raced organizer" }));
      for (let round = 0; round < ROUNDS; round += 1) {
        const event = await created(
          call(target, "POST", "/events", {
            title: `Untouched ${round}`,
            start_date: `${day(3)} 10:00:00`,
            end_date: `${day(3)} 12:00:00`,
          }),
        );
        const start = day(10 + round);
        const word = `zebra${round}x`;
        await race(
          target,
          [
            ["title", { title: `Raced ${word} title` }],
            ["description", { description: `Description of round ${round}` }],
            ["excerpt", { excerpt: `Excerpt ${round}` }],
            ["slug", { slug: `raced-slug-${round}` }],
            ["dates", { start_date: `${start} 18:00:00`, end_date: `${start} 20:00:00` }],
            ["cost", { cost: `$${round + 10}` }],
            ["website", { website: `https://round${round}.example.org/` }],
            ["featured", { featured: true }],
            ["sticky", { sticky: true }],
            ["show_map", { show_map: false }],
            ["ticketed", { ticketed: true }],
            ["es title", { title: `Carrera r${round}e` }, "es"],
            ["pt-br title", { title: `Corrida ${round}` }, "pt-br"],
            ["categories", { categories: [category.id] }],
            ["venue", { venue: [venue.id] }],
            ["organizer", { organizer: [organizer.id] }],
          ],
          `/events/${event.id}`,
        );
        const { body } = await call(target, "GET", `/events/${event.id}`);
        expect(body).toMatchObject({
          title: `Raced ${word} title`,
          description: `<p>Description of round ${round}</p>`,
          excerpt: `<p>Excerpt ${round}</p>`,
          slug: `raced-slug-${round}`,
          start_date: `${start} 18:00:00`,
          end_date: `${start} 20:00:00`,
          cost: `$${round + 10}`,
          website: `https://round${round}.example.org/`,
          featured: true,
          sticky: true,
          show_map: false,
          show_map_link: true,
          ticketed: true,
          categories: [expect.objectContaining({ id: category.id })],
          venue: expect.objectContaining({ id: venue.id }),
          organizer: [expect.objectContaining({ id: organizer.id })],
        });
        expect((await call(target, "GET", `/events/${event.id}`, undefined, "es")).body).toMatchObject({
          title: `Carrera r${round}e`,
          slug: `carrera-r${round}e`,
        });
        expect((await call(target, "GET", `/events/${event.id}`, undefined, "pt-br")).body).toMatchObject({
          title: `Corrida ${round}`,
          slug: `corrida-${round}`,
        });
        // What is derived follows the final state: the search index (in each language)...
        expect(
          (await call(target, "GET", `/events?search=${word}&start_date=${day(-1)}`)).body.events.map(
            (e: { id: number }) => e.id,
          ),
        ).toEqual([event.id]);
        expect(
          (await call(target, "GET", `/events?search=carrera%20r${round}e&start_date=${day(-1)}`, undefined, "es")).body
            .total,
        ).toBe(1);
        expect(
          (await call(target, "GET", "/events?search=untouched&start_date=" + day(-1))).body.events.map(
            (e: { id: number }) => e.id,
          ),
        ).not.toContain(event.id);
        // ...and the day counts that total a date window (the event moved to its new day).
        const window = await call(
          target,
          "GET",
          `/events?start_date=${day(10 + round - 1)}&end_date=${day(10 + round + 2)}`,
        );
        expect(window.body.events.map((e: { id: number }) => e.id)).toContain(event.id);
        expect(window.body.total).toBe(window.body.events.length);
        const before = await call(target, "GET", `/events?start_date=${day(2)}&end_date=${day(5)}`);
        expect(before.body.total).toBe(before.body.events.length);
      }
      expect((await call(target, "GET", `/categories/${category.id}`)).body.count).toBe(ROUNDS);
      expect(tag.id).toBeGreaterThan(0);
    });

    it(`keeps every field of 16 concurrent PATCHes of one venue, ${ROUNDS} rounds`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const venue = await created(call(target, "POST", "/venues", { venue: `Plain venue ${round}` }));
        const fields: Array<[string, unknown]> = [
          ["venue", `Raced hall ${round}`],
          ["description", `About the hall ${round}`],
          ["address", `${round} Race Street`],
          ["city", `Racetown r${round}q`],
          ["country", `Raceland ${round}`],
          ["province", `Province ${round}`],
          ["state", `State ${round}`],
          ["zip", `1000${round}`],
          ["phone", `+1 555 000${round}`],
          ["website", `https://hall${round}.example.org/`],
          ["stateprovince", `SP ${round}`],
          ["geo_lat", 10 + round],
          ["geo_lng", 20 + round],
          ["show_map", false],
          ["show_map_link", false],
        ];
        await race(
          target,
          [
            ...fields.map(([field, value]): [string, unknown] => [field, { [field]: value }]),
            ["es name", { venue: `Sala ${round}` }, "es"],
          ],
          `/venues/${venue.id}`,
        );
        const { body } = await call(target, "GET", `/venues/${venue.id}`);
        const expected = Object.fromEntries(
          fields.map(([field, value]) => [field, field === "description" ? `<p>${value}</p>` : value]),
        );
        expect(body).toMatchObject(expected);
        expect((await call(target, "GET", `/venues/${venue.id}`, undefined, "es")).body).toMatchObject({
          venue: `Sala ${round}`,
          slug: `sala-${round}`,
          city: `Racetown r${round}q`,
        });
        // Search finds the final name and address, and not the first name.
        expect(
          (await call(target, "GET", `/venues?search=racetown%20r${round}q`)).body.venues.map(
            (v: { id: number }) => v.id,
          ),
        ).toEqual([venue.id]);
        expect((await call(target, "GET", `/venues?search=plain%20venue%20${round}`)).body.total).toBe(0);
      }
    });

    it(`keeps every field of concurrent PATCHes of one category in three languages, ${ROUNDS} rounds`, async () => {
      const parent = await created(call(target, "POST", "/categories", { name: "Raced parent" }));
      for (let round = 0; round < ROUNDS; round += 1) {
        const category = await created(call(target, "POST", "/categories", { name: `Plain category ${round}` }));
        await race(
          target,
          [
            ["name", { name: `Raced category name ${round}` }],
            ["description", { description: `Category description ${round}` }],
            ["slug", { slug: `raced-category-${round}` }],
            ["parent", { parent: parent.id }],
            ["es name", { name: `Categoría ${round}` }, "es"],
            ["es description", { description: `Descripción ${round}` }, "es"],
            ["es slug", { slug: `categoria-${round}` }, "es"],
            ["pt-br name", { name: `Categoria pt ${round}` }, "pt-br"],
            ["pt-br description", { description: `Descrição ${round}` }, "pt-br"],
            ["pt-br slug", { slug: `categoria-pt-${round}` }, "pt-br"],
          ],
          `/categories/${category.id}`,
        );
        expect((await call(target, "GET", `/categories/${category.id}`)).body).toMatchObject({
          name: `Raced category name ${round}`,
          description: `Category description ${round}`,
          slug: `raced-category-${round}`,
          parent: parent.id,
        });
        expect((await call(target, "GET", `/categories/${category.id}`, undefined, "es")).body).toMatchObject({
          name: `Categoría ${round}`,
          description: `Descripción ${round}`,
          slug: `categoria-${round}`,
        });
        expect((await call(target, "GET", `/categories/${category.id}`, undefined, "pt-br")).body).toMatchObject({
          name: `Categoria pt ${round}`,
          description: `Descrição ${round}`,
          slug: `categoria-pt-${round}`,
        });
      }
    });

    it("answers a PATCH that races a permanent deletion with 200 or 404, never 500", async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const event = await created(
          call(target, "POST", "/events", {
            title: `Doomed ${round}`,
            start_date: `${day(4)} 10:00:00`,
            end_date: `${day(4)} 11:00:00`,
          }),
        );
        // Deleted for good from the trash (force is ignored on a live event).
        expect((await call(target, "DELETE", `/events/${event.id}`)).status).toBe(200);
        const [patch, remove] = await Promise.all([
          call(target, "PATCH", `/events/${event.id}`, { title: `Renamed ${round}`, featured: true }),
          call(target, "DELETE", `/events/${event.id}?force=true`),
        ]);
        expect(remove.status).toBe(200);
        expect([200, 404]).toContain(patch.status);
        if (patch.status === 404) expect(patch.body.code).toBe("rest-event-not-found");
        expect((await call(target, "GET", `/events/${event.id}`)).status).toBe(404);
      }
    });

    it("answers creating an event linked to a venue being deleted with 201 or 400, never 500, and leaves no link to it", async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const venue = await created(call(target, "POST", "/venues", { venue: `Vanishing ${round}` }));
        const [create, trash] = await Promise.all([
          call(target, "POST", "/events", {
            title: `Linked ${round}`,
            start_date: `${day(5)} 10:00:00`,
            end_date: `${day(5)} 11:00:00`,
            venue: [venue.id],
          }),
          call(target, "DELETE", `/venues/${venue.id}${round % 2 === 0 ? "?force=true" : ""}`),
        ]);
        expect(trash.status).toBe(200);
        expect([201, 400]).toContain(create.status);
        if (create.status === 400) expect(Object.keys(create.body.data.params)).toEqual(["venue"]);
        else expect((await call(target, "GET", `/events/${create.body.id}`)).body.venue).toEqual([]);
      }
    });

    it("relinks shared categories from many writers at once without a failure, counts right", async () => {
      const terms = await Promise.all(
        ["A", "B", "C"].map((name) => created(call(target, "POST", "/categories", { name: `Shared ${name}` }))),
      );
      const events = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          created(
            call(target, "POST", "/events", {
              title: `Relinked ${i}`,
              start_date: `${day(6)} 10:00:00`,
              end_date: `${day(6)} 11:00:00`,
            }),
          ),
        ),
      );
      const sets = [
        [0, 1],
        [1, 2],
        [2, 0],
        [0, 1, 2],
        [2, 1],
      ];
      for (let round = 0; round < ROUNDS; round += 1) {
        const answers = await Promise.all(
          events.map((event, i) =>
            call(target, "PATCH", `/events/${event.id}`, {
              categories: sets[(i + round) % sets.length].map((index) => terms[index].id),
            }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(events.map(() => 200));
      }
      for (const term of terms) {
        const listed = await call(target, "GET", `/events?categories=${term.id}&start_date=${day(-1)}&per_page=50`);
        expect((await call(target, "GET", `/categories/${term.id}`)).body.count).toBe(listed.body.total);
      }
    });
  });
}

raceSuite("in one process", async () => {
  const server: TestServer = await startTestServer();
  return { target: server, stop: () => server.close() };
});

raceSuite("through two worker processes", async () => {
  const database: TestDatabase = await createTestDatabase();
  const service: ServiceProcess = await startServiceProcess(
    { DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: ADMIN_HEADERS.Authorization.replace("Bearer ", "") },
    { workers: 2 },
  );
  return {
    target: service,
    async stop() {
      await service.stop();
      await database.drop();
    },
  };
});

// The rows that count a day's events and a category's are shared by every write of that day or
// category; PostgreSQL writers take them only as they commit (the close_write_transaction
// migration), so a write does not wait for another's whole transaction, and the counts stay exact.
(testDatabaseProvider() === "postgresql" ? describe : describe.skip)("counts shared by concurrent writers", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("creates an event of a day and category while another transaction has written both, and counts both", async () => {
    const category = await created(call(server, "POST", "/categories", { name: "Shared while open" }));
    const event = (date: string, title: string) => ({
      title,
      start_date: `${date} 10:00:00`,
      end_date: `${date} 11:00:00`,
      categories: [category.id],
    });
    const held = await created(call(server, "POST", "/events", event(day(9), "Held open")));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const heldOpen = new Promise<void>((resolve) => (holding = resolve));
    const other = inTransaction(server.db, async (tx) => {
      // Moves the event to the day the create below writes, and counts it in the category again.
      await tx.$executeRaw`UPDATE "Event" SET "startsAt" = "startsAt" + INTERVAL '1 day', "endsAt" = "endsAt" + INTERVAL '1 day',
        "startLocal" = ${day(10)} || substr("startLocal", 11), "endLocal" = ${day(10)} || substr("endLocal", 11) WHERE "id" = ${held.id}`;
      await tx.$executeRaw`DELETE FROM "EventTerm" WHERE "eventId" = ${held.id}`;
      await tx.$executeRaw`INSERT INTO "EventTerm" ("eventId", "termId", "position") VALUES (${held.id}, ${category.id}, 0)`;
      holding();
      await released;
    });
    await heldOpen;
    const answer = await Promise.race([
      call(server, "POST", "/events", event(day(10), "Written meanwhile")),
      new Promise<string>((resolve) => setTimeout(() => resolve("still waiting after 5 s"), 5_000)),
    ]);
    release();
    await other;
    expect(typeof answer === "string" ? answer : answer.status).toBe(201);
    expect((await call(server, "GET", `/categories/${category.id}`)).body.count).toBe(2);
    // Days inside a window are totalled from the day counts (its first and last from the events).
    const listed = await call(server, "GET", `/events?start_date=${day(8)}&end_date=${day(11)} 23:59:59`);
    expect(listed.body.total).toBe(2);
    expect(listed.body.events.map((e: { start_date: string }) => e.start_date.slice(0, 10))).toEqual([
      day(10),
      day(10),
    ]);
  });

  it("counts what a write outside the service's transactions left, at the next write", async () => {
    const category = await created(call(server, "POST", "/categories", { name: "Written by hand" }));
    const event = await created(
      call(server, "POST", "/events", {
        title: "Linked by hand",
        start_date: `${day(12)} 10:00:00`,
        end_date: `${day(12)} 11:00:00`,
      }),
    );
    await server.db.write
      .$executeRaw`INSERT INTO "EventTerm" ("eventId", "termId", "position") VALUES (${event.id}, ${category.id}, 0)`;
    await created(call(server, "POST", "/tags", { name: "Any write" }));
    expect((await call(server, "GET", `/categories/${category.id}`)).body.count).toBe(1);
  });
});
