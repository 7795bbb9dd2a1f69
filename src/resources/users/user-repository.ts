import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import { rowsOf, type RowSource } from "../../db/item-records";
import { insertRowReturningId, instantOf, updateRows } from "../../db/row-writes";
import type { Tx } from "../../db/transaction";
import type { PrincipalRow } from "../../auth/credentials";

/**
 * Every statement on the user tables ("User", "ApiKey", "ApplicationPassword"), and the one that
 * hands a user's items to another. Reads for the command line and the credential check are Prisma
 * calls (one or two statements, noise beside a hash); every write goes through the driver (its
 * transaction: db/driver-transaction.ts), as all of the service's writes do.
 * auth/ receives the credential lookups as CredentialStore (wired in app.ts): it imports no resource.
 */

/** A credential's user, as the credential checks need it (PrincipalRow), selected as PRINCIPAL_SELECT ("u" is the user). */
type PrincipalColumns = { userId: number | bigint; userLogin: string; userRole: string };
const PRINCIPAL_SELECT = Prisma.sql`"u"."id" AS "userId", "u"."login" AS "userLogin", "u"."role" AS "userRole"`;

function principalOf(row: PrincipalColumns): PrincipalRow {
  return { id: Number(row.userId), login: row.userLogin, role: row.userRole };
}

/** The first administrator (by id), if any. */
export async function firstAdministrator(source: RowSource): Promise<{ id: number; login: string } | null> {
  const [row] = await rowsOf(source).rows<{ id: number | bigint; login: string }>(
    Prisma.sql`SELECT "id", "login" FROM "User" WHERE "role" = 'administrator' ORDER BY "id" LIMIT 1`,
  );
  return row ? { id: Number(row.id), login: row.login } : null;
}

/** The id of the user with this login, if any. */
export async function userIdByLogin(source: RowSource, login: string): Promise<number | null> {
  const [row] = await rowsOf(source).rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "User" WHERE "login" = ${login}`,
  );
  return row ? Number(row.id) : null;
}

/** Makes a user without credentials (the bootstrap administrator). */
export async function insertUser(
  tx: Tx,
  data: { login: string; displayName: string; role: string },
  now: Date,
): Promise<{ id: number; login: string }> {
  return { id: await insertRowReturningId(tx, "User", { ...data, createdAt: now }), login: data.login };
}

/** A credential's stored form: an API key's id and secret digest, an application password's digest. */
export interface StoredCredentials {
  key: { keyId: string; secretHash: string };
  password: { secretHash: string };
}

/** Makes a user with an API key and an application password. */
export function insertUserWithCredentials(
  db: Database,
  data: { login: string; displayName: string; email: string | null; role: string },
  credentials: StoredCredentials,
  now: Date,
): Promise<{ id: number; login: string; displayName: string; email: string | null }> {
  return db.transact(async (tx) => {
    const id = await insertRowReturningId(tx, "User", { ...data, createdAt: now });
    await insertCredentialRows(tx, id, credentials, now);
    return { id, login: data.login, displayName: data.displayName, email: data.email };
  });
}

async function insertCredentialRows(tx: Tx, userId: number, credentials: StoredCredentials, now: Date): Promise<void> {
  await insertRowReturningId(tx, "ApiKey", { userId, ...credentials.key, createdAt: now });
  const { secretHash } = credentials.password;
  await insertRowReturningId(tx, "ApplicationPassword", { userId, name: "cli", secretHash, createdAt: now });
}

/** Every user, with the number of their active credentials, by id. */
export async function usersWithCredentialCounts(db: Database): Promise<
  Array<{
    id: number;
    login: string;
    role: string;
    displayName: string;
    email: string | null;
    createdAt: Date;
    activeApiKeys: number;
    activeApplicationPasswords: number;
  }>
> {
  type Count = number | bigint | string;
  const rows = await db.direct.rows<{
    id: number | bigint;
    login: string;
    role: string;
    displayName: string;
    email: string | null;
    createdAt: unknown;
    keys: Count;
    passwords: Count;
  }>(Prisma.sql`SELECT "u"."id", "u"."login", "u"."role", "u"."displayName", "u"."email", "u"."createdAt",
      (SELECT COUNT(*) FROM "ApiKey" "k" WHERE "k"."userId" = "u"."id" AND "k"."revokedAt" IS NULL) AS "keys",
      (SELECT COUNT(*) FROM "ApplicationPassword" "p" WHERE "p"."userId" = "u"."id" AND "p"."revokedAt" IS NULL) AS "passwords"
    FROM "User" "u" ORDER BY "u"."id"`);
  return rows.map(({ keys, passwords, createdAt, ...user }) => ({
    ...user,
    id: Number(user.id),
    createdAt: instantOf(createdAt)!,
    activeApiKeys: Number(keys),
    activeApplicationPasswords: Number(passwords),
  }));
}

/** Gives a user another API key and application password. */
export async function insertCredentials(
  db: Database,
  userId: number,
  credentials: StoredCredentials,
  now: Date,
): Promise<void> {
  await db.transact((tx) => insertCredentialRows(tx, userId, credentials, now));
}

/** How many events, venues and organizers a user is the author of. */
export async function itemsAuthoredBy(tx: Tx, userId: number): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ items: number | bigint | string }>>`SELECT
    (SELECT COUNT(*) FROM "Event" WHERE "authorId" = ${userId}) + (SELECT COUNT(*) FROM "Venue" WHERE "authorId" = ${userId})
    + (SELECT COUNT(*) FROM "Organizer" WHERE "authorId" = ${userId}) AS "items"`;
  return Number(row.items);
}

/** Makes `to` the author of every item of `from`. */
export async function reassignItems(tx: Tx, from: number, to: number): Promise<void> {
  for (const table of ["Event", "Venue", "Organizer"])
    await updateRows(tx, table, Prisma.sql`"authorId" = ${from}`, { authorId: to });
}

/** Deletes a user (their credentials go with them). */
export async function deleteUserRow(tx: Tx, id: number): Promise<void> {
  await tx.$executeRaw`DELETE FROM "User" WHERE "id" = ${id}`;
}

/** Revokes the active API key with this id; how many were. */
export async function revokeApiKey(db: Database, keyId: string, now: Date): Promise<number> {
  const active = Prisma.sql`"keyId" = ${keyId} AND "revokedAt" IS NULL`;
  return db.transact((tx) => updateRows(tx, "ApiKey", active, { revokedAt: now }));
}

/** Revokes every active credential of a user; how many of each were. */
export async function revokeCredentialsOf(
  db: Database,
  userId: number,
  now: Date,
): Promise<{ keys: number; passwords: number }> {
  const active = Prisma.sql`"userId" = ${userId} AND "revokedAt" IS NULL`;
  return db.transact(async (tx) => ({
    keys: await updateRows(tx, "ApiKey", active, { revokedAt: now }),
    passwords: await updateRows(tx, "ApplicationPassword", active, { revokedAt: now }),
  }));
}

/** The API key with this id, with its user. */
export async function apiKeyById(
  db: Database,
  keyId: string,
): Promise<{ id: number; secretHash: string; revokedAt: Date | null; user: PrincipalRow } | null> {
  const [row] = await db.direct.rows<
    PrincipalColumns & { keyRowId: number | bigint; secretHash: string; revokedAt: unknown }
  >(
    Prisma.sql`SELECT "k"."id" AS "keyRowId", "k"."secretHash", "k"."revokedAt", ${PRINCIPAL_SELECT}
      FROM "ApiKey" "k" JOIN "User" "u" ON "u"."id" = "k"."userId" WHERE "k"."keyId" = ${keyId}`,
  );
  return row
    ? {
        id: Number(row.keyRowId),
        secretHash: row.secretHash,
        revokedAt: instantOf(row.revokedAt),
        user: principalOf(row),
      }
    : null;
}

/** Stores an API key's secret in its current form (a digest). */
export async function saveApiKeyHash(db: Database, id: number, secretHash: string): Promise<void> {
  await db.transact((tx) => updateRows(tx, "ApiKey", Prisma.sql`"id" = ${id}`, { secretHash }));
}

/**
 * Whose application password a Basic credential's name asks for: the user of that login, or, as
 * WordPress takes one, a user whose e-mail address it is (in any case), when it is one.
 */
function passwordOwnerIs(login: string): Prisma.Sql {
  if (!login.includes("@")) return Prisma.sql`"u"."login" = ${login}`;
  return Prisma.sql`("u"."login" = ${login} OR lower("u"."email") = ${login.toLowerCase()})`;
}

/** The user of an active application password of `login` (or of that e-mail address) whose digest is `secretHash`. */
export async function applicationPasswordUser(
  db: Database,
  login: string,
  secretHash: string,
): Promise<PrincipalRow | null> {
  // A login first, where one user's login is another's address.
  const [row] = await db.direct.rows<PrincipalColumns>(
    Prisma.sql`SELECT ${PRINCIPAL_SELECT} FROM "ApplicationPassword" "p" JOIN "User" "u" ON "u"."id" = "p"."userId"
      WHERE "p"."revokedAt" IS NULL AND ${passwordOwnerIs(login)} AND "p"."secretHash" = ${secretHash}
      ORDER BY CASE WHEN "u"."login" = ${login} THEN 0 ELSE 1 END LIMIT 1`,
  );
  return row ? principalOf(row) : null;
}

/** The active application passwords of `login` stored as salted hashes of earlier versions. */
export async function legacyApplicationPasswords(
  db: Database,
  login: string,
): Promise<Array<{ id: number; secretHash: string; user: PrincipalRow }>> {
  const rows = await db.direct.rows<PrincipalColumns & { passwordRowId: number | bigint; secretHash: string }>(
    Prisma.sql`SELECT "p"."id" AS "passwordRowId", "p"."secretHash", ${PRINCIPAL_SELECT}
      FROM "ApplicationPassword" "p" JOIN "User" "u" ON "u"."id" = "p"."userId"
      WHERE "p"."revokedAt" IS NULL AND ${passwordOwnerIs(login)} AND substr("p"."secretHash", 1, 7) = 'scrypt$'
      ORDER BY "p"."id"`,
  );
  return rows.map((row) => ({ id: Number(row.passwordRowId), secretHash: row.secretHash, user: principalOf(row) }));
}

/** Stores an application password's secret in its current form (a digest). */
export async function saveApplicationPasswordHash(db: Database, id: number, secretHash: string): Promise<void> {
  await db.transact((tx) => updateRows(tx, "ApplicationPassword", Prisma.sql`"id" = ${id}`, { secretHash }));
}
