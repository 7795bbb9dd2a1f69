import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Secrets (API keys, application passwords, event passwords) are stored only as scrypt hashes:
 * `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, compared in constant time.
 *
 * One scrypt costs ~40 ms of CPU here, which every authenticated request would pay. So results
 * are remembered per (stored hash, candidate) pair, keyed by a SHA-256 of both: a pure function
 * of its inputs, it can never be stale (a changed or revoked secret is another stored hash, or
 * no row at all), and it holds no secret in the clear.
 */

const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MEMO_LIMIT = 10_000;

function derive(secret: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => scrypt(secret, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

const memo = new Map<string, boolean>();

function remember(key: string, result: boolean): boolean {
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
  memo.set(key, result);
  return result;
}

/** Whether `secret` matches `stored` (a hashSecret result). */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const key = createHash("sha256").update(stored).update("\0").update(secret).digest("base64");
  const known = memo.get(key);
  if (known !== undefined) return known;
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(secret, Buffer.from(salt, "base64"), { N: Number(n), r: Number(r), p: Number(p) });
  return remember(key, expected.length === actual.length && timingSafeEqual(expected, actual));
}

/** A hash of nothing in particular, to spend the same time on unknown logins as on known ones. */
let decoy: Promise<string> | undefined;
export async function spendVerificationTime(secret: string): Promise<void> {
  decoy ??= hashSecret(randomBytes(16).toString("hex"));
  await verifySecret(secret, await decoy);
}
