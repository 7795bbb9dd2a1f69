import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/**
 * Signatures of the Standard Webhooks specification (standardwebhooks.com): the secret is
 * "whsec_" + base64 of the key; a message is signed as `${id}.${timestamp}.${body}` with
 * HMAC-SHA256, and the `webhook-signature` header carries "v1," + base64 of the signature
 * (several, space-separated, while a secret is being replaced).
 */

const SECRET_PREFIX = "whsec_";

/** A message id ("msg_..."): sent as `webhook-id` on every attempt of one notification. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString("base64");
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

/** The `webhook-signature` header of a message. */
export function signMessage(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  return (
    "v1," + createHmac("sha256", keyOf(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")
  );
}

/**
 * Whether a message's headers carry a signature of its body by `secret`, made at most
 * `toleranceSeconds` from now (older or newer ones could be replays). What a receiver does.
 */
export function verifyMessage(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signMessage(secret, headers.id, timestamp, body));
  return headers.signature.split(" ").some((given) => {
    const candidate = Buffer.from(given);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
