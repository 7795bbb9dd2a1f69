// What a door stores, every door reads (issue 57). For every write of the namespace (creates and
// updates of events, venues, organizers, categories, tags, webhooks and import sources) and every
// field of its body, the values the spec accepts (test/support/spec-values.ts: edges, then values
// drawn from the schema, each checked against it) are written one at a time. The service either
// refuses one with a 4xx in the error envelope, or stores it so that the item, every list that
// shows it (the events that link it too) and the iCalendar feeds answer 200; the test server
// validates every answer against the spec, so a body that does not match it is a 500 here. And
// rows an earlier release stored with values no reader parses (an upgrade, a restore) read back.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { Prisma } from "../generated/prisma/sqlite/client";
import { isWebUrl, WEB_URL_PATTERN } from "../src/text/web-url";
import { SpecValues } from "./support/spec-values";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

const document = JSON.parse(readFileSync(resolve(__dirname, "../generated/openapi.json"), "utf8"));
const spec = new SpecValues(document);
const root = "/calendar/events/v1";
const WIDE = "start_date=1900-01-01&end_date=2999-12-31";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: "0" });
});
afterAll(() => server?.close());

type Json = Record<string, any>;

const send = (method: string, path: string, body?: unknown, anonymous = false) =>
  server.raw(method, `${root}${path}`, { body, headers: anonymous ? {} : ADMIN_HEADERS });

const shown = (response: RawResponse) => `${response.status} ${response.text.slice(0, 300)}`;

/** A refusal: a 4xx in the documented envelope. */
function expectRefusal(response: RawResponse, what: string) {
  const envelope = response.body?.code && response.body?.data?.status === response.status;
  if (response.status < 400 || response.status >= 500 || !envelope)
    throw new Error(`${what}: ${shown(response)} (neither stored nor refused with a 4xx in the envelope)`);
}

/**
 * Reads that must answer 200 as the administrator (an item in the trash may be refused, as the
 * original refuses it), and, of items and feeds, anonymously 200 or a refusal of access in the envelope.
 */
async function expectReadable(paths: string[], what: string, trashed = false) {
  for (const path of paths) {
    const asAdmin = await send("GET", path);
    const refusedInTrash = trashed && [403, 404, 410].includes(asAdmin.status);
    if (asAdmin.status !== 200 && !refusedInTrash) throw new Error(`${what}: GET ${path} → ${shown(asAdmin)}`);
    // Anonymous callers read an item and the feeds as the public does (lists show them what they show the administrator, less).
    if (!/\/\d+$|\.ics/.test(path.split("?")[0])) continue;
    const anonymous = await send("GET", path, undefined, true);
    if (anonymous.status !== 200) expectRefusal(anonymous, `${what}: anonymous GET ${path}`);
  }
}

const inTrash = (body: Json) => body.status === "trash";

/** The lists and feeds that show these events (one read of each for all the values of a field). */
const eventLists = (ids: number[]) =>
  ids.length === 0
    ? []
    : [
        `/events?${WIDE}&include=${ids.join(",")}&status=publish,future,draft,pending,private&per_page=50`,
        `/events.ics?${WIDE}&include=${ids.join(",")}`,
      ];

interface Door {
  collection: string;
  /** A body the write takes as it stands, `unique` making its names unique. */
  base(unique: number): Json;
  /** The reads of one item (the events that link it made as it is read). */
  item(id: number, links: number[]): Promise<string[]>;
  /** The lists and feeds that show the items written (and the events that link them). */
  lists(ids: number[], links: number[]): string[];
}

let serial = 0;

/** An event that links the item, for the lists and feeds of events (none when the item may not be linked, such as one in the trash). */
async function linkingEvent(field: string, value: unknown, links: number[]): Promise<void> {
  const answer = await send("POST", "/events", {
    title: `Linking ${++serial}`,
    start_date: "2027-03-01 10:00:00",
    end_date: "2027-03-01 12:00:00",
    [field]: value,
  });
  if (answer.status === 201) links.push(answer.body.id);
  else expectRefusal(answer, `linking ${field} ${JSON.stringify(value)}`);
}

/** A venue, an organizer or a term: its own item and list, and the events that link it. */
function linked(collection: string, base: Door["base"], field: string, asValue: (id: number) => unknown): Door {
  const statuses =
    collection === "venues" || collection === "organizers" ? "&status=publish,draft,pending,private" : "";
  return {
    collection,
    base,
    async item(id, links) {
      await linkingEvent(field, asValue(id), links);
      return [`/${collection}/${id}`];
    },
    lists: (_ids, links) => [`/${collection}?per_page=50${statuses}`, ...eventLists(links)],
  };
}

const DOORS: Door[] = [
  {
    collection: "events",
    base: (unique) => ({
      title: `Stored ${unique}`,
      start_date: "2027-03-01 10:00:00",
      end_date: "2027-03-01 12:00:00",
    }),
    item: async (id) => [`/events/${id}`, `/events/${id}.ics`],
    lists: (ids) => eventLists(ids),
  },
  linked(
    "venues",
    (unique) => ({ venue: `Venue ${unique}` }),
    "venue",
    (id) => id,
  ),
  linked(
    "organizers",
    (unique) => ({ organizer: `Organizer ${unique}` }),
    "organizer",
    (id) => [id],
  ),
  linked(
    "categories",
    (unique) => ({ name: `Category ${unique}` }),
    "categories",
    (id) => [id],
  ),
  linked(
    "tags",
    (unique) => ({ name: `Tag ${unique}` }),
    "tags",
    (id) => [id],
  ),
  {
    collection: "webhooks",
    base: (unique) => ({ url: `https://hooks.example/receive/${unique}` }),
    item: async (id) => [`/webhooks/${id}`, `/webhooks/${id}/deliveries`],
    lists: () => ["/webhooks?per_page=50"],
  },
  {
    collection: "imports",
    base: (unique) => ({ url: `https://calendar.example/feed-${unique}.ics`, frequency: "manual" }),
    item: async (id) => [`/imports/${id}`, `/imports/${id}/runs`],
    lists: () => ["/imports?per_page=50"],
  },
];

function bodySchema(path: string): Json {
  const body = spec.resolve(document.paths[path].post.requestBody);
  return body.content["application/json"].schema;
}

describe.each(DOORS)("$collection", (door) => {
  const create = bodySchema(`/${door.collection}`);
  const update = bodySchema(`/${door.collection}/{id}`);

  it.each(Object.keys(spec.properties(create)))(
    "stores what the spec accepts of `%s` on create, and reads it back",
    async (field) => {
      const values = spec.values(spec.properties(create)[field]);
      expect(values.length).toBeGreaterThan(0);
      const ids: number[] = [];
      const links: number[] = [];
      for (const value of values) {
        const what = `POST /${door.collection} with ${field} = ${JSON.stringify(value)?.slice(0, 120)}`;
        const answer = await send("POST", `/${door.collection}`, { ...door.base(++serial), [field]: value });
        if (answer.status !== 201) {
          expectRefusal(answer, what);
          continue;
        }
        ids.push(answer.body.id);
        await expectReadable(await door.item(answer.body.id, links), what, inTrash({ [field]: value }));
      }
      await expectReadable(door.lists(ids, links), `the lists of ${door.collection} written with each ${field}`);
    },
  );

  it.each(Object.keys(spec.properties(update)))(
    "stores what the spec accepts of `%s` on update, and reads it back",
    async (field) => {
      const made = await send("POST", `/${door.collection}`, door.base(++serial));
      expect(made.status).toBe(201);
      const links: number[] = [];
      const reads = [...(await door.item(made.body.id, links)), ...door.lists([made.body.id], links)];
      for (const value of spec.values(spec.properties(update)[field])) {
        const what = `POST /${door.collection}/${made.body.id} with ${field} = ${JSON.stringify(value)?.slice(0, 120)}`;
        const answer = await send("POST", `/${door.collection}/${made.body.id}`, { [field]: value });
        if (answer.status !== 200) {
          expectRefusal(answer, what);
          continue;
        }
        await expectReadable(reads, what, inTrash({ [field]: value }));
      }
    },
  );
});

describe("values no reader parses, stored by an earlier release", () => {
  const UNREADABLE = ["http://example.org:99999/a.jpg", "http://[x/a.jpg", "http://exa\u0001mple.org/a.jpg"];

  it.each(UNREADABLE)("an image stored as %j is left out of every representation", async (image) => {
    const venue = (await send("POST", "/venues", { venue: `Unreadable ${++serial}` })).body;
    const organizer = (await send("POST", "/organizers", { organizer: `Unreadable ${++serial}` })).body;
    const event = (
      await send("POST", "/events", {
        title: `Unreadable ${++serial}`,
        start_date: "2027-04-01 10:00:00",
        end_date: "2027-04-01 11:00:00",
        venue: venue.id,
        organizer: [organizer.id],
      })
    ).body;
    for (const table of ["Event", "Venue", "Organizer"] as const) {
      const id = { Event: event.id, Venue: venue.id, Organizer: organizer.id }[table];
      await server.db.transact((tx) =>
        tx.$executeRaw(Prisma.sql`UPDATE ${Prisma.raw(`"${table}"`)} SET "image" = ${image} WHERE "id" = ${id}`),
      );
    }
    const item = await send("GET", `/events/${event.id}`, undefined, true);
    expect(item.status).toBe(200);
    expect(item.body.image).toBe(false);
    expect(item.body.venue.image).toBeNull();
    expect(item.body.organizer[0].image).toBeNull();
    await expectReadable(
      [
        `/events/${event.id}`,
        `/events/${event.id}.ics`,
        ...eventLists([event.id]),
        `/venues/${venue.id}`,
        `/venues`,
        `/organizers/${organizer.id}`,
        `/organizers`,
      ],
      `stored image ${JSON.stringify(image)}`,
    );
  });
});

describe("a lineage no reader parses, stored by an earlier release", () => {
  it("is left out: the item shows its own global id", async () => {
    const venue = (await send("POST", "/venues", { venue: `Lineage ${++serial}` })).body;
    await server.db.transact((tx) =>
      tx.$executeRaw(Prisma.sql`UPDATE "Venue" SET "lineage" = ${"[not json"} WHERE "id" = ${venue.id}`),
    );
    const shown = await send("GET", `/venues/${venue.id}`, undefined, true);
    expect([shown.status, shown.body.global_id_lineage]).toEqual([200, [venue.global_id]]);
  });
});

describe("web addresses", () => {
  it("are one pattern in the spec and in the code", () => {
    expect(spec.resolve({ $ref: "#/components/schemas/WriteUrl" }).pattern).toBe(WEB_URL_PATTERN);
    expect(spec.resolve({ $ref: "#/components/schemas/WriteImage" }).pattern).toBe(WEB_URL_PATTERN);
  });

  it("that the pattern takes, a URL parser reads", () => {
    const pattern = new RegExp(WEB_URL_PATTERN, "u");
    const urlish = fc
      .tuple(
        fc.constantFrom("http://", "https://"),
        fc.string({ unit: fc.constantFrom(..."ab9.-_[]%:@\u0001x0".split("")), minLength: 1, maxLength: 12 }),
        fc.option(fc.integer({ min: 0, max: 120_000 }).map(String)),
        fc.string({ maxLength: 10 }),
      )
      .map(([scheme, host, port, rest]) => `${scheme}${host}${port === null ? "" : `:${port}`}/${rest}`);
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), urlish), (url) => {
        if (pattern.test(url)) expect([url, URL.canParse(url)]).toEqual([url, true]);
        expect(isWebUrl(url)).toBe(pattern.test(url) && URL.canParse(url));
      }),
      { numRuns: 5_000, seed: 57 },
    );
  });
});
