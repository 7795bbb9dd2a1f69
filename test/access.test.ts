// Access control: credentials (API keys, application passwords, the bootstrap key), the roles and
// capabilities of docs/compatibility.md §8 (AuthorizationCest, the role rows of insertion and update,
// status and draft visibility), event passwords (§3.6), scheduled publishing, and no secret in
// any response or log line.
import {
  createUser as createUserWithCredentials,
  revokeKeys,
  type CreatedUser,
} from "../src/resources/users/user-admin";
import { Prisma } from "../generated/prisma/sqlite/client";
import { inTransaction } from "../src/db/transaction";
import { publishDueItems } from "../src/resources/post-kernel/scheduled-publishing";
import { createEventVia, fixedClock, ids, utcWall } from "./support/events";
import { clearContent, createLinkedVia, createTermVia } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const logLines: string[] = [];
const users: Record<string, CreatedUser> = {};

beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock, logLines });
  for (const role of ["administrator", "editor", "author", "contributor", "subscriber"]) {
    users[role] = await createUserWithCredentials(server.db, { login: `the-${role}`, role });
  }
  users.otherAuthor = await createUserWithCredentials(server.db, { login: "another-author", role: "author" });
  users.otherContributor = await createUserWithCredentials(server.db, {
    login: "another-contributor",
    role: "contributor",
  });
});
afterAll(() => server.close());
afterEach(() => clearContent(server));

const root = "/calendar/events/v1";
const bearer = (who: string) => ({ Authorization: `Bearer ${users[who].api_key}` });
const basic = (login: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`,
});
const as = (who: string, method: string, path: string, body?: unknown) =>
  server.raw(method, `${root}${path}`, { body, headers: bearer(who) });
const anonymous = (method: string, path: string, body?: unknown) => server.raw(method, `${root}${path}`, { body });
const event = { title: "An event", start_date: utcWall(24), end_date: utcWall(26) };

describe("credentials", () => {
  it("accepts an API key as a Bearer token", async () => {
    const response = await as("editor", "POST", "/tags", { name: "Keyed" });
    expect(response.status).toBe(201);
  });

  it("accepts an application password over HTTP Basic, with or without its spaces", async () => {
    const password = users.editor.application_password;
    expect(password).toMatch(/^(\w{4} ){5}\w{4}$/);
    for (const form of [password, password.replace(/ /g, "")]) {
      const response = await server.raw("POST", `${root}/tags`, {
        body: { name: `Basic ${form.length}` },
        headers: basic("the-editor", form),
      });
      expect(response.status).toBe(201);
    }
  });

  it("still accepts the bootstrap administrator key", async () => {
    expect(
      (await server.raw("POST", `${root}/tags`, { body: { name: "Bootstrap" }, headers: ADMIN_HEADERS })).status,
    ).toBe(201);
  });

  it("answers every bad credential with the same 401, on reads too, never saying which part was wrong", async () => {
    const [, keyId, secret] = /^cal_([a-f0-9]{16})_(.+)$/.exec(users.editor.api_key)!;
    const headers = [
      { Authorization: `Bearer cal_${keyId}_${"A".repeat(43)}` },
      { Authorization: `Bearer cal_${"0".repeat(16)}_${secret}` },
      { Authorization: "Bearer not-a-key" },
      basic("the-editor", "wrong password"),
      basic("nobody-at-all", users.editor.application_password),
      { Authorization: "Basic !!!" },
      { Authorization: "Digest username=x" },
      { Authorization: "Bearer" },
    ];
    const bodies = new Set<string>();
    for (const header of headers) {
      for (const [method, path] of [
        ["GET", "/tags"],
        ["POST", "/tags"],
      ]) {
        const response = await server.raw(method, `${root}${path}`, {
          body: method === "POST" ? { name: "x" } : undefined,
          headers: header,
        });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Bearer realm="calendar"');
        bodies.add(response.text);
      }
    }
    expect([...bodies]).toEqual([
      JSON.stringify({
        code: "rest_forbidden",
        message: "Sorry, you are not allowed to do that.",
        data: { status: 401 },
      }),
    ]);
  });

  it("stops a revoked key at once, and every credential of a user revoked by login", async () => {
    const user = await createUserWithCredentials(server.db, { login: "short-lived", role: "editor" });
    const key = { Authorization: `Bearer ${user.api_key}` };
    expect((await server.raw("POST", `${root}/tags`, { body: { name: "Before" }, headers: key })).status).toBe(201);
    await revokeKeys(server.db, { key: user.api_key });
    expect((await server.raw("POST", `${root}/tags`, { body: { name: "After" }, headers: key })).status).toBe(401);
    expect(
      (
        await server.raw("POST", `${root}/tags`, {
          body: { name: "Basic still" },
          headers: basic("short-lived", user.application_password),
        })
      ).status,
    ).toBe(201);
    await revokeKeys(server.db, { login: "short-lived" });
    expect(
      (
        await server.raw("POST", `${root}/tags`, {
          body: { name: "Basic gone" },
          headers: basic("short-lived", user.application_password),
        })
      ).status,
    ).toBe(401);
  });

  it("stores only digests of secrets", async () => {
    const rows = [
      ...(await server.db.read.apiKey.findMany()),
      ...(await server.db.read.applicationPassword.findMany()),
    ];
    const stored = JSON.stringify(rows);
    for (const user of Object.values(users)) {
      expect(stored).not.toContain(/^cal_[a-f0-9]{16}_(.+)$/.exec(user.api_key)![1]);
      expect(stored).not.toContain(user.application_password.replace(/ /g, ""));
    }
    // Generated secrets are kept as digests (their entropy protects them; no slow hash to exploit).
    expect(rows.every((row) => /^sha256\$[A-Za-z0-9_-]{43}$/.test(row.secretHash))).toBe(true);
  });
});

describe("what each role may do (§8)", () => {
  it.each([
    ["subscriber", 403, null],
    ["contributor", 201, "pending"],
    ["author", 201, "publish"],
    ["editor", 201, "publish"],
    ["administrator", 201, "publish"],
  ])("%s creating events, venues and organizers with status publish: %i %s", async (role, status, stored) => {
    for (const [path, body] of [
      ["/events", event],
      ["/venues", { venue: `V ${role}` }],
      ["/organizers", { organizer: `O ${role}` }],
    ] as const) {
      const response = await as(role, "POST", path, { ...body, status: "publish" });
      expect(response.status).toBe(status);
      if (stored) expect(response.body.status).toBe(stored);
      else expect(response.body.code).toBe("rest_forbidden");
    }
  });

  it("makes a contributor's new item without a status a draft, a publisher's a published one", async () => {
    expect((await as("contributor", "POST", "/events", event)).body.status).toBe("draft");
    expect((await as("author", "POST", "/events", event)).body.status).toBe("publish");
  });

  it.each([
    ["subscriber", 403, 403],
    ["contributor", 403, 403],
    ["author", 201, 403],
    ["editor", 201, 201],
    ["administrator", 201, 201],
  ])("%s managing categories (%i) and tags (%i)", async (role, categories, tags) => {
    const category = await as(role, "POST", "/categories", { name: `Cat of ${role}` });
    const tag = await as(role, "POST", "/tags", { name: `Tag of ${role}` });
    expect(category.status).toBe(categories);
    expect(tag.status).toBe(tags);
    const existingCategory = await createTermVia(server, "categories", { name: `Existing cat ${role}` });
    const existingTag = await createTermVia(server, "tags", { name: `Existing tag ${role}` });
    expect((await as(role, "PATCH", `/categories/${existingCategory.id}`, { description: "x" })).status).toBe(
      categories === 201 ? 200 : 403,
    );
    expect((await as(role, "DELETE", `/tags/${existingTag.id}`)).status).toBe(tags === 201 ? 200 : 403);
  });

  it("checks rights before the body: a write the caller may not make is 403, not 400", async () => {
    expect((await as("subscriber", "POST", "/events", { title: "" })).status).toBe(403);
    const admins = await createEventVia(server, event);
    expect((await as("contributor", "PATCH", `/events/${admins.id}`, { title: "" })).status).toBe(403);
    expect(
      (
        await server.raw("PATCH", `${root}/events/${admins.id}`, {
          rawBody: "{broken",
          headers: { ...bearer("contributor"), "Content-Type": "application/json" },
        })
      ).status,
    ).toBe(403);
  });

  it("lets presentation flags be set by authors", async () => {
    const flags = { show_map: true, show_map_link: true, hide_from_listings: true, sticky: true, featured: true };
    const response = await as("author", "POST", "/events", { ...event, ...flags });
    expect(response.body).toMatchObject(flags);
  });
});

describe("AuthorizationCest", () => {
  it("forbids a contributor to edit or delete an administrator's event, or their own published one", async () => {
    const admins = await createEventVia(server, event);
    const ownPublished = await createEventVia(server, { ...event, author: users.contributor.id });
    for (const target of [admins, ownPublished]) {
      expect((await as("contributor", "PUT", `/events/${target.id}?force=true`, { title: "Mine now" })).status).toBe(
        403,
      );
      expect((await as("contributor", "DELETE", `/events/${target.id}?force=true`)).status).toBe(403);
    }
  });

  it("lets a contributor edit and delete their own draft (publishing it only as pending)", async () => {
    const draft = (await as("contributor", "POST", "/events", event)).body;
    const edited = await as("contributor", "PUT", `/events/${draft.id}`, { title: "Edited", status: "publish" });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: "Edited", status: "pending" });
    expect((await as("contributor", "DELETE", `/events/${draft.id}`)).status).toBe(200);
  });

  it("lets an editor edit and delete (trash, force or not) an administrator's event, but not delete it for good", async () => {
    const admins = await createEventVia(server, event);
    expect((await as("editor", "PUT", `/events/${admins.id}`, { title: "By the editor" })).status).toBe(200);
    const trashed = await as("editor", "DELETE", `/events/${admins.id}?force=true`);
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe("trash");
    expect((await as("editor", "DELETE", `/events/${admins.id}?force=true`)).status).toBe(410);
    expect((await as("administrator", "DELETE", `/events/${admins.id}?force=true`)).status).toBe(200);
    expect((await as("administrator", "GET", `/events/${admins.id}`)).status).toBe(404);
  });

  it("forbids a contributor to edit or delete an administrator's venue or organizer", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Admin's venue" });
    const organizer = await createLinkedVia(server, "organizers", { organizer: "Admin's organizer" });
    for (const path of [`/venues/${venue.id}`, `/organizers/${organizer.id}`]) {
      expect((await as("contributor", "PUT", path, { phone: "1" })).status).toBe(403);
      expect((await as("contributor", "DELETE", path)).status).toBe(403);
    }
  });

  it("answers anonymous edits and deletes with 401, drafts included", async () => {
    const published = await createEventVia(server, event);
    const draft = (await as("contributor", "POST", "/events", event)).body;
    for (const target of [published, draft]) {
      expect((await anonymous("PUT", `/events/${target.id}`, { title: "x" })).status).toBe(401);
      expect((await anonymous("DELETE", `/events/${target.id}`)).status).toBe(401);
    }
  });

  it("lets authors change their own published items, not others'", async () => {
    const own = (await as("author", "POST", "/events", event)).body;
    const others = (await as("otherAuthor", "POST", "/events", event)).body;
    expect((await as("author", "PATCH", `/events/${own.id}`, { title: "Still mine" })).status).toBe(200);
    expect((await as("author", "PATCH", `/events/${others.id}`, { title: "Not mine" })).status).toBe(403);
    expect((await as("author", "DELETE", `/events/${others.id}`)).status).toBe(403);
    expect((await as("author", "DELETE", `/events/${own.id}`)).status).toBe(200);
  });

  it("lets only those who may edit others' items give an item to someone else", async () => {
    const gift = await as("author", "POST", "/events", { ...event, author: users.otherAuthor.id });
    expect(gift.status).toBe(403);
    const byEditor = await as("editor", "POST", "/events", { ...event, author: users.author.id });
    expect(byEditor.body.author).toBe(String(users.author.id));
  });
});

describe("status and visibility", () => {
  async function scenario() {
    const published = (await as("author", "POST", "/events", { ...event, title: "Published" })).body;
    const ownDraft = (await as("contributor", "POST", "/events", { ...event, title: "Own draft" })).body;
    const othersDraft = (await as("otherContributor", "POST", "/events", { ...event, title: "Other's draft" })).body;
    const privateOne = (await as("author", "POST", "/events", { ...event, title: "Private", status: "private" })).body;
    const scheduled = (await as("author", "POST", "/events", { ...event, title: "Scheduled", date: "+2 days" })).body;
    return { published, ownDraft, othersDraft, privateOne, scheduled };
  }

  it("lists to each caller exactly what they may read", async () => {
    const { published, ownDraft, privateOne, scheduled } = await scenario();
    expect(scheduled.status).toBe("future");
    const list = async (headers: Record<string, string>) =>
      ids((await server.raw("GET", `${root}/events`, { headers })).body.events).sort();
    expect(await list({})).toEqual([published.id]);
    expect(await list(bearer("contributor"))).toEqual([published.id, ownDraft.id].sort());
    expect(await list(bearer("author"))).toEqual([published.id, privateOne.id, scheduled.id].sort());
    expect((await server.raw("GET", `${root}/events`, { headers: bearer("editor") })).body.total).toBe(5);
    expect((await server.raw("GET", `${root}/events`, { headers: bearer("subscriber") })).body.total).toBe(1);
  });

  it("lets contributors ask for statuses, and shows them only their own drafts", async () => {
    const { ownDraft } = await scenario();
    const response = await server.raw("GET", `${root}/events?status=draft`, { headers: bearer("contributor") });
    expect(ids(response.body.events)).toEqual([ownDraft.id]);
    expect((await server.raw("GET", `${root}/events?status=draft`, { headers: bearer("subscriber") })).status).toBe(
      400,
    );
    expect((await server.raw("GET", `${root}/events?status=draft`)).status).toBe(400);
  });

  it("answers single reads with the 403 codes of §8", async () => {
    const { ownDraft, othersDraft, privateOne, scheduled } = await scenario();
    const read = (who: string | null, id: number) =>
      server.raw("GET", `${root}/events/${id}`, { headers: who ? bearer(who) : {} });
    for (const item of [ownDraft, privateOne, scheduled]) {
      const response = await read(null, item.id);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe("event-not-accessible");
    }
    expect((await read("contributor", ownDraft.id)).status).toBe(200);
    expect((await read("contributor", othersDraft.id)).status).toBe(403);
    expect((await read("otherAuthor", privateOne.id)).status).toBe(403);
    expect((await read("author", privateOne.id)).status).toBe(200);
    expect((await read("editor", othersDraft.id)).status).toBe(200);
  });

  it("lists trashed items only when asked, to those who may delete them", async () => {
    const trashed = (await as("author", "POST", "/events", event)).body;
    await as("author", "DELETE", `/events/${trashed.id}`);
    expect((await server.raw("GET", `${root}/events`, { headers: bearer("editor") })).body.total).toBe(0);
    expect(
      ids((await server.raw("GET", `${root}/events?status=trash`, { headers: bearer("editor") })).body.events),
    ).toEqual([trashed.id]);
    expect(
      ids((await server.raw("GET", `${root}/events?status=trash`, { headers: bearer("author") })).body.events),
    ).toEqual([trashed.id]);
    expect(
      (await server.raw("GET", `${root}/events?status=trash`, { headers: bearer("otherAuthor") })).body.total,
    ).toBe(0);
  });

  it("does not let private events show through venue filters to anonymous callers", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Private party place" });
    await as("author", "POST", "/events", { ...event, status: "private", venue: [venue.id] });
    expect((await server.raw("GET", `${root}/venues?has_events=true`)).body.total).toBe(0);
    expect((await server.raw("GET", `${root}/venues?has_events=true`, { headers: bearer("editor") })).body.total).toBe(
      1,
    );
    expect((await server.raw("GET", `${root}/venues?only_with_upcoming=true`)).body.total).toBe(0);
  });

  it("publishes scheduled items when their date comes", async () => {
    const scheduled = (await as("author", "POST", "/events", { ...event, date: "+1 hour" })).body;
    const venue = (await as("author", "POST", "/venues", { venue: "Opens later", date: "+1 hour" })).body;
    expect([scheduled.status, venue.status]).toEqual(["future", "future"]);
    expect(await publishDueItems(server.db, fixedClock())).toEqual({ events: 0, venues: 0, organizers: 0 });
    const later = new Date(fixedClock().getTime() + 2 * 3600_000);
    expect(await publishDueItems(server.db, later)).toEqual({ events: 1, venues: 1, organizers: 0 });
    expect((await anonymous("GET", `/events/${scheduled.id}`)).body.status).toBe("publish");
  });

  it("publishes a backlog in turns, each item once, whichever instances run at once", async () => {
    const scheduled = (await as("author", "POST", "/events", { ...event, title: "Backlog", date: "+1 hour" })).body;
    // 449 copies of its row: more than one turn publishes (200).
    await inTransaction(server.db, async (tx) => {
      const [{ list }] = await tx.$queryRaw<Array<{ list: string }>>(
        Prisma.sql`SELECT ${Prisma.raw(
          server.db.provider === "postgresql"
            ? `string_agg('"' || column_name || '"', ', ')`
            : `group_concat('"' || name || '"', ', ')`,
        )} AS "list" FROM ${Prisma.raw(
          server.db.provider === "postgresql"
            ? `information_schema.columns WHERE table_name = 'Event' AND column_name <> 'id'`
            : `pragma_table_info('Event') WHERE name <> 'id'`,
        )}`,
      );
      for (let i = 0; i < 449; i += 1)
        await tx.$executeRawUnsafe(
          `INSERT INTO "Event" (${list}) SELECT ${list} FROM "Event" WHERE "id" = ${scheduled.id}`,
        );
    });
    const later = new Date(fixedClock().getTime() + 2 * 3600_000);
    const runs = await Promise.all([publishDueItems(server.db, later), publishDueItems(server.db, later)]);
    expect(runs[0].events + runs[1].events).toBe(450);
    const [{ left }] = await server.db.direct.rows<{ left: number | string }>(
      Prisma.sql`SELECT COUNT(*) AS "left" FROM "Event" WHERE "status" = 'future'`,
    );
    expect(Number(left)).toBe(0);
  });
});

describe("event passwords", () => {
  const secret = "open sesame 42";

  it("protects a single GET: 403 event-password-protected without the right password", async () => {
    const created = (await as("author", "POST", "/events", { ...event, password: secret })).body;
    expect(JSON.stringify(created)).not.toContain(secret);
    for (const query of ["", "?password=wrong"]) {
      const response = await anonymous("GET", `/events/${created.id}${query}`);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe("event-password-protected");
    }
    const opened = await anonymous("GET", `/events/${created.id}?password=${encodeURIComponent(secret)}`);
    expect(opened.status).toBe(200);
    expect(opened.text).not.toContain(secret);
    expect((await anonymous("GET", `/events/${created.id}?password=`)).status).toBe(400);
    expect((await as("author", "GET", `/events/${created.id}`)).status).toBe(200);
    expect((await as("otherAuthor", "GET", `/events/${created.id}`)).status).toBe(403);
  });

  it("redacts protected events in lists, unless the password opens them or the caller may edit them", async () => {
    const venue = await createLinkedVia(server, "venues", { venue: "Hidden hall" });
    const category = await createTermVia(server, "categories", { name: "Secret stuff" });
    const protectedEvent = (
      await as("author", "POST", "/events", {
        ...event,
        title: "Members only",
        description: "Secret agenda",
        cost: "$5",
        featured: true,
        venue: [venue.id],
        categories: [category.id],
        password: secret,
      })
    ).body;
    const list = async (query: string, headers: Record<string, string> = {}) =>
      (await server.raw("GET", `${root}/events${query}`, { headers })).body.events[0];
    expect(await list("")).toMatchObject({
      id: protectedEvent.id,
      title: "Members only",
      description: "",
      excerpt: "",
      cost: "",
      cost_details: { currency_symbol: "", values: [] },
      image: false,
      featured: null,
      all_day: null,
      website: "",
      venue: [],
      organizer: [],
      categories: [],
      tags: [],
    });
    expect(await list(`?password=${encodeURIComponent(secret)}`)).toMatchObject({
      description: "<p>Secret agenda</p>",
      featured: true,
      venue: { id: venue.id },
    });
    expect(await list("", bearer("author"))).toMatchObject({ description: "<p>Secret agenda</p>" });
    expect((await list("", bearer("otherAuthor"))).description).toBe("");
  });

  it("removes the protection with null", async () => {
    const created = (await as("author", "POST", "/events", { ...event, password: secret })).body;
    await as("author", "PATCH", `/events/${created.id}`, { password: null });
    expect((await anonymous("GET", `/events/${created.id}`)).status).toBe(200);
  });
});

describe("secrets", () => {
  it("never appear in a log line", async () => {
    const created = (await as("author", "POST", "/events", { ...event, password: "log-me-not" })).body;
    await anonymous("GET", `/events/${created.id}?password=log-me-not`);
    await server.raw("GET", `${root}/tags`, { headers: basic("the-editor", users.editor.application_password) });
    const logs = logLines.join("\n");
    expect(logs).toContain(`/events/${created.id}?password=%5Bredacted%5D`);
    expect(logs).not.toContain("log-me-not");
    for (const user of Object.values(users)) {
      expect(logs).not.toContain(user.api_key);
      expect(logs).not.toContain(user.application_password.replace(/ /g, ""));
    }
    expect(logs).not.toContain(server.config.adminToken!);
    expect(logs).not.toMatch(/authorization/i);
  });
});
