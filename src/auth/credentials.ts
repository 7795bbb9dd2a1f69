import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Config } from "../config";
import type { Database } from "../db/database";
import { inTransaction, lockFor } from "../db/transaction";
import { hashSecret, spendVerificationTime, verifySecret } from "./password-hash";
import type { Principal } from "./principal";
import { isRole } from "./roles";

/**
 * The credentials the API accepts:
 * - `Authorization: Bearer cal_<key id>_<secret>`: an API key (the id finds it, the secret is
 *   checked against its hash);
 * - `Authorization: Basic base64(login:application password)`: what WordPress clients send;
 * - `Authorization: Bearer <CALENDAR_ADMIN_TOKEN>`: the bootstrap administrator.
 * Revocation is read from the database on every request, so it takes effect at once everywhere.
 */

const API_KEY = /^cal_([a-f0-9]{16})_([A-Za-z0-9_-]{43})$/;

/** Equal-time comparison of two secrets, whatever their lengths. */
export function secretsEqual(a: string, b: string): boolean {
  const digestA = createHash("sha256").update(a).digest();
  const digestB = createHash("sha256").update(b).digest();
  return timingSafeEqual(digestA, digestB);
}

export interface IssuedApiKey {
  keyId: string;
  apiKey: string;
  secretHash: string;
}

export async function newApiKey(): Promise<IssuedApiKey> {
  const keyId = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { keyId, apiKey: `cal_${keyId}_${secret}`, secretHash: await hashSecret(secret) };
}

/** The key id of an API key (to revoke it), or null when the text is not one. */
export function apiKeyId(apiKey: string): string | null {
  return API_KEY.exec(apiKey)?.[1] ?? null;
}

/** A WordPress-style application password: 24 letters and digits, shown in groups of four. */
export async function newApplicationPassword(): Promise<{ password: string; secretHash: string }> {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const bytes = randomBytes(24);
  const plain = Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join("");
  return { password: plain.match(/.{4}/g)!.join(" "), secretHash: await hashSecret(plain) };
}

const BOOTSTRAP_LOGIN = "admin";

/**
 * The user the bootstrap key acts as: the first administrator, created as `admin` when there is
 * none. Looked up on every use rather than remembered, so that another instance, or a user
 * deleted meanwhile, can never leave this one with a stale id.
 */
export async function bootstrapAdministrator(db: Database): Promise<Principal> {
  const existing = await db.read.user.findFirst({ where: { role: "administrator" }, orderBy: { id: "asc" }, select: { id: true, login: true } });
  if (existing) return { userId: existing.id, login: existing.login, role: "administrator" };
  const created = await inTransaction(db, async (tx) => {
    // Many first requests may arrive at once on a new install: one creates, the others find it.
    await lockFor(db, tx, "bootstrap-administrator");
    const again = await tx.user.findFirst({ where: { role: "administrator" }, orderBy: { id: "asc" }, select: { id: true, login: true } });
    if (again) return again;
    const taken = await tx.user.findUnique({ where: { login: BOOTSTRAP_LOGIN }, select: { id: true } });
    const login = taken ? `${BOOTSTRAP_LOGIN}-${Date.now()}` : BOOTSTRAP_LOGIN;
    return tx.user.create({ data: { login, displayName: "Administrator", role: "administrator" }, select: { id: true, login: true } });
  });
  return { userId: created.id, login: created.login, role: "administrator" };
}

function principalOf(user: { id: number; login: string; role: string }): Principal | null {
  return isRole(user.role) ? { userId: user.id, login: user.login, role: user.role } : null;
}

export class CredentialVerifier {
  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  /** The principal an `Authorization` header stands for, or null when it is not valid. */
  async verify(authorization: string): Promise<Principal | null> {
    const [scheme, value = ""] = authorization.trim().split(/ +/, 2);
    if (/^bearer$/i.test(scheme)) return this.bearer(value);
    if (/^basic$/i.test(scheme)) return this.basic(value);
    return null;
  }

  private async bearer(token: string): Promise<Principal | null> {
    const key = API_KEY.exec(token);
    if (key) {
      const row = await this.db.read.apiKey.findUnique({
        where: { keyId: key[1] },
        select: { secretHash: true, revokedAt: true, user: { select: { id: true, login: true, role: true } } },
      });
      if (!row || row.revokedAt !== null) {
        await spendVerificationTime(key[2]);
        return null;
      }
      return (await verifySecret(key[2], row.secretHash)) ? principalOf(row.user) : null;
    }
    if (this.config.adminToken && secretsEqual(token, this.config.adminToken)) return bootstrapAdministrator(this.db);
    return null;
  }

  private async basic(encoded: string): Promise<Principal | null> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 1) return null;
    const login = decoded.slice(0, colon);
    // Application passwords are shown with spaces between groups; clients may send them either way.
    const password = decoded.slice(colon + 1).replace(/\s+/g, "");
    const user = await this.db.read.user.findUnique({
      where: { login },
      select: { id: true, login: true, role: true, applicationPasswords: { where: { revokedAt: null }, select: { secretHash: true } } },
    });
    if (!user || user.applicationPasswords.length === 0) {
      await spendVerificationTime(password);
      return null;
    }
    for (const { secretHash } of user.applicationPasswords) {
      if (await verifySecret(password, secretHash)) return principalOf(user);
    }
    return null;
  }
}
