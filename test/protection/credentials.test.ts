// The credentials the API accepts (src/auth/credentials.ts, authenticate.ts, password-hash.ts), on
// a real database: API keys, application passwords (WordPress's Basic), the bootstrap key; what is
// revoked, altered, malformed or of an unknown scheme is refused; secrets stored by earlier
// versions (salted scrypt) still open, once, and are stored as digests from then on.
import { scryptSync } from "node:crypto";
import type { Request } from "express";
import { slowHashes } from "../../src/auth/slow-hash-queue";
import { authenticate, clientOf, requireOperationScopes } from "../../src/auth/authenticate";
import { apiKeyId, bootstrapAdministrator, CredentialVerifier, newApiKey } from "../../src/auth/credentials";
import { digestSecret, legacyHash, secretsEqual, verifySecret } from "../../src/auth/password-hash";
import { loadConfig, type Config } from "../../src/config";
import { openDatabase, type Database } from "../../src/db/database";
import { ApiError } from "../../src/http/errors";
import { createUser, revokeKeys, type CreatedUser } from "../../src/resources/users/user-admin";
import * as credentialStore from "../../src/resources/users/user-repository";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const ADMIN_TOKEN = "bootstrap-token-0123456789abcdef";

let database: TestDatabase;
let db: Database;
let config: Config;
let verifier: CredentialVerifier;
let editor: CreatedUser;
beforeAll(async () => {
  database = await createTestDatabase();
  config = loadConfig({ DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: ADMIN_TOKEN });
  db = await openDatabase(config);
  verifier = new CredentialVerifier(db, config, credentialStore);
  editor = await createUser(db, { login: "maria", role: "editor" });
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const verify = (header: string) => verifier.verify(header, "203.0.113.1");
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;
const maria = () => ({ userId: editor.id, login: "maria", role: "editor" });

describe("API keys", () => {
  it("open as their user, whatever the case of the scheme and the spaces around", async () => {
    for (const header of [`Bearer ${editor.api_key}`, `bearer ${editor.api_key}`, `  BEARER   ${editor.api_key}  `])
      await expect(verify(header)).resolves.toEqual(maria());
  });

  it("are refused altered, unknown, malformed, or under another scheme", async () => {
    const [, keyId, secret] = /^cal_([a-f0-9]{16})_(.+)$/.exec(editor.api_key)!;
    const otherSecret = `${secret!.slice(0, -1)}${secret!.endsWith("A") ? "B" : "A"}`;
    for (const header of [
      `Bearer cal_${keyId}_${otherSecret}`,
      `Bearer ${newApiKey().apiKey}`,
      `Bearer ${editor.api_key}x`,
      `Bearer cal_${keyId}`,
      "Bearer",
      `Token ${editor.api_key}`,
      `NotBearer ${editor.api_key}`,
      `Bearerish ${editor.api_key}`,
      `Bearer x${editor.api_key}`,
      editor.api_key,
    ])
      await expect(verify(header)).resolves.toBeNull();
    expect(apiKeyId(editor.api_key)).toBe(keyId);
    expect(apiKeyId(`${editor.api_key} `)).toBeNull();
    expect(apiKeyId("cal_0123")).toBeNull();
  });

  it("are refused once revoked", async () => {
    const user = await createUser(db, { login: "revoked", role: "author" });
    await expect(verify(`Bearer ${user.api_key}`)).resolves.toMatchObject({ login: "revoked", role: "author" });
    await revokeKeys(db, { login: "revoked" });
    await expect(verify(`Bearer ${user.api_key}`)).resolves.toBeNull();
  });

  it("of a user whose role is not one the service knows open nothing", async () => {
    const user = await createUser(db, { login: "ghost", role: "subscriber" });
    await db.write.user.update({ where: { id: user.id }, data: { role: "superuser" } });
    await expect(verify(`Bearer ${user.api_key}`)).resolves.toBeNull();
    await expect(verify(basic("ghost", user.application_password))).resolves.toBeNull();
  });

  it("stored by an earlier version still open, and are stored as a digest once used", async () => {
    const user = await createUser(db, { login: "legacy-key", role: "contributor" });
    const [, keyId, secret] = /^cal_([a-f0-9]{16})_(.+)$/.exec(user.api_key)!;
    await db.write.apiKey.update({ where: { keyId }, data: { secretHash: await legacyHash(secret!) } });
    await expect(verify(`Bearer cal_${keyId}_${"A".repeat(43)}`)).resolves.toBeNull();
    expect((await db.read.apiKey.findUnique({ where: { keyId } }))!.secretHash).toMatch(/^scrypt\$/);
    await expect(verify(`Bearer ${user.api_key}`)).resolves.toMatchObject({ login: "legacy-key" });
    expect((await db.read.apiKey.findUnique({ where: { keyId } }))!.secretHash).toBe(digestSecret(secret!));
    await expect(verify(`Bearer ${user.api_key}`)).resolves.toMatchObject({ login: "legacy-key" });
  });
});

describe("application passwords (HTTP Basic, as WordPress clients send them)", () => {
  it("open with or without the spaces between groups", async () => {
    await expect(verify(basic("maria", editor.application_password))).resolves.toEqual(maria());
    await expect(verify(basic("maria", editor.application_password.replace(/ /g, "")))).resolves.toEqual(maria());
    await expect(
      verify(`basic ${Buffer.from(`maria:${editor.application_password}`).toString("base64")}`),
    ).resolves.toEqual(maria());
  });

  it("are shown in six groups of four letters and digits", () => {
    expect(editor.application_password).toMatch(/^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
  });

  it("open for a login of one letter", async () => {
    const short = await createUser(db, { login: "m", role: "author" });
    await expect(verify(basic("m", short.application_password))).resolves.toMatchObject({ login: "m" });
  });

  it("are refused for another login, altered, or without a login", async () => {
    const other = await createUser(db, { login: "other", role: "author" });
    for (const header of [
      basic("other", editor.application_password),
      basic("maria", other.application_password),
      basic("maria", `${editor.application_password}x`),
      basic("", editor.application_password),
      `Basic ${Buffer.from(`maria${editor.application_password}`).toString("base64")}`,
      "Basic",
      "Basic !!!",
      `Token ${Buffer.from(`maria:${editor.application_password}`).toString("base64")}`,
      `XBasic ${Buffer.from(`maria:${editor.application_password}`).toString("base64")}`,
      `Basically ${Buffer.from(`maria:${editor.application_password}`).toString("base64")}`,
    ])
      await expect(verify(header)).resolves.toBeNull();
  });

  it("stored by an earlier version still open, and are stored as a digest once used", async () => {
    const user = await createUser(db, { login: "legacy-password", role: "author" });
    const plain = user.application_password.replace(/ /g, "");
    const [row] = await db.read.applicationPassword.findMany({ where: { userId: user.id } });
    await db.write.applicationPassword.update({
      where: { id: row!.id },
      data: { secretHash: await legacyHash(plain) },
    });
    await db.write.applicationPassword.create({
      data: { userId: user.id, name: "older", secretHash: await legacyHash("another-one") },
    });
    await expect(verify(basic("legacy-password", "not-it"))).resolves.toBeNull();
    await expect(verify(basic("legacy-password", user.application_password))).resolves.toMatchObject({
      login: "legacy-password",
      role: "author",
    });
    const stored = await db.read.applicationPassword.findUnique({ where: { id: row!.id } });
    expect(stored!.secretHash).toBe(digestSecret(plain));
    await expect(verify(basic("legacy-password", "another-one"))).resolves.toMatchObject({ login: "legacy-password" });
  });
});

describe("the bootstrap key", () => {
  it("acts as the first administrator, made as `admin` when there is none (or a free name when admin is taken)", async () => {
    await expect(verify(`Bearer ${ADMIN_TOKEN}x`)).resolves.toBeNull();
    await expect(verify(`Bearer ${ADMIN_TOKEN.slice(0, -1)}`)).resolves.toBeNull();
    await createUser(db, { login: "admin", role: "subscriber" });
    const first = await verify(`Bearer ${ADMIN_TOKEN}`);
    expect(first).toMatchObject({ role: "administrator" });
    expect(first!.login).toMatch(/^admin-\d+$/);
    // Ever after, the same one; as bootstrapAdministrator answers, with the user's own id.
    await expect(verify(`bearer ${ADMIN_TOKEN}`)).resolves.toEqual(first);
    await expect(bootstrapAdministrator(db, credentialStore)).resolves.toEqual(first);
    const row = await db.read.user.findUnique({ where: { id: first!.userId } });
    expect([row!.login, row!.role, row!.displayName]).toEqual([first!.login, "administrator", "Administrator"]);
  });

  it("is `admin` on a new installation, made once for many first requests at once", async () => {
    const fresh = await createTestDatabase();
    const freshDb = await openDatabase(loadConfig({ DATABASE_URL: fresh.url }));
    try {
      const made = await Promise.all(Array.from({ length: 5 }, () => bootstrapAdministrator(freshDb, credentialStore)));
      expect(new Set(made.map((principal) => principal.userId)).size).toBe(1);
      expect(made[0]).toMatchObject({ login: "admin", role: "administrator" });
      expect(await freshDb.read.user.count()).toBe(1);
    } finally {
      await freshDb.close();
      await fresh.drop();
    }
  });

  it("opens nothing when the service has none", async () => {
    const without = new CredentialVerifier(db, loadConfig({ DATABASE_URL: database.url }), credentialStore);
    await expect(without.verify("Bearer ", "x")).resolves.toBeNull();
    await expect(without.verify(`Bearer ${ADMIN_TOKEN}`, "x")).resolves.toBeNull();
  });
});

describe("the request's caller", () => {
  const run = async (headers: Record<string, string | undefined>) => {
    const req = { headers, ip: "203.0.113.9", socket: {} } as unknown as Request;
    let passed: unknown = "not called";
    await authenticate(verifier)(req, {} as never, (error?: unknown) => (passed = error));
    return { req, passed };
  };

  it("is anonymous without an Authorization header, or with a blank one", async () => {
    for (const authorization of [undefined, "", "   "]) {
      const { req, passed } = await run({ authorization });
      expect([req.principal, passed]).toEqual([null, undefined]);
    }
  });

  it("is the credential's user, or a 401 that does not say what was wrong", async () => {
    const { req, passed } = await run({ authorization: `Bearer ${editor.api_key}` });
    expect([req.principal, passed]).toEqual([maria(), undefined]);
    const refused = await run({ authorization: "Bearer nope" });
    expect(refused.passed).toBeInstanceOf(ApiError);
    expect([(refused.passed as ApiError).code, (refused.passed as ApiError).status]).toEqual(["rest_forbidden", 401]);
    expect(refused.req.principal).toBeUndefined();
  });

  it("needs every capability the operation requires: 401 when anonymous, 403 when a capability is missing", () => {
    const outcome = (principal: unknown, security?: Array<Record<string, string[]>>, capabilities?: string[]) => {
      let passed: unknown = "not called";
      const schema = { security, "x-required-capabilities": capabilities };
      const req = { principal, openapi: { schema } } as unknown as Request;
      requireOperationScopes(req, {} as never, (error?: unknown) => (passed = error));
      return passed === undefined ? "passed" : [(passed as { status: number }).status, (passed as Error).message];
    };
    const signedIn: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { basicAuth: [] }];
    expect(outcome(null, signedIn)).toEqual([401, "authentication required"]);
    expect(outcome(null, signedIn, ["edit_events"])).toEqual([401, "authentication required"]);
    expect(outcome(maria(), signedIn)).toBe("passed");
    expect(outcome(maria(), signedIn, ["edit_events", "manage_webhooks"])).toEqual([403, "not allowed"]);
    expect(outcome(maria(), signedIn, ["edit_events", "manage_tags"])).toBe("passed");
    expect(outcome(null, [{}, { bearerAuth: [] }], ["manage_webhooks"])).toBe("passed");
    expect(outcome(null, undefined)).toBe("passed");
    expect(outcome(null, [])).toBe("passed");
  });

  it("is told apart by its address", () => {
    expect(clientOf({ ip: "203.0.113.5", socket: { remoteAddress: "10.0.0.1" } } as unknown as Request)).toBe(
      "203.0.113.5",
    );
    expect(clientOf({ socket: { remoteAddress: "10.0.0.1" } } as unknown as Request)).toBe("10.0.0.1");
    expect(clientOf({ socket: {} } as unknown as Request)).toBe("");
  });
});

describe("stored secrets", () => {
  it("are SHA-256 digests for what the service generates, compared in equal time", async () => {
    expect(digestSecret("abc")).toBe("sha256$ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    expect(secretsEqual("same", "same")).toBe(true);
    expect(secretsEqual("same", "Same")).toBe(false);
    expect(secretsEqual("short", "a much longer text")).toBe(false);
    await expect(verifySecret("abc", digestSecret("abc"), "c")).resolves.toBe(true);
    await expect(verifySecret("abd", digestSecret("abc"), "c")).resolves.toBe(false);
  });

  it("of earlier versions are salted scrypt hashes, checked (and remembered) as such; a broken one opens nothing", async () => {
    const stored = await legacyHash("pepper");
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await legacyHash("pepper")).not.toBe(stored);
    for (let round = 0; round < 2; round += 1) {
      await expect(verifySecret("pepper", stored, "c")).resolves.toBe(true);
      await expect(verifySecret("salt", stored, "c")).resolves.toBe(false);
    }
    // Each check is derived once: asked again, the answer is remembered (the queue of slow hashes is not used).
    const [one, two] = [await legacyHash("one"), await legacyHash("two")];
    const before = slowHashes.stats().finished;
    for (const [secret, stored] of [
      ["one", one],
      ["two", two],
      ["one", one],
      ["two", two],
      ["wrong", one],
      ["wrong", one],
    ])
      await verifySecret(secret!, stored!, "c");
    expect(slowHashes.stats().finished - before).toBe(3);
    await expect(verifySecret("pepper", "scrypt$16384$8$1$", "c")).resolves.toBe(false);
    // Costlier parameters than today's still derive (the memory they need is allowed for).
    const fixedSalt = Buffer.from("0123456789abcdef");
    const costly = [
      "scrypt",
      32768,
      8,
      1,
      fixedSalt.toString("base64"),
      scryptSync("pepper", fixedSalt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 << 20 }).toString("base64"),
    ];
    await expect(verifySecret("pepper", costly.join("$"), "c")).resolves.toBe(true);
    await expect(verifySecret("pepper", "scrypt$16384$8$1$c2FsdA==", "c")).resolves.toBe(false);
    const [, n, r, p, salt] = stored.split("$");
    await expect(verifySecret("pepper", ["scrypt", n, r, p, salt, "AAAA"].join("$"), "c")).resolves.toBe(false);
  });
});
