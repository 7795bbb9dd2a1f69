import type { Database } from "../db/database";
import { inTransaction } from "../db/transaction";
import { apiKeyId, newApiKey, newApplicationPassword } from "./credentials";
import { ROLES, isRole, type Role } from "./roles";

/** What the `npm run cli` commands do to users and their credentials. */

export class UserAdminError extends Error {}

const LOGIN = /^[A-Za-z0-9._@-]{1,60}$/;

export interface CreatedUser {
  id: number;
  login: string;
  role: Role;
  display_name: string;
  email: string | null;
  /** Shown once: only its hash is stored. */
  api_key: string;
  /** Shown once: only its hash is stored. Send it as HTTP Basic `login:password`. */
  application_password: string;
}

export async function createUser(db: Database, input: { login: string; role: string; displayName?: string; email?: string }): Promise<CreatedUser> {
  if (!LOGIN.test(input.login)) throw new UserAdminError("--login must be 1 to 60 letters, digits or . _ @ -");
  if (!isRole(input.role)) throw new UserAdminError(`--role must be one of ${ROLES.join(", ")}`);
  const role = input.role;
  if (await db.read.user.findUnique({ where: { login: input.login }, select: { id: true } })) throw new UserAdminError(`a user with login ${input.login} exists`);
  const key = newApiKey();
  const password = newApplicationPassword();
  const user = await db.write.user.create({
    data: {
      login: input.login,
      displayName: input.displayName ?? input.login,
      email: input.email ?? null,
      role,
      apiKeys: { create: { keyId: key.keyId, secretHash: key.secretHash } },
      applicationPasswords: { create: { name: "cli", secretHash: password.secretHash } },
    },
    select: { id: true, login: true, displayName: true, email: true },
  });
  return { id: user.id, login: user.login, role, display_name: user.displayName, email: user.email, api_key: key.apiKey, application_password: password.password };
}

export async function listUsers(db: Database) {
  const users = await db.read.user.findMany({
    orderBy: { id: "asc" },
    select: {
      id: true,
      login: true,
      role: true,
      displayName: true,
      email: true,
      createdAt: true,
      _count: { select: { apiKeys: { where: { revokedAt: null } }, applicationPasswords: { where: { revokedAt: null } } } },
    },
  });
  return users.map((user) => ({
    id: user.id,
    login: user.login,
    role: user.role,
    display_name: user.displayName,
    email: user.email,
    created_at: user.createdAt.toISOString(),
    active_api_keys: user._count.apiKeys,
    active_application_passwords: user._count.applicationPasswords,
  }));
}

async function userId(db: Database, login: string): Promise<number> {
  const user = await db.read.user.findUnique({ where: { login }, select: { id: true } });
  if (!user) throw new UserAdminError(`no user with login ${login}`);
  return user.id;
}

/** A new API key (and application password) for an existing user. */
export async function issueCredentials(db: Database, login: string): Promise<{ login: string; api_key: string; application_password: string }> {
  const id = await userId(db, login);
  const key = newApiKey();
  const password = newApplicationPassword();
  await db.write.$transaction([
    db.write.apiKey.create({ data: { userId: id, keyId: key.keyId, secretHash: key.secretHash } }),
    db.write.applicationPassword.create({ data: { userId: id, name: "cli", secretHash: password.secretHash } }),
  ]);
  return { login, api_key: key.apiKey, application_password: password.password };
}

/**
 * Deletes a user. Their events, venues and organizers go to `reassignTo`; a user who owns items
 * cannot be deleted without one, so that no content is lost by accident.
 */
export async function deleteUser(db: Database, login: string, reassignTo?: string): Promise<{ deleted: string; reassigned_to: string | null; items_reassigned: number }> {
  const id = await userId(db, login);
  const target = reassignTo === undefined ? null : await userId(db, reassignTo);
  if (target === id) throw new UserAdminError("--reassign-to must be another user");
  // inTransaction: the reassigned items are changes of the sync log, positioned as it ends.
  return inTransaction(db, async (tx) => {
    const owned = (await tx.event.count({ where: { authorId: id } })) + (await tx.venue.count({ where: { authorId: id } })) + (await tx.organizer.count({ where: { authorId: id } }));
    if (owned > 0 && target === null) throw new UserAdminError(`${login} owns ${owned} events, venues or organizers: give --reassign-to <login>`);
    if (target !== null) {
      await tx.event.updateMany({ where: { authorId: id }, data: { authorId: target } });
      await tx.venue.updateMany({ where: { authorId: id }, data: { authorId: target } });
      await tx.organizer.updateMany({ where: { authorId: id }, data: { authorId: target } });
    }
    await tx.user.delete({ where: { id } });
    return { deleted: login, reassigned_to: reassignTo ?? null, items_reassigned: owned };
  });
}

/** Revokes one API key (given as the key or its id), or every credential of a user. */
export async function revokeKeys(db: Database, target: { key?: string; login?: string }): Promise<{ revoked_api_keys: number; revoked_application_passwords: number }> {
  const now = new Date();
  if (target.key !== undefined) {
    const keyId = apiKeyId(target.key) ?? target.key;
    const { count } = await db.write.apiKey.updateMany({ where: { keyId, revokedAt: null }, data: { revokedAt: now } });
    if (count === 0) throw new UserAdminError("no active API key matches --key");
    return { revoked_api_keys: count, revoked_application_passwords: 0 };
  }
  if (target.login !== undefined) {
    const id = await userId(db, target.login);
    const keys = await db.write.apiKey.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
    const passwords = await db.write.applicationPassword.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
    return { revoked_api_keys: keys.count, revoked_application_passwords: passwords.count };
  }
  throw new UserAdminError("give --key <api key or key id> or --login <login>");
}
