import type { Database } from "../../db/database";
import type { Tx } from "../../db/transaction";

/**
 * Every statement on the user tables ("User", "ApiKey", "ApplicationPassword"), and the one that
 * hands a user's items to another. All Prisma calls: these are the command line's and the
 * credential check's, one or two statements each, where Prisma's cost is noise beside a hash.
 * auth/ receives the credential lookups as CredentialStore (wired in app.ts): it imports no resource.
 */

const PRINCIPAL_COLUMNS = { id: true, login: true, role: true } as const;

/** The first administrator (by id), if any. */
export function firstAdministrator(client: Database["read"] | Tx): Promise<{ id: number; login: string } | null> {
  return client.user.findFirst({
    where: { role: "administrator" },
    orderBy: { id: "asc" },
    select: { id: true, login: true },
  });
}

/** The id of the user with this login, if any. */
export async function userIdByLogin(client: Database["read"] | Tx, login: string): Promise<number | null> {
  return (await client.user.findUnique({ where: { login }, select: { id: true } }))?.id ?? null;
}

/** Makes a user without credentials (the bootstrap administrator). */
export function insertUser(
  tx: Tx,
  data: { login: string; displayName: string; role: string },
): Promise<{ id: number; login: string }> {
  return tx.user.create({ data, select: { id: true, login: true } });
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
) {
  return db.write.user.create({
    data: {
      ...data,
      apiKeys: { create: credentials.key },
      applicationPasswords: { create: { name: "cli", secretHash: credentials.password.secretHash } },
    },
    select: { id: true, login: true, displayName: true, email: true },
  });
}

/** Every user, with the number of their active credentials, by id. */
export function usersWithCredentialCounts(db: Database) {
  return db.read.user.findMany({
    orderBy: { id: "asc" },
    select: {
      id: true,
      login: true,
      role: true,
      displayName: true,
      email: true,
      createdAt: true,
      _count: {
        select: { apiKeys: { where: { revokedAt: null } }, applicationPasswords: { where: { revokedAt: null } } },
      },
    },
  });
}

/** Gives a user another API key and application password. */
export async function insertCredentials(db: Database, userId: number, credentials: StoredCredentials): Promise<void> {
  await db.write.$transaction([
    db.write.apiKey.create({ data: { userId, ...credentials.key } }),
    db.write.applicationPassword.create({ data: { userId, name: "cli", secretHash: credentials.password.secretHash } }),
  ]);
}

/** How many events, venues and organizers a user is the author of. */
export async function itemsAuthoredBy(tx: Tx, userId: number): Promise<number> {
  const where = { authorId: userId };
  return (await tx.event.count({ where })) + (await tx.venue.count({ where })) + (await tx.organizer.count({ where }));
}

/** Makes `to` the author of every item of `from`. */
export async function reassignItems(tx: Tx, from: number, to: number): Promise<void> {
  const where = { authorId: from };
  const data = { authorId: to };
  await tx.event.updateMany({ where, data });
  await tx.venue.updateMany({ where, data });
  await tx.organizer.updateMany({ where, data });
}

/** Deletes a user (their credentials go with them). */
export async function deleteUserRow(tx: Tx, id: number): Promise<void> {
  await tx.user.delete({ where: { id } });
}

/** Revokes the active API key with this id; how many were. */
export async function revokeApiKey(db: Database, keyId: string, now: Date): Promise<number> {
  return (await db.write.apiKey.updateMany({ where: { keyId, revokedAt: null }, data: { revokedAt: now } })).count;
}

/** Revokes every active credential of a user; how many of each were. */
export async function revokeCredentialsOf(
  db: Database,
  userId: number,
  now: Date,
): Promise<{ keys: number; passwords: number }> {
  const keys = await db.write.apiKey.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
  const passwords = await db.write.applicationPassword.updateMany({
    where: { userId, revokedAt: null },
    data: { revokedAt: now },
  });
  return { keys: keys.count, passwords: passwords.count };
}

/** The API key with this id, with its user. */
export function apiKeyById(db: Database, keyId: string) {
  return db.read.apiKey.findUnique({
    where: { keyId },
    select: { id: true, secretHash: true, revokedAt: true, user: { select: PRINCIPAL_COLUMNS } },
  });
}

/** Stores an API key's secret in its current form (a digest). */
export async function saveApiKeyHash(db: Database, id: number, secretHash: string): Promise<void> {
  await db.write.apiKey.update({ where: { id }, data: { secretHash } });
}

/** The user of an active application password of `login` whose digest is `secretHash`. */
export async function applicationPasswordUser(db: Database, login: string, secretHash: string) {
  const match = await db.read.applicationPassword.findFirst({
    where: { revokedAt: null, user: { login }, secretHash },
    select: { user: { select: PRINCIPAL_COLUMNS } },
  });
  return match?.user ?? null;
}

/** The active application passwords of `login` stored as salted hashes of earlier versions. */
export function legacyApplicationPasswords(db: Database, login: string) {
  return db.read.applicationPassword.findMany({
    where: { revokedAt: null, user: { login }, secretHash: { startsWith: "scrypt$" } },
    select: { id: true, secretHash: true, user: { select: PRINCIPAL_COLUMNS } },
  });
}

/** Stores an application password's secret in its current form (a digest). */
export async function saveApplicationPasswordHash(db: Database, id: number, secretHash: string): Promise<void> {
  await db.write.applicationPassword.update({ where: { id }, data: { secretHash } });
}
