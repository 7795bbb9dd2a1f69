import { createHash, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/database";
import { siteSecret } from "../db/site-secrets";
import { derive, isLegacyHash, SCRYPT, verifySecret } from "./password-hash";
import { slowHashes } from "./slow-hash-queue";

/**
 * Event passwords (docs/compatibility.md §3.6) are chosen by people, so they are stored as scrypt hashes,
 * which make each guess at a stolen one cost ~40 ms. They share one salt, the site's
 * (SiteSecret "event-password-salt", made by a migration): the hash of a password is then the
 * same for every event it protects, so a request's password is derived once and compared with
 * every event of a page, or looked for by the database (a search keeps out what it cannot open).
 * A salt per event would make a page of fifty protected events fifty derivations, which anyone
 * could ask for with a made-up password. (WordPress stores post passwords in the clear.)
 *
 * Hashes made by earlier versions (a salt each, `scrypt$...`) still open their event's single GET,
 * one derivation in the caller's turn of the slow-hash queue; in lists they stay redacted until the
 * password is set again.
 */

const PREFIX = "site-scrypt";
const MEMO_LIMIT = 10_000;

/** What a request's password opens. */
export interface PasswordKey {
  /** The stored form of the request's password (null: the request gives none). */
  hash: string | null;
  /** Whether an event whose stored password hash is `stored` is open to the request (a page's check: no derivation). */
  opens(stored: string | null): boolean;
}

export class EventPasswords {
  private salt: Promise<Buffer> | undefined;
  private readonly memo = new Map<string, string>();

  constructor(private readonly db: Database) {}

  private siteSalt(): Promise<Buffer> {
    this.salt ??= siteSecret(this.db, "event-password-salt", "the event password salt");
    return this.salt;
  }

  /** The stored form of `password`: derived once per process and password, in `client`'s turn. */
  async hash(password: string, client: string): Promise<string> {
    const key = createHash("sha256").update(password).digest("base64");
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const salt = await this.siteSalt();
    const derived = await slowHashes.run(client, () => derive(password, salt));
    const stored = [PREFIX, SCRYPT.N, SCRYPT.r, SCRYPT.p, derived.toString("base64")].join("$");
    if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, stored);
    return stored;
  }

  /** What the request's `password` opens: one derivation at most, whatever the page holds. */
  async keyOf(password: string | undefined, client: string): Promise<PasswordKey> {
    const hash = password === undefined ? null : await this.hash(password, client);
    return {
      hash,
      opens: (stored) => stored === null || (hash !== null && !isLegacyHash(stored) && equal(stored, hash)),
    };
  }

  /** Whether `password` opens one event (its single GET): an earlier version's hash is derived here, in `client`'s turn. */
  async opensOne(stored: string, password: string | undefined, client: string): Promise<boolean> {
    if (password === undefined) return false;
    if (isLegacyHash(stored)) return verifySecret(password, stored, client);
    return equal(stored, await this.hash(password, client));
  }
}

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
