// The cache of representations kept for anonymous readers (src/sync/representation-cache.ts), on a
// real database whose change log its triggers write: what is kept is handed back as kept, and
// dropped as soon as anything it shows changes; a page of a list (EVERY_ITEM) at any change;
// the whole cache after more changes than one catch-up reads; the least recently used first
// when it is full; never what was made before a catch-up it did not see.
import { loadConfig } from "../../src/config";
import { openDatabase, type Database } from "../../src/db/database";
import { inTransaction } from "../../src/db/transaction";
import { entityTag } from "../../src/http/conditional";
import { EVERY_ITEM, RepresentationCache } from "../../src/sync/representation-cache";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

let database: TestDatabase;
let db: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  db = await openDatabase(loadConfig({ DATABASE_URL: database.url }));
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

/** Makes `count` tags, in one transaction, each a change the log records as `tags:<id>`; their ids. */
async function newTags(count = 1): Promise<number[]> {
  return inTransaction(db, async (tx) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const [row] = await tx.$queryRaw<Array<{ id: number }>>`
        INSERT INTO "Term" ("taxonomy", "sourceLanguage") VALUES ('tag', 'en') RETURNING "id"`;
      ids.push(Number(row!.id));
    }
    return ids;
  });
}

/** Changes tags already made (one transaction). */
async function changeTags(ids: number[]): Promise<void> {
  await inTransaction(db, async (tx) => {
    for (const id of ids) await tx.$executeRaw`UPDATE "Term" SET "sourceLanguage" = 'es' WHERE "id" = ${id}`;
  });
}

const MB = 1_048_576;

describe("the representation cache", () => {
  it("hands back what it kept, with its tag and headers, and counts its bytes and lookups", async () => {
    const lookups: boolean[] = [];
    const cache = new RepresentationCache(db, MB, (hit) => lookups.push(hit));
    const freshness = await cache.freshen();
    expect(freshness.generation).toBe(1);
    expect(freshness.position.seq).toBeGreaterThanOrEqual(0);
    const headers = [["X-WP-Total", "1"]] as const;
    const sent = cache.keep(freshness, "tags:page", '{"tags":[]}', ["tags:1"], headers);
    expect([sent.json, sent.etag]).toEqual(['{"tags":[]}', entityTag('{"tags":[]}')]);
    const kept = cache.get("tags:page")!;
    expect([kept.json, kept.etag, kept.headers]).toEqual(['{"tags":[]}', entityTag('{"tags":[]}'), headers]);
    expect(cache.get("tags:other")).toBeUndefined();
    expect(lookups).toEqual([true, false]);
    expect(cache.heldBytes).toBe('{"tags":[]}'.length * 2);
  });

  it("drops what shows an item that changed, and only that; a list's page at any change", async () => {
    const [changing, staying] = await newTags(2);
    const cache = new RepresentationCache(db, MB);
    let freshness = await cache.freshen();
    cache.keep(freshness, "changing", "1", [`tags:${changing}`, "venues:1"]);
    cache.keep(freshness, "staying", "2", [`tags:${staying}`]);
    cache.keep(freshness, "page", "3", [EVERY_ITEM]);
    await cache.freshen();
    expect(["changing", "staying", "page"].map((key) => cache.get(key)?.json)).toEqual(["1", "2", "3"]);
    await changeTags([changing!]);
    freshness = await cache.freshen();
    expect(["changing", "staying", "page"].map((key) => cache.get(key)?.json)).toEqual([undefined, "2", undefined]);
    expect(cache.heldBytes).toBe(2);
    // Several representations showing one item all go when it changes.
    cache.keep(freshness, "first", "5", [`tags:${staying}`]);
    await changeTags([staying!]);
    await cache.freshen();
    expect([cache.get("staying"), cache.get("first")]).toEqual([undefined, undefined]);
    freshness = await cache.freshen();
    // What is kept again after the catch-up stays until the next change.
    cache.keep(freshness, "changing", "4", [`tags:${changing}`]);
    await cache.freshen();
    expect(cache.get("changing")?.json).toBe("4");
  });

  it("forgets what a representation kept again under its key showed before", async () => {
    const [before, after] = await newTags(2);
    const cache = new RepresentationCache(db, MB);
    const freshness = await cache.freshen();
    cache.keep(freshness, "replaced", "1", [`tags:${before}`, `tags:${before}`]);
    cache.keep(freshness, "beside", "2", [`tags:${before}`]);
    cache.keep(freshness, "replaced", "3", [`tags:${after}`]);
    cache.keep(freshness, "alone", "4", [`tags:${after}`, "venues:1", "venues:1"]);
    cache.keep(freshness, "alone", "5", []);
    expect(cache.get("replaced")?.headers).toEqual([]);
    await changeTags([before!]);
    await cache.freshen();
    expect([cache.get("replaced")?.json, cache.get("beside")]).toEqual(["3", undefined]);
  });

  it("starts over when the log was pruned past where it stood (it cannot know what changed)", async () => {
    const [untouched] = await newTags(1);
    const cache = new RepresentationCache(db, MB);
    const freshness = await cache.freshen();
    cache.keep(freshness, "untouched", "1", [`tags:${untouched}`]);
    await newTags(1);
    // What pruning the tombstones does to the clock: changes before the horizon can no longer be read.
    await inTransaction(db, (tx) => tx.$executeRaw`UPDATE "SyncClock" SET "horizon" = "seq" WHERE "id" = 1`);
    await cache.freshen();
    expect(cache.get("untouched")).toBeUndefined();
  });

  it("catches up once for requests that look at once", async () => {
    const cache = new RepresentationCache(db, MB);
    const before = await cache.freshen();
    await newTags(1);
    const [one, two] = await Promise.all([cache.freshen(), cache.freshen()]);
    expect([one.generation, two.generation]).toEqual([before.generation + 1, before.generation + 1]);
  });

  it("starts over after more changes than one catch-up reads (1,000)", async () => {
    const cache = new RepresentationCache(db, MB);
    const [untouched] = await newTags(1);
    const freshness = await cache.freshen();
    cache.keep(freshness, "untouched", "1", [`tags:${untouched}`]);
    await newTags(1000);
    await cache.freshen();
    expect(cache.get("untouched")?.json).toBe("1");
    await newTags(1001);
    await cache.freshen();
    expect(cache.get("untouched")).toBeUndefined();
    expect(cache.heldBytes).toBe(0);
  });

  it("does not keep what was made before a catch-up it did not see", async () => {
    const cache = new RepresentationCache(db, MB);
    const before = await cache.freshen();
    await newTags(1);
    const after = await cache.freshen();
    expect(after.generation).toBe(before.generation + 1);
    const sent = cache.keep(before, "stale", "old", ["tags:1"]);
    expect(sent.json).toBe("old");
    expect(cache.get("stale")).toBeUndefined();
    // Without a change, the generation stays, and what is made is kept.
    expect((await cache.freshen()).generation).toBe(after.generation);
  });

  it("keeps at most its bytes, dropping the least recently used; nothing larger than a sixteenth of them", async () => {
    const cache = new RepresentationCache(db, 256);
    const freshness = await cache.freshen();
    const eight = "x".repeat(8); // 16 bytes counted, a sixteenth of 256
    const keys = Array.from({ length: 16 }, (_, i) => `k${i}`);
    expect(cache.get("never kept")).toBeUndefined();
    for (const key of keys) cache.keep(freshness, key, eight, []);
    expect(cache.heldBytes).toBe(256);
    cache.get("k0");
    cache.keep(freshness, "k16", eight, []);
    expect([...keys, "k16"].filter((key) => cache.get(key) === undefined)).toEqual(["k1"]);
    cache.keep(freshness, "k0", "yy", []);
    expect([cache.get("k0")?.json, cache.heldBytes]).toEqual(["yy", 244]);
    const large = new RepresentationCache(db, 16 * 32);
    const current = await large.freshen();
    large.keep(current, "fits", "z".repeat(16), []);
    large.keep(current, "too large", "z".repeat(17), []);
    expect([large.get("fits")?.json.length, large.get("too large")]).toEqual([16, undefined]);
  });

  it("keeps nothing when it has no bytes, and still says where the log stands", async () => {
    const cache = new RepresentationCache(db, 0);
    const freshness = await cache.freshen();
    expect(freshness.generation).toBe(-1);
    const [tag] = await newTags(1);
    expect((await cache.freshen()).position.seq).toBeGreaterThan(freshness.position.seq);
    expect(cache.keep(freshness, "k", "1", [`tags:${tag}`]).json).toBe("1");
    expect(cache.get("k")).toBeUndefined();
  });
});
