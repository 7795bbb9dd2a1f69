import { createHash, timingSafeEqual } from "node:crypto";
import type { Config } from "../config";
import type { Database } from "../db/database";
import type { Principal } from "./principal";
import { isRole } from "./roles";

/** Equal-time comparison of two secrets, whatever their lengths. */
export function secretsEqual(a: string, b: string): boolean {
  const digestA = createHash("sha256").update(a).digest();
  const digestB = createHash("sha256").update(b).digest();
  return timingSafeEqual(digestA, digestB);
}

const BOOTSTRAP_LOGIN = "admin";

/**
 * The user the bootstrap key (CALENDAR_ADMIN_TOKEN) acts as: the first administrator, created
 * as `admin` when there is none. Looked up on every use rather than remembered, so that another
 * instance, or a user deleted meanwhile, can never leave this one with a stale id.
 */
export async function bootstrapAdministrator(db: Database): Promise<Principal> {
  const existing = await db.read.user.findFirst({ where: { role: "administrator" }, orderBy: { id: "asc" }, select: { id: true, login: true } });
  if (existing) return { userId: existing.id, login: existing.login, role: "administrator" };
  const created = await db.write.$transaction(async (tx) => {
    const again = await tx.user.findFirst({ where: { role: "administrator" }, orderBy: { id: "asc" }, select: { id: true, login: true } });
    if (again) return again;
    const taken = await tx.user.findUnique({ where: { login: BOOTSTRAP_LOGIN }, select: { id: true } });
    const login = taken ? `${BOOTSTRAP_LOGIN}-${Date.now()}` : BOOTSTRAP_LOGIN;
    return tx.user.create({ data: { login, displayName: "Administrator", role: "administrator" }, select: { id: true, login: true } });
  });
  return { userId: created.id, login: created.login, role: "administrator" };
}

export class CredentialVerifier {
  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  /** The principal an `Authorization` header stands for, or null when it is not valid. */
  async verify(authorization: string): Promise<Principal | null> {
    const bearer = /^Bearer +([\x21-\x7e]+)$/i.exec(authorization.trim());
    if (!bearer) return null;
    const token = bearer[1];
    if (this.config.adminToken && secretsEqual(token, this.config.adminToken)) {
      const principal = await bootstrapAdministrator(this.db);
      return isRole(principal.role) ? principal : null;
    }
    return null;
  }
}
