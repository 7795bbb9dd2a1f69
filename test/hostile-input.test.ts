// Hostile input and protected content (issue 14): what used to be a 500 is a 4xx naming the
// parameter (or is stored), credential and password checks cannot be turned against the
// service, protected and hidden items stay out of search and filters, secrets stay out of logs.
import { legacyHash } from "../src/auth/password-hash";
import { slowHashes } from "../src/auth/slow-hash-queue";
import { createUser as createUserWithCredentials, issueCredentials } from "../src/resources/users/user-admin";
import { createEventVia, fixedClock, utcWall } from "./support/events";
import { createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const logLines: string[] = [];
beforeAll(async () => {
  // Behind a "proxy" (loopback): clients are told apart by X-Forwarded-For, as in production.
  server = await startTestServer({ TRUST_PROXY: "loopback" }, { clock: fixedClock, logLines });
});
afterAll(() => server.close());

const root = "/calendar/events/v1";
const get = (path: string, headers: Record<string, string> = {}) => server.raw("GET", `${root}${path}`, { headers });
const write = (method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN_HEADERS) =>
  server.raw(method, `${root}${path}`, { body, headers });
const params = (response: { body: { data?: { params?: object } } }) => Object.keys(response.body.data?.params ?? {});

describe("numbers that are not finite, or out of range", () => {
  it("answers every numeric parameter given Infinity, -Infinity or 1e309 with 400 naming it, anonymously", async () => {
    const cases: Array<[string, string]> = [];
    for (const list of ["/events", "/venues", "/organizers", "/categories", "/tags"])
      cases.push([`${list}?page=`, "page"], [`${list}?per_page=`, "per_page"]);
    cases.push(
      ["/events?venue=", "venue"],
      ["/events?organizer=", "organizer"],
      ["/events?post_parent=", "post_parent"],
      ["/events?include=", "include"],
    );
    cases.push(
      ["/events?geoloc=true&geoloc_lng=0&geoloc_lat=", "geoloc_lat"],
      ["/events?geoloc=true&geoloc_lat=0&geoloc_radius=5&geoloc_lng=", "geoloc_lng"],
    );
    cases.push(
      ["/venues?event=", "event"],
      ["/organizers?event=", "event"],
      ["/categories?event=", "event"],
      ["/categories?post=", "post"],
      ["/categories?parent=", "parent"],
      ["/tags?post=", "post"],
    );
    for (const [path, param] of cases) {
      for (const value of ["Infinity", "-Infinity", "1e309", "NaN", "9007199254740993"]) {
        const response = await get(`${path}${value}`);
        expect([path, value, response.status, params(response)]).toEqual([path, value, 400, [param]]);
      }
    }
  });

  it("answers ids that are not digits in a path with 404 rest_no_route, for reads and writes", async () => {
    for (const resource of ["events", "venues", "organizers", "categories", "tags"]) {
      for (const id of ["1e309", "Infinity", "1.0", "0x10", "99999999999999999999"]) {
        for (const [method, body] of [
          ["GET", undefined],
          ["PATCH", { description: "x" }],
          ["DELETE", undefined],
        ] as const) {
          const response = await write(method, `/${resource}/${id}`, body);
          expect([resource, id, method, response.status, response.body.code]).toEqual([
            resource,
            id,
            method,
            404,
            "rest_no_route",
          ]);
        }
      }
    }
  });

  it("refuses dates out of the years 1 to 9999, as numbers or as text, with 400 naming them", async () => {
    for (const [start, end] of [
      [1e20, 1e21],
      [-1e15, 0],
      ["0000-01-01", "0000-01-02"],
      ["10000-01-01", "10000-01-02"],
      ["+100000 years", "+100001 years"],
    ] as const) {
      const response = await write("POST", "/events", { title: "Out of time", start_date: start, end_date: end });
      expect([start, response.status]).toEqual([start, 400]);
      expect(params(response)).toEqual(expect.arrayContaining(["start_date"]));
    }
    expect((await get("/events?start_date=0000-01-01")).status).toBe(400);
    const edge = await write("POST", "/events", {
      title: "First day",
      start_date: "0001-01-01 00:00:00",
      end_date: "0001-01-01 01:00:00",
    });
    expect([edge.status, edge.body.start_date]).toEqual([201, "0001-01-01 00:00:00"]);
  });
});

describe("text that cannot be stored as it is sent", () => {
  it("answers a lone surrogate (half an emoji) in any text with 400 naming the field, not 500", async () => {
    for (const [path, body, param] of [
      ["/events", `{"title":"a\\ud800b","start_date":"2026-12-01","end_date":"2026-12-02"}`, "title"],
      [
        "/events",
        `{"title":"Fine","description":"x\\udc00","start_date":"2026-12-01","end_date":"2026-12-02"}`,
        "description",
      ],
      ["/venues", `{"venue":"Hall","city":"\\ud83d"}`, "city"],
      ["/categories", `{"name":"\\ude00 tail"}`, "name"],
    ] as const) {
      const response = await server.raw("POST", `${root}${path}`, {
        rawBody: body,
        headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
      });
      expect([path, response.status, params(response)]).toEqual([path, 400, [param]]);
      expect(response.body.data.details[param].code).toBe("rest_invalid_text");
    }
    // A whole emoji (a surrogate pair) is text like any other.
    const emoji = await write("POST", "/events", {
      title: "Party 🎉",
      start_date: "2026-12-01",
      end_date: "2026-12-02",
    });
    expect([emoji.status, emoji.body.title]).toEqual([201, "Party 🎉"]);
  });

  it("answers a NUL character in a body's text or in a query parameter with 400 naming it, and stores nothing", async () => {
    const before = (await get("/events?search=nul&status=publish,draft", ADMIN_HEADERS)).body.total;
    for (const [body, param] of [
      [`{"title":"Nul\\u0000title","start_date":"2026-12-01","end_date":"2026-12-02"}`, "title"],
      [
        `{"title":"Nul description","description":"a\\u0000b","start_date":"2026-12-01","end_date":"2026-12-02"}`,
        "description",
      ],
    ] as const) {
      const response = await server.raw("POST", `${root}/events`, {
        rawBody: body,
        headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
      });
      expect([param, response.status, params(response), response.body.data.details[param].code]).toEqual([
        param,
        400,
        [param],
        "rest_invalid_text",
      ]);
    }
    const form = await server.raw("POST", `${root}/venues`, {
      rawBody: "venue=Nul%00hall",
      headers: { ...ADMIN_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect([form.status, params(form)]).toEqual([400, ["venue"]]);
    for (const query of [
      "/events?search=a%00b",
      "/venues?search=a%00b",
      "/categories?search=%00",
      "/events?categories=a%00b",
      "/events?start_date=2026%0012-01",
    ]) {
      const response = await get(query);
      expect([query, response.status, response.body.code]).toEqual([query, 400, "rest_invalid_param"]);
    }
    expect((await get("/events?search=nul&status=publish,draft", ADMIN_HEADERS)).body.total).toBe(before);
  });

  it("answers 100,000 nested lists as a title with 400 naming it, not a stack overflow", async () => {
    const body = `{"title":${"[".repeat(100_000)}${"]".repeat(100_000)},"start_date":"2026-12-01","end_date":"2026-12-02"}`;
    const response = await server.raw("POST", `${root}/events`, {
      rawBody: body,
      headers: { ...ADMIN_HEADERS, "Content-Type": "application/json" },
    });
    expect([response.status, params(response), response.body.data.details.title.code]).toEqual([
      400,
      ["title"],
      "rest_too_deep",
    ]);
  });

  it("stores an 11,000-character Japanese description and a 65,000-character word, and finds the first in its beginning", async () => {
    const japanese = Array.from({ length: 11_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join(
      "",
    );
    const created = await write("POST", "/events", {
      title: "長い説明",
      description: japanese,
      start_date: utcWall(24),
      end_date: utcWall(25),
    });
    expect(created.status).toBe(201);
    expect((await get(`/events/${created.body.id}`)).body.description).toBe(`<p>${japanese}</p>`);
    expect(
      (await get(`/events?search=${encodeURIComponent(japanese.slice(100, 104))}`)).body.events.map(
        (e: { id: number }) => e.id,
      ),
    ).toEqual([created.body.id]);
    const word = "w".repeat(65_000);
    const long = await write("POST", "/events", {
      title: "One long word",
      description: word,
      start_date: utcWall(26),
      end_date: utcWall(27),
    });
    expect(long.status).toBe(201);
    expect((await get(`/events?search=wwwwwwww&per_page=50`)).body.events.map((e: { id: number }) => e.id)).toContain(
      long.body.id,
    );
  });
});

describe("password and credential checks", () => {
  it("derives a list request's password once, however many protected events the page holds", async () => {
    for (let i = 0; i < 12; i += 1) {
      await createEventVia(server, {
        title: `Locked ${i}`,
        start_date: utcWall(30 + i),
        end_date: utcWall(31 + i),
        password: `secret-${i % 3}`,
      });
    }
    const before = slowHashes.stats().finished;
    const listed = await get(`/events?per_page=50&password=made-up-${Date.now()}`);
    expect(listed.status).toBe(200);
    expect(slowHashes.stats().finished - before).toBe(1);
    // A wrong password opens none of them: every protected event of the list is redacted.
    const locked = listed.body.events.filter((e: { title: string }) => e.title.startsWith("Locked"));
    expect(locked).toHaveLength(12);
    for (const event of locked)
      expect([event.title, event.featured, event.description]).toEqual([event.title, null, ""]);
    // The password opens the events it protects, and only those.
    const opened = await get("/events?per_page=50&search=locked&password=secret-1");
    expect(
      opened.body.events
        .filter((e: { description: string; cost_details: object; featured: boolean | null }) => e.featured !== null)
        .map((e: { title: string }) => e.title)
        .sort(),
    ).toEqual(["Locked 1", "Locked 10", "Locked 4", "Locked 7"]);
  });

  it("checks API keys and application passwords without a slow hash, the same work whatever a user has", async () => {
    const one = await createUserWithCredentials(server.db, { login: "one-password", role: "editor" });
    const many = await createUserWithCredentials(server.db, { login: "many-passwords", role: "editor" });
    for (let i = 0; i < 4; i += 1) await issueCredentials(server.db, "many-passwords");
    const basic = (login: string, password: string) => ({
      Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`,
    });
    const before = slowHashes.stats().finished;
    for (const headers of [
      basic("one-password", "wrong"),
      basic("many-passwords", "wrong"),
      basic("nobody", "wrong"),
      { Authorization: `Bearer ${one.api_key.slice(0, -4)}AAAA` },
    ]) {
      expect((await get("/tags", headers)).status).toBe(401);
    }
    expect((await get("/tags", basic("many-passwords", many.application_password))).status).toBe(200);
    expect((await get("/tags", { Authorization: `Bearer ${one.api_key}` })).status).toBe(200);
    expect(slowHashes.stats().finished - before).toBe(0);
  });

  it("still accepts a key stored by an earlier version (a salted scrypt hash), and stores it as a digest once used", async () => {
    const user = await createUserWithCredentials(server.db, { login: "legacy-user", role: "editor" });
    const [, keyId, secret] = /^cal_([a-f0-9]{16})_(.+)$/.exec(user.api_key)!;
    await server.db.write.apiKey.update({ where: { keyId }, data: { secretHash: await legacyHash(secret) } });
    const before = slowHashes.stats().finished;
    expect((await get("/tags", { Authorization: `Bearer ${user.api_key}` })).status).toBe(200);
    expect(slowHashes.stats().finished - before).toBe(1);
    expect((await server.db.read.apiKey.findUnique({ where: { keyId } }))!.secretHash).toMatch(/^sha256\$/);
    expect((await get("/tags", { Authorization: `Bearer ${user.api_key}` })).status).toBe(200);
    expect(slowHashes.stats().finished - before).toBe(1);
  });

  it("stores event passwords with the site's salt, and still opens a single GET with one an earlier version stored", async () => {
    const event = await createEventVia(server, {
      title: "Salted",
      start_date: utcWall(58),
      end_date: utcWall(59),
      password: "pepper",
    });
    expect((await server.db.read.event.findUnique({ where: { id: event.id } }))!.passwordHash).toMatch(
      /^site-scrypt\$16384\$8\$1\$/,
    );
    await server.db.write.event.update({
      where: { id: event.id },
      data: { passwordHash: await legacyHash("old-pepper") },
    });
    expect((await get(`/events/${event.id}?password=old-pepper`)).status).toBe(200);
    expect((await get(`/events/${event.id}?password=pepper`)).status).toBe(403);
    const listed = (await get("/events?search=salted&password=old-pepper", ADMIN_HEADERS)).body.events[0];
    expect(listed.id).toBe(event.id);
  });

  it("serves the clients waiting for slow checks in turn: one client's burst does not hold back another's", async () => {
    const event = await createEventVia(server, {
      title: "Queued",
      start_date: utcWall(60),
      end_date: utcWall(61),
      password: "the-right-one",
    });
    const order: string[] = [];
    const hostile = Array.from({ length: 20 }, (_, i) =>
      get(`/events/${event.id}?password=guess-${i}-${Date.now()}`, { "X-Forwarded-For": "203.0.113.66" }).then(
        (response) => order.push(`hostile ${response.status}`),
      ),
    );
    // Let the burst queue up, then a valid password from another client.
    await new Promise((resolve) => setImmediate(resolve));
    const valid = get(`/events/${event.id}?password=the-right-one`, { "X-Forwarded-For": "198.51.100.7" }).then(
      (response) => order.push(`valid ${response.status}`),
    );
    await Promise.all([...hostile, valid]);
    // Refused (403), or turned away at once past the 16 that may wait (429).
    expect(
      order
        .filter((entry) => entry.startsWith("hostile"))
        .every((entry) => entry === "hostile 403" || entry === "hostile 429"),
    ).toBe(true);
    // Served in turn, it overtakes most of the 16 checks queued before it: the burst's checks that
    // finish first are those run while it still crosses the pipeline (2 on an idle machine, 4 on a
    // loaded one), never the whole queue, as they would be first come, first served.
    const validAt = order.indexOf("valid 200");
    expect(validAt).toBeGreaterThanOrEqual(0);
    expect(order.slice(0, validAt).filter((entry) => entry === "hostile 403").length).toBeLessThan(8);
  });

  it("refuses at once a client with 16 slow checks waiting (429), and not another client", async () => {
    const event = await createEventVia(server, {
      title: "Flooded",
      start_date: utcWall(62),
      end_date: utcWall(63),
      password: "x",
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        get(`/events/${event.id}?password=flood-${i}-${Date.now()}`, { "X-Forwarded-For": "203.0.113.99" }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 403 || status === 429)).toBe(true);
    expect(answers.find((answer) => answer.status === 429)!.headers.get("retry-after")).toBe("1");
    expect((await get(`/events/${event.id}?password=x`, { "X-Forwarded-For": "198.51.100.8" })).status).toBe(200);
  });
});

describe("protected and hidden content", () => {
  let protectedEvent: { id: number };
  let draftVenue: { id: number };
  let contributor: { api_key: string };
  beforeAll(async () => {
    const category = await createTermVia(server, "categories", { name: "Secret category" });
    const venue = await createLinkedVia(server, "venues", { venue: "Secret hall" });
    protectedEvent = await createEventVia(server, {
      title: "Public title",
      description: "The zanzibarquokka is only in the protected description.",
      start_date: utcWall(70),
      end_date: utcWall(71),
      password: "open-sesame",
      categories: [category.id],
      venue: [venue.id],
    });
    draftVenue = await createLinkedVia(server, "venues", { venue: "Draft hall", status: "draft" });
    contributor = await createUserWithCredentials(server.db, { login: "a-contributor", role: "contributor" });
  });

  it("keeps a protected event out of search for those who may not open it", async () => {
    expect((await get("/events?search=zanzibarquokka")).body.total).toBe(0);
    expect((await get("/events?search=zanzibarquokka&password=wrong")).body.total).toBe(0);
    expect(
      (await get("/events?search=zanzibarquokka&password=open-sesame")).body.events.map((e: { id: number }) => e.id),
    ).toEqual([protectedEvent.id]);
    expect((await get("/events?search=zanzibarquokka", ADMIN_HEADERS)).body.total).toBe(1);
  });

  it("answers filters by a protected event as for an unknown one, to those who may not open it", async () => {
    for (const path of [
      `/categories?event=${protectedEvent.id}`,
      `/categories?post=${protectedEvent.id}`,
      `/venues?event=${protectedEvent.id}`,
      `/organizers?event=${protectedEvent.id}`,
    ]) {
      const hidden = await get(path);
      const unknown = await get(path.replace(String(protectedEvent.id), "99999"));
      expect([path, hidden.status, hidden.body]).toEqual([path, 400, unknown.body]);
      expect((await get(path, ADMIN_HEADERS)).status).toBe(200);
    }
  });

  it("answers filters naming hidden items exactly as for unknown ids", async () => {
    const draftEvent = await createEventVia(server, {
      title: "Draft parent",
      start_date: utcWall(72),
      end_date: utcWall(73),
      status: "draft",
    });
    const privateOrganizer = await createLinkedVia(server, "organizers", {
      organizer: "Private society",
      status: "private",
    });
    for (const [name, hidden] of [
      ["venue", draftVenue.id],
      ["organizer", privateOrganizer.id],
      ["post_parent", draftEvent.id],
      ["include", draftEvent.id],
    ] as const) {
      const shown = await get(`/events?${name}=${hidden}`);
      const unknown = await get(`/events?${name}=99999`);
      expect([name, shown.status, shown.body]).toEqual([name, 400, unknown.body]);
      expect((await get(`/events?${name}=${hidden}`, ADMIN_HEADERS)).status).toBe(200);
    }
    // As in the original, an unknown id in include is a 400, not an empty list.
    expect((await get("/events?include=99999")).status).toBe(400);
  });

  it("refuses links to items the writer may not see", async () => {
    const othersDraft = await createEventVia(server, {
      title: "Another's draft",
      start_date: utcWall(74),
      end_date: utcWall(75),
      status: "draft",
    });
    const as = { Authorization: `Bearer ${contributor.api_key}` };
    for (const [field, value] of [
      ["venue", [draftVenue.id]],
      ["post_parent", othersDraft.id],
    ] as const) {
      const response = await write(
        "POST",
        "/events",
        { title: "Linking", start_date: utcWall(76), end_date: utcWall(77), [field]: value },
        as,
      );
      expect([field, response.status, params(response)]).toEqual([field, 400, [field]]);
    }
  });

  it("logs no form of the password parameter", async () => {
    await get("/events?password[]=first-secret-value&password[x]=second-secret-value");
    await get("/events?PASSWORD=third-secret-value");
    await get(`/events/${protectedEvent.id}?password=open-sesame`);
    const logged = logLines.join("\n");
    for (const secret of ["first-secret-value", "second-secret-value", "third-secret-value", "open-sesame"])
      expect(logged).not.toContain(secret);
  });
});
