// The signatures that protect what leaves and comes back: webhook notifications (Standard
// Webhooks: HMAC-SHA256 of id.timestamp.body, "v1,<base64>") and sync tokens (signed with the
// site's key: a token altered, made for another collection or by another installation is refused).
import { createHmac } from "node:crypto";
import { loadConfig } from "../../src/config";
import { openDatabase, type Database } from "../../src/db/database";
import { siteSecret } from "../../src/db/site-secrets";
import { SyncTokens } from "../../src/sync/sync-token";
import {
  newMessageId,
  newSigningSecret,
  signMessage,
  verifyMessage,
} from "../../src/resources/webhooks/webhook-signature";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

describe("webhook signatures", () => {
  // The Standard Webhooks specification's own example.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const timestamp = 1614265330;
  const body = '{"test": 2432232314}';
  const signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  it("are the specification's: HMAC-SHA256 of id.timestamp.body with the secret's key", () => {
    expect(signMessage(secret, id, timestamp, body)).toBe(signature);
    // A secret without its prefix is the same key.
    expect(signMessage(secret.slice("whsec_".length), id, timestamp, body)).toBe(signature);
  });

  it("verify as a receiver does: the body, id and time signed, within five minutes, any of several signatures", () => {
    const at = timestamp * 1000;
    const headers = { id, timestamp: String(timestamp), signature };
    expect(verifyMessage(secret, headers, body, at)).toBe(true);
    expect(verifyMessage(secret, { ...headers, signature: `v1,bm90IGl0 ${signature}` }, body, at)).toBe(true);
    expect(verifyMessage(secret, headers, `${body} `, at)).toBe(false);
    expect(verifyMessage(secret, { ...headers, id: `${id}x` }, body, at)).toBe(false);
    expect(verifyMessage(secret, { ...headers, signature: "v1,bm90IGl0" }, body, at)).toBe(false);
    expect(verifyMessage(secret, { ...headers, signature: signature.replace("g0h", "g0i") }, body, at)).toBe(false);
    expect(verifyMessage(newSigningSecret(), headers, body, at)).toBe(false);
    expect(verifyMessage(secret, headers, body, at + 300_000)).toBe(true);
    expect(verifyMessage(secret, headers, body, at - 300_000)).toBe(true);
    expect(verifyMessage(secret, headers, body, at + 301_000)).toBe(false);
    expect(verifyMessage(secret, headers, body, at - 301_000)).toBe(false);
    expect(verifyMessage(secret, headers, body, at + 60_000, 59)).toBe(false);
    expect(verifyMessage(secret, { ...headers, timestamp: `${timestamp}.5` }, body, at)).toBe(false);
    expect(verifyMessage(secret, { ...headers, timestamp: "soon" }, body, at)).toBe(false);
  });

  it("use fresh secrets and message ids of the specification's forms", () => {
    const secrets = new Set(Array.from({ length: 20 }, newSigningSecret));
    expect(secrets.size).toBe(20);
    for (const made of secrets) {
      expect(made).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(Buffer.from(made.slice(6), "base64")).toHaveLength(24);
    }
    const ids = new Set(Array.from({ length: 20 }, newMessageId));
    expect(ids.size).toBe(20);
    for (const made of ids) expect(made).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});

describe("sync tokens", () => {
  let database: TestDatabase;
  let db: Database;
  let tokens: SyncTokens;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase(loadConfig({ DATABASE_URL: database.url }));
    tokens = new SyncTokens(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const content = {
    resource: "events" as const,
    position: { seq: 42, itemId: 7 },
    epoch: 3,
    filters: { categories: [3], featured: true },
  };

  it("carry the collection, the position and the filters, and read back as made", async () => {
    const token = await tokens.encode(content);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const [payload] = token.split(".");
    expect(JSON.parse(Buffer.from(payload!, "base64url").toString())).toEqual([
      2,
      "events",
      42,
      7,
      { categories: [3], featured: true },
      3,
    ]);
    await expect(tokens.decode(token, "events")).resolves.toEqual(content);
    // The site's key is read once and kept: another reader of the same database agrees.
    await expect(new SyncTokens(db).decode(token, "events")).resolves.toEqual(content);
  });

  it("refuse a token of another collection, altered, cut, extended or not a token at all", async () => {
    const token = await tokens.encode(content);
    const [payload, signature] = token.split(".") as [string, string];
    expect(await tokens.decode(token, "venues")).toBeNull();
    const altered = Buffer.from(JSON.stringify([2, "events", 1, 7, {}, 3])).toString("base64url");
    for (const refused of [
      `${altered}.${signature}`,
      `${payload}.${signature.slice(0, -2)}`,
      `${payload}.${signature.slice(0, 5)}${signature[5] === "A" ? "B" : "A"}${signature.slice(6)}`,
      `${payload}.${signature}.x`,
      `${payload}.`,
      `.${signature}`,
      payload,
      "",
    ])
      expect(await tokens.decode(refused, "events")).toBeNull();
  });

  it("refuse a token of another version, even signed with the site's key", async () => {
    const token = await tokens.encode(content);
    const [, signature] = token.split(".") as [string, string];
    // Signed as this site signs (the key is the site's secret): only the version differs.
    const key = await siteSecret(db, "sync-token-key", "the sync token key");
    const sign = (payload: string) =>
      createHmac("sha256", key).update(payload).digest().subarray(0, 16).toString("base64url");
    const v3 = Buffer.from(JSON.stringify([3, "events", 42, 7, {}, 3])).toString("base64url");
    expect(signature).toBe(sign(token.split(".")[0]!));
    expect(await tokens.decode(`${v3}.${sign(v3)}`, "events")).toBeNull();
    // An earlier release's token (version 1, no epoch) is of the log's first epoch.
    const v1 = Buffer.from(JSON.stringify([1, "events", 42, 7, {}])).toString("base64url");
    expect(await tokens.decode(`${v1}.${sign(v1)}`, "events")).toEqual({ ...content, epoch: 0, filters: {} });
  });

  it("made by another installation are refused", async () => {
    const other = await createTestDatabase();
    const otherDb = await openDatabase(loadConfig({ DATABASE_URL: other.url }));
    try {
      const foreign = await new SyncTokens(otherDb).encode(content);
      expect(await tokens.decode(foreign, "events")).toBeNull();
    } finally {
      await otherDb.close();
      await other.drop();
    }
  });
});
