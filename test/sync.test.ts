// Incremental sync (README "Keeping a copy in sync"): every listing ends with a token; the token
// gives what changed since, through the same filters, with tombstones for what is gone or no
// longer shown; expired and foreign tokens are 410; concurrent writes are never missed.
import { Prisma } from "../generated/prisma/sqlite/client";
import { pruneTombstones } from "../src/sync/change-log-repository";
import { issueCredentials } from "../src/resources/users/user-admin";
import { createLinkedVia, createTermVia, createUser } from "./support/fixtures";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const root = "/calendar/events/v1";
const when = { start_date: "+3 days 10:00", end_date: "+3 days 12:00" };

async function createEvent(body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const response = await server.raw("POST", `${root}/events`, { body: { ...when, ...body }, headers: ADMIN_HEADERS });
  expect(response.status).toBe(201);
  return response.body;
}

const patch = async (path: string, body: Record<string, unknown>) =>
  expect((await server.raw("PATCH", `${root}${path}`, { body, headers: ADMIN_HEADERS })).status).toBe(200);
const remove = async (path: string) =>
  expect((await server.raw("DELETE", `${root}${path}`, { headers: ADMIN_HEADERS })).status).toBe(200);
const get = (path: string, headers: Record<string, string> = {}) => server.raw("GET", `${root}${path}`, { headers });

/** The token a listing ends with, checked to be in the body and in the header. */
function tokenOf(response: RawResponse): string {
  expect(response.status).toBe(200);
  expect(typeof response.body.next_sync_token).toBe("string");
  expect(response.headers.get("x-next-sync-token")).toBe(response.body.next_sync_token);
  return response.body.next_sync_token;
}

/** Every change after `token`, following next_rest_url: the ids shown, the ids of tombstones, the last token. */
async function changesSince(collection: string, token: string, headers: Record<string, string> = {}, perPage = 50) {
  const shown: number[] = [];
  const deleted: number[] = [];
  let url: string | undefined = `${root}/${collection}?sync_token=${encodeURIComponent(token)}&per_page=${perPage}`;
  let last = token;
  while (url) {
    const response: RawResponse = await server.raw("GET", url.replace(server.origin, ""), { headers });
    expect([response.status, response.status === 200 ? "" : response.text]).toEqual([200, ""]);
    shown.push(...response.body[collection].map((item: { id: number }) => item.id));
    deleted.push(
      ...response.body.deleted.map(
        (item: { id: number; deleted: boolean }) => (expect(item.deleted).toBe(true), item.id),
      ),
    );
    last = tokenOf(response);
    url = response.body.next_rest_url;
  }
  return { shown, deleted, token: last };
}

describe("sync tokens of events", () => {
  it("answers only what changed since the listing: created and edited events, tombstones for trashed and deleted ones", async () => {
    const kept = await createEvent({ title: "Sync kept" });
    const edited = await createEvent({ title: "Sync edited" });
    const trashed = await createEvent({ title: "Sync trashed" });
    const destroyed = await createEvent({ title: "Sync destroyed" });
    const token = tokenOf(await get("/events?per_page=50"));

    expect(await changesSince("events", token)).toMatchObject({ shown: [], deleted: [] });
    const created = await createEvent({ title: "Sync created" });
    await patch(`/events/${edited.id}`, { title: "Sync edited again" });
    await remove(`/events/${trashed.id}`);
    // Trashed, then deleted for good (as in WordPress, force deletes what is in the trash).
    await remove(`/events/${destroyed.id}`);
    await remove(`/events/${destroyed.id}?force=true`);

    const changes = await changesSince("events", token);
    expect(changes.shown.sort()).toEqual([created.id, edited.id].sort());
    expect(changes.deleted.sort()).toEqual([trashed.id, destroyed.id].sort());
    expect(changes.shown).not.toContain(kept.id);
    const first = await get(`/events?sync_token=${encodeURIComponent(token)}`);
    expect(first.body.events.find((event: { id: number }) => event.id === edited.id).title).toBe("Sync edited again");

    // The answer's own token starts after its changes: nothing new since.
    expect(await changesSince("events", changes.token)).toMatchObject({ shown: [], deleted: [] });
  });

  it("keeps the listing's filters: an event that leaves them is a tombstone, one outside them never shows as an item", async () => {
    const concerts = await createTermVia(server, "categories", { name: "Sync concerts" });
    const talks = await createTermVia(server, "categories", { name: "Sync talks" });
    const moving = await createEvent({ title: "Sync moving concert", categories: [concerts.id] });
    const token = tokenOf(await get(`/events?categories=${concerts.id}`));
    const outside = await createEvent({ title: "Sync talk", categories: [talks.id] });
    const inside = await createEvent({ title: "Sync new concert", categories: [concerts.id] });
    await patch(`/events/${moving.id}`, { categories: [talks.id] });

    const changes = await changesSince("events", token);
    expect(changes.shown).toEqual([inside.id]);
    // A changed event the list does not show is a tombstone, whether or not the copy had it.
    expect(changes.deleted.sort()).toEqual([moving.id, outside.id].sort());
    // The token keeps its filters: sent alone, or with the same ones; other filters are a 400.
    expect((await get(`/events?sync_token=${encodeURIComponent(token)}&categories=${concerts.id}`)).status).toBe(200);
    const other = await get(`/events?sync_token=${encodeURIComponent(token)}&categories=${talks.id}`);
    expect(other.status).toBe(400);
    // The token a sync answer ends with keeps them too: a second poll still leaves the talk out.
    await patch(`/events/${outside.id}`, { title: "Sync talk, renamed" });
    await patch(`/events/${inside.id}`, { title: "Sync new concert, renamed" });
    const second = await changesSince("events", changes.token);
    expect(second.shown).toEqual([inside.id]);
    expect(second.deleted).toEqual([outside.id]);
    expect(other.body.data.details.sync_token.code).toBe("rest_sync_filters_differ");
    const paged = await get(`/events?sync_token=${encodeURIComponent(token)}&page=2`);
    expect(paged.status).toBe(400);
    expect(paged.body.data.details.page.code).toBe("rest_sync_not_paged");
  });

  it("never shows a change the caller may not read; an event unpublished is a tombstone for those who saw it", async () => {
    const author = await createUser(server, "sync-author", "author");
    const published = await createEvent({ title: "Sync public then draft" });
    const token = tokenOf(await get("/events"));
    const adminToken = tokenOf(await get("/events", ADMIN_HEADERS));
    const draft = await createEvent({ title: "Sync never public", status: "draft", author: author.id });
    await patch(`/events/${published.id}`, { status: "draft" });

    const anonymous = await changesSince("events", token);
    expect(anonymous.shown).toEqual([]);
    expect(anonymous.deleted).toEqual([published.id]);
    expect(anonymous.deleted).not.toContain(draft.id);
    const admin = await changesSince("events", adminToken, ADMIN_HEADERS);
    expect(admin.shown.sort()).toEqual([published.id, draft.id].sort());
  });

  it("gives a signed-in caller who saw a draft its tombstone once it is trashed or deleted (issue 45)", async () => {
    const author = await createUser(server, "sync-draft-author", "author");
    const credentials = await issueCredentials(server.db, "sync-draft-author");
    const asAuthor = { Authorization: `Bearer ${credentials.api_key}` };
    const editorToken = tokenOf(await get("/events", ADMIN_HEADERS));
    const authorToken = tokenOf(await get("/events", asAuthor));
    const trashed = await createEvent({ title: "Sync draft to trash", status: "draft", author: author.id });
    const deleted = await createEvent({ title: "Sync draft to delete", status: "draft", author: author.id });
    const seenByAuthor = await changesSince("events", authorToken, asAuthor);
    const seenByEditor = await changesSince("events", editorToken, ADMIN_HEADERS);
    expect(seenByAuthor.shown.sort()).toEqual([trashed.id, deleted.id].sort());
    expect(seenByEditor.shown.sort()).toEqual([trashed.id, deleted.id].sort());
    await remove(`/events/${trashed.id}`);
    await remove(`/events/${deleted.id}?force=true`);
    for (const [token, headers] of [
      [seenByAuthor.token, asAuthor],
      [seenByEditor.token, ADMIN_HEADERS],
    ] as const) {
      const after = await changesSince("events", token, headers);
      expect(after.shown).toEqual([]);
      expect(after.deleted.sort()).toEqual([trashed.id, deleted.id].sort());
    }
    // An anonymous reader never saw either: no tombstone.
    expect((await changesSince("events", editorToken)).deleted).not.toContain(trashed.id);
  });

  it("reports an event that left an anonymous reader's view once, not at every edit made while it is hidden, and again once it was back", async () => {
    const event = await createEvent({ title: "Sync hidden edits" });
    const before = tokenOf(await get("/events"));
    await patch(`/events/${event.id}`, { status: "private" });
    const told = await changesSince("events", before);
    expect(told.deleted).toEqual([event.id]);
    // Edits while it is hidden: nothing for a reader who was told, the one tombstone for one who was not.
    await patch(`/events/${event.id}`, { title: "Sync hidden edits (2)" });
    await patch(`/events/${event.id}`, { description: "Still private" });
    expect(await changesSince("events", told.token)).toMatchObject({ shown: [], deleted: [] });
    expect((await changesSince("events", before)).deleted).toEqual([event.id]);
    // Public again, then hidden again: shown, then one tombstone more.
    await patch(`/events/${event.id}`, { status: "publish" });
    const back = await changesSince("events", told.token);
    expect(back).toMatchObject({ shown: [event.id], deleted: [] });
    await patch(`/events/${event.id}`, { status: "draft" });
    const again = await changesSince("events", back.token);
    expect(again).toMatchObject({ shown: [], deleted: [event.id] });
    await patch(`/events/${event.id}`, { title: "Sync hidden edits (3)" });
    expect(await changesSince("events", again.token)).toMatchObject({ shown: [], deleted: [] });
    // Trashed and deleted for good while hidden: told already.
    await server.raw("DELETE", `${root}/events/${event.id}`, { headers: ADMIN_HEADERS });
    expect(await changesSince("events", again.token)).toMatchObject({ shown: [], deleted: [] });
  });

  it("pages the changes in the order they were made; a listing's first-page token reports what changed while paging", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createEvent({ title: `Sync paged ${i}` })).id);
    const firstPage = await get("/events?per_page=2&orderby=modified&order=desc");
    const token = tokenOf(firstPage);
    await patch(`/events/${ids[4]}`, { title: "Sync paged, edited while listing" });
    for (let i = 5; i < 8; i += 1) ids.push((await createEvent({ title: `Sync paged ${i}` })).id);

    const page = await get(`/events?sync_token=${encodeURIComponent(token)}&per_page=2`);
    expect(page.body.events.map((event: { id: number }) => event.id)).toEqual([ids[4], ids[5]]);
    expect(page.body.total).toBe(2);
    expect(page.body.total_pages).toBe(2);
    expect(page.body.next_rest_url).toContain("sync_token=");
    expect(page.headers.get("link")).toContain('rel="next"');
    // rest_url is this answer's own address (the token asked with); the next token is the body's own field.
    expect(new URL(page.body.rest_url).searchParams.get("sync_token")).toBe(token);
    expect(page.body.next_sync_token).not.toBe(token);
    const all = await changesSince("events", token, {}, 2);
    expect(all.shown).toEqual([ids[4], ids[5], ids[6], ids[7]]);
  });

  it("answers 410 rest_sync_token_expired to altered tokens, tokens of another list, and tokens older than the kept deletions", async () => {
    const token = tokenOf(await get("/events"));
    const [payload, signature] = token.split(".");
    const altered = `${Buffer.from(Buffer.from(payload, "base64url").toString().replace(/,\d+,/, ",0,")).toString("base64url")}.${signature}`;
    for (const bad of [altered, "not-a-token", `${payload}.${"A".repeat(22)}`]) {
      const response = await get(`/events?sync_token=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(410);
      expect(response.body.code).toBe("rest_sync_token_expired");
    }
    expect((await get(`/venues?sync_token=${encodeURIComponent(token)}`)).status).toBe(410);

    const gone = await createEvent({ title: "Sync pruned" });
    await remove(`/events/${gone.id}`);
    await remove(`/events/${gone.id}?force=true`);
    // Thirty-one days later the deletion is forgotten: a token from before it cannot learn of it.
    await pruneTombstones(server.db, new Date(Date.now() + 31 * 86_400_000), 30);
    const expired = await get(`/events?sync_token=${encodeURIComponent(token)}`);
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe("rest_sync_token_expired");
    expect((await get("/events")).status).toBe(200);
    // A token made after the horizon works.
    expect((await changesSince("events", tokenOf(await get("/events")))).shown).toEqual([]);
  });

  it("loses no change of many concurrent writes, polled while they run", async () => {
    let token = tokenOf(await get("/events"));
    const seen = new Set<number>();
    let writing = true;
    const poll = async () => {
      while (writing) {
        const changes = await changesSince("events", token);
        changes.shown.forEach((id) => seen.add(id));
        token = changes.token;
      }
    };
    const polling = poll();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => createEvent({ title: `Sync concurrent ${i}` })),
    );
    writing = false;
    await polling;
    (await changesSince("events", token)).shown.forEach((id) => seen.add(id));
    expect(created.filter((event) => !seen.has(event.id))).toEqual([]);
  });
});

describe("a restore of an earlier backup (issue 58)", () => {
  /** What a restore does to the log: its clock back at `seq`, the changes after it (and their items) gone. */
  async function restoreTo(seq: number, ids: number[]) {
    await server.db.transact(async (tx) => {
      await tx.$executeRaw`DELETE FROM "SyncChange" WHERE "seq" > ${seq}`;
      for (const id of ids) await tx.$executeRaw`DELETE FROM "Event" WHERE "id" = ${id}`;
      await tx.$executeRaw`UPDATE "SyncClock" SET "seq" = ${seq} WHERE "id" = 1`;
    });
  }
  const seqOf = async () =>
    Number(
      (await server.db.direct.rows<{ seq: number }>(Prisma.sql`SELECT "seq" FROM "SyncClock" WHERE "id" = 1`))[0].seq,
    );

  it("is noticed: the kept representations go, and every sync token given out before is 410", async () => {
    const before = tokenOf(await get("/events?search=Restored"));
    const seq = await seqOf();
    const made = [await createEvent({ title: "Restored away 1" }), await createEvent({ title: "Restored away 2" })];
    const after = tokenOf(await get("/events?search=Restored"));
    // Kept: the list as it is now.
    expect((await get("/events?search=Restored")).body.events).toHaveLength(2);
    await restoreTo(
      seq,
      made.map((event) => event.id),
    );
    // The list the database holds, not the one kept from before the restore.
    expect((await get("/events?search=Restored")).body.events).toEqual([]);
    for (const token of [before, after]) {
      const answer = await get(`/events?sync_token=${encodeURIComponent(token)}`);
      expect([answer.status, answer.body.code]).toEqual([410, "rest_sync_token_expired"]);
    }
    // A mirror lists again, and is told of what changes from there.
    const fresh = tokenOf(await get("/events?search=Restored"));
    await createEvent({ title: "Restored again" });
    const changes = await get(`/events?sync_token=${encodeURIComponent(fresh)}`);
    expect(changes.body.events.map((event: { title: string }) => event.title)).toEqual(["Restored again"]);
  });

  it("refuses a token from past the log's end (a restore no instance saw), and every other of its history", async () => {
    const older = tokenOf(await get("/events?search=Lost"));
    const seq = await seqOf();
    const lost = await createEvent({ title: "Lost" });
    const future = tokenOf(await get("/events?search=Lost"));
    // A new process, which never saw the log: its cache knows nothing of where it stood.
    const other = await startTestServer({ DATABASE_URL: server.config.databaseUrl });
    try {
      await restoreTo(seq, [lost.id]);
      for (const token of [future, older]) {
        const answer = await other.raw("GET", `${root}/events?sync_token=${encodeURIComponent(token)}`);
        expect([answer.status, answer.body.code]).toEqual([410, "rest_sync_token_expired"]);
      }
    } finally {
      await other.close();
    }
  });
});

describe("sync tokens of venues, organizers, categories and tags", () => {
  it.each(["venues", "organizers"] as const)("reports %s created, edited and deleted", async (collection) => {
    const name = collection === "venues" ? "venue" : "organizer";
    const edited = await createLinkedVia(server, collection, { [name]: `Sync ${name} edited` });
    const gone = await createLinkedVia(server, collection, { [name]: `Sync ${name} gone` });
    const token = tokenOf(await get(`/${collection}`));
    const created = await createLinkedVia(server, collection, { [name]: `Sync ${name} created` });
    await patch(`/${collection}/${edited.id}`, { [name]: `Sync ${name} renamed` });
    await remove(`/${collection}/${gone.id}`);
    const changes = await changesSince(collection, token);
    expect(changes.shown.sort()).toEqual([created.id, edited.id].sort());
    expect(changes.deleted).toEqual([gone.id]);
  });

  it.each(["categories", "tags"] as const)("reports %s created, edited and deleted", async (collection) => {
    const edited = await createTermVia(server, collection, { name: `Sync ${collection} edited` });
    const gone = await createTermVia(server, collection, { name: `Sync ${collection} gone` });
    const token = tokenOf(await get(`/${collection}?hide_empty=false`));
    const created = await createTermVia(server, collection, { name: `Sync ${collection} created` });
    await patch(`/${collection}/${edited.id}`, { name: `Sync ${collection} renamed` });
    expect(
      (await server.raw("DELETE", `${root}/${collection}/${gone.id}?force=true`, { headers: ADMIN_HEADERS })).status,
    ).toBe(200);
    const changes = await changesSince(collection, token);
    expect(changes.shown.sort()).toEqual([created.id, edited.id].sort());
    expect(changes.deleted).toEqual([gone.id]);
    // With the default hide_empty, a term no published event uses is not shown: its change is a tombstone.
    const emptyHidden = await changesSince(collection, tokenOf(await get(`/${collection}`)));
    expect(emptyHidden).toMatchObject({ shown: [], deleted: [] });
  });
});

describe("modified_after, modified_before and orderby=modified", () => {
  it("filters every collection by the last write, exactly", async () => {
    const before = await createEvent({ title: "Sync modified before" });
    const venue = await createLinkedVia(server, "venues", { venue: "Sync modified venue" });
    const tag = await createTermVia(server, "tags", { name: "Sync modified tag" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await createEvent({ title: "Sync modified after" });
    await patch(`/venues/${venue.id}`, { city: "Lisbon" });
    await patch(`/tags/${tag.id}`, { description: "edited" });

    const events = (await get(`/events?modified_after=${encodeURIComponent(since)}&per_page=50`)).body.events.map(
      (event: { id: number }) => event.id,
    );
    expect(events).toContain(after.id);
    expect(events).not.toContain(before.id);
    const older = (await get(`/events?modified_before=${encodeURIComponent(since)}&per_page=50`)).body.events.map(
      (event: { id: number }) => event.id,
    );
    expect(older).toContain(before.id);
    expect(older).not.toContain(after.id);
    expect(
      (await get(`/venues?modified_after=${encodeURIComponent(since)}`)).body.venues.map(
        (item: { id: number }) => item.id,
      ),
    ).toEqual([venue.id]);
    expect(
      (await get(`/tags?modified_after=${encodeURIComponent(since)}&hide_empty=false`)).body.tags.map(
        (item: { id: number }) => item.id,
      ),
    ).toEqual([tag.id]);
    expect((await get(`/venues?orderby=modified&order=desc&per_page=1`)).body.venues[0].id).toBe(venue.id);
    expect((await get(`/tags?orderby=modified&order=desc&per_page=1&hide_empty=false`)).body.tags[0].id).toBe(tag.id);
    expect((await get(`/events?orderby=modified&order=desc&per_page=1`)).body.events[0].id).toBe(after.id);
    const invalid = await get("/events?modified_after=not-a-date");
    expect(invalid.status).toBe(400);
    expect(invalid.body.data.details.modified_after.code).toBe("rest_invalid_date");
  });
});
