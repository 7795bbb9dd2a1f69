import type { RequestHandler } from "express";
import { clientOf } from "../auth/authenticate";
import { ApiError } from "./errors";
import { isWarmUpMessage } from "./warm-up-marker";

/** Addresses tracked at most: past it the oldest go first, so a flood of addresses cannot exhaust memory. */
const MAX_CLIENTS = 100_000;
const SWEEP_EVERY_MS = 60_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Requests per client address (`req.ip`: behind a proxy, set TRUST_PROXY so that it is the
 * client's), as a token bucket: `perMinute` requests in a burst, refilled at `perMinute` a minute.
 * Past it, 429 `rest_too_many_requests` with `Retry-After` (seconds until the next request is
 * allowed). Every answer says where the client stands, in the IETF httpapi draft's headers:
 * `RateLimit-Policy: "per-address";q=<perMinute>;w=60` and `RateLimit: "per-address";r=<requests
 * left>;t=<seconds until all are available again>`. Each process counts on its own: with N
 * instances a client gets up to N times the limit, which is what a per-instance limit can promise
 * (see the README for a shared one).
 */
export function rateLimit(perMinute: number, now: () => number = Date.now): RequestHandler {
  if (perMinute === 0) return (_req, _res, next) => next();
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, Bucket>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [client, bucket] of buckets)
      if (bucket.tokens + (at - bucket.at) * perMs >= perMinute) buckets.delete(client);
  }, SWEEP_EVERY_MS);
  sweep.unref();

  // The policy (draft-ietf-httpapi-ratelimit-headers): `perMinute` requests per 60-second window.
  const policy = `"per-address";q=${perMinute};w=60`;
  return (req, res, next) => {
    // The process's own warm-up (warm-up.ts) is no client's: it spent the loopback's tokens, which
    // a proxy on the same host without TRUST_PROXY shares with every visitor.
    if (isWarmUpMessage(req.headers)) return next();
    const client = clientOf(req);
    const at = now();
    let bucket = buckets.get(client);
    if (bucket) {
      bucket.tokens = Math.min(perMinute, bucket.tokens + (at - bucket.at) * perMs);
      bucket.at = at;
    } else {
      if (buckets.size >= MAX_CLIENTS) buckets.delete(buckets.keys().next().value!);
      bucket = { tokens: perMinute, at };
      buckets.set(client, bucket);
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    // What is left (whole requests) and the seconds until the bucket is full again.
    res.setHeader("RateLimit-Policy", policy);
    res.setHeader(
      "RateLimit",
      `"per-address";r=${Math.floor(bucket.tokens)};t=${Math.ceil((perMinute - bucket.tokens) / perMs / 1000)}`,
    );
    if (allowed) return next();
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
    next(new ApiError("rest_too_many_requests", {}, {}, undefined, { "Retry-After": String(retryAfterSeconds) }));
  };
}
