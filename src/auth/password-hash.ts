import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { slowHashes } from "./slow-hash-queue";

/**
 * How secrets are stored, by how guessable they are:
 * - API keys and application passwords are made by the service (256 and 143 random bits): no one
 *   can guess them from a digest, so a SHA-256 digest is stored (`sha256$<base64url>`), checked in
 *   a microsecond, with no work an attacker can make the service do;
 * - event passwords are chosen by people: they get scrypt (see event-passwords.ts), which makes
 *   each guess at a stolen hash cost ~40 ms of CPU;
 * - credentials made by earlier versions were scrypt hashes with a salt each
 *   (`scrypt$<N>$<r>$<p>$<salt>$<hash>`): they are still checked, through the fair queue of slow
 *   hashes (slow-hash-queue.ts), and the caller replaces them with a digest once one matches.
 */

export const SCRYPT = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MEMO_LIMIT = 10_000;

export function derive(
  secret: string,
  salt: Buffer,
  params: { N: number; r: number; p: number } = SCRYPT,
): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** The stored form of a secret the service generated: its SHA-256 digest. */
export function digestSecret(secret: string): string {
  return `sha256$${createHash("sha256").update(secret).digest("base64url")}`;
}

/** Equal-time comparison of two texts, whatever their lengths. */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

export function isLegacyHash(stored: string): boolean {
  return stored.startsWith("scrypt$");
}

/** A salted scrypt hash in the earlier versions' form (for tests of the upgrade path). */
export async function legacyHash(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

// Results of slow checks, keyed by a digest of the stored hash and the candidate: a pure function
// of its inputs, it can never be stale, and it holds no secret in the clear.
const memo = new Map<string, boolean>();

function remember(key: string, result: boolean): boolean {
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
  memo.set(key, result);
  return result;
}

/**
 * Whether `secret` is the one `stored` was made from: a digest compared at once, or a legacy
 * scrypt hash derived in `client`'s turn of the slow-hash queue.
 */
export async function verifySecret(secret: string, stored: string, client: string): Promise<boolean> {
  if (!isLegacyHash(stored)) return secretsEqual(digestSecret(secret), stored);
  const key = createHash("sha256").update(stored).update("\0").update(secret).digest("base64");
  const known = memo.get(key);
  if (known !== undefined) return known;
  const [, n, r, p, salt, hash] = stored.split("$");
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await slowHashes.run(client, () =>
    derive(secret, Buffer.from(salt, "base64"), { N: Number(n), r: Number(r), p: Number(p) }),
  );
  return remember(key, expected.length === actual.length && timingSafeEqual(expected, actual));
}
