import type { Database } from "../../db/database";
import { inTransaction } from "../../db/transaction";
import {
  deleteUserRow,
  insertCredentials,
  insertUserWithCredentials,
  itemsAuthoredBy,
  reassignItems,
  revokeApiKey,
  revokeCredentialsOf,
  userIdByLogin,
  usersWithCredentialCounts,
} from "./user-repository";
import { apiKeyId, newApiKey, newApplicationPassword } from "../../auth/credentials";
import { ROLES, isRole, type Role } from "../../auth/roles";

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

export async function createUser(
  db: Database,
  input: { login: string; role: string; displayName?: string; email?: string },
): Promise<CreatedUser> {
  if (!LOGIN.test(input.login)) throw new UserAdminError("--login must be 1 to 60 letters, digits or . _ @ -");
  if (!isRole(input.role)) throw new UserAdminError(`--role must be one of ${ROLES.join(", ")}`);
  const role = input.role;
  if ((await userIdByLogin(db, input.login)) !== null)
    throw new UserAdminError(`a user with login ${input.login} exists`);
  const key = newApiKey();
  const password = newApplicationPassword();
  const data = { login: input.login, displayName: input.displayName ?? input.login, email: input.email ?? null, role };
  const user = await insertUserWithCredentials(
    db,
    data,
    {
      key: { keyId: key.keyId, secretHash: key.secretHash },
      password,
    },
    new Date(),
  );
  return {
    id: user.id,
    login: user.login,
    role,
    display_name: user.displayName,
    email: user.email,
    api_key: key.apiKey,
    application_password: password.password,
  };
}

export async function listUsers(db: Database) {
  const users = await usersWithCredentialCounts(db);
  return users.map((user) => ({
    id: user.id,
    login: user.login,
    role: user.role,
    display_name: user.displayName,
    email: user.email,
    created_at: user.createdAt.toISOString(),
    active_api_keys: user.activeApiKeys,
    active_application_passwords: user.activeApplicationPasswords,
  }));
}

async function userId(db: Database, login: string): Promise<number> {
  const id = await userIdByLogin(db, login);
  if (id === null) throw new UserAdminError(`no user with login ${login}`);
  return id;
}

/** A new API key (and application password) for an existing user. */
export async function issueCredentials(
  db: Database,
  login: string,
): Promise<{ login: string; api_key: string; application_password: string }> {
  const id = await userId(db, login);
  const key = newApiKey();
  const password = newApplicationPassword();
  await insertCredentials(db, id, { key: { keyId: key.keyId, secretHash: key.secretHash }, password }, new Date());
  return { login, api_key: key.apiKey, application_password: password.password };
}

/**
 * Deletes a user. Their events, venues and organizers go to `reassignTo`; a user who owns items
 * cannot be deleted without one, so that no content is lost by accident.
 */
export async function deleteUser(
  db: Database,
  login: string,
  reassignTo?: string,
): Promise<{ deleted: string; reassigned_to: string | null; items_reassigned: number }> {
  const id = await userId(db, login);
  const target = reassignTo === undefined ? null : await userId(db, reassignTo);
  if (target === id) throw new UserAdminError("--reassign-to must be another user");
  // inTransaction: the reassigned items are changes of the sync log, positioned as it ends.
  return inTransaction(db, async (tx) => {
    const owned = await itemsAuthoredBy(tx, id);
    if (owned > 0 && target === null)
      throw new UserAdminError(`${login} owns ${owned} events, venues or organizers: give --reassign-to <login>`);
    if (target !== null) await reassignItems(tx, id, target);
    await deleteUserRow(tx, id);
    return { deleted: login, reassigned_to: reassignTo ?? null, items_reassigned: owned };
  });
}

/** Revokes one API key (given as the key or its id), or every credential of a user. */
export async function revokeKeys(
  db: Database,
  target: { key?: string; login?: string },
): Promise<{ revoked_api_keys: number; revoked_application_passwords: number }> {
  const now = new Date();
  if (target.key !== undefined) {
    const keyId = apiKeyId(target.key) ?? target.key;
    const count = await revokeApiKey(db, keyId, now);
    if (count === 0) throw new UserAdminError("no active API key matches --key");
    return { revoked_api_keys: count, revoked_application_passwords: 0 };
  }
  if (target.login !== undefined) {
    const id = await userId(db, target.login);
    const { keys, passwords } = await revokeCredentialsOf(db, id, now);
    return { revoked_api_keys: keys, revoked_application_passwords: passwords };
  }
  throw new UserAdminError("give --key <api key or key id> or --login <login>");
}
