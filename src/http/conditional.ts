import { createHash, type Hash } from "node:crypto";
import type { Request, Response } from "express";
import { asksForFields, shapedBody } from "./response-shaping";
import { yieldToEventLoop } from "../event-loop";

/**
 * Conditional requests (RFC 9110 §13), what lets a client revalidate a copy it has and make a
 * read-modify-write safe:
 * - every representation the API sends with a 200 to GET carries a strong `ETag`: of a list, a
 *   digest of its exact bytes; of an item, a digest of the item's state (stateTag), which changes
 *   whenever the item or anything it shows is written, and not when a release renders it otherwise;
 * - a GET whose `If-None-Match` names the current tag gets `304 Not Modified` without a body,
 *   whatever `Cache-Control` the request has (fetch() adds `no-cache` to every request with a
 *   conditional header, and Express's own `req.fresh` then answers 200 every time);
 * - a write whose `If-Match` does not name the current tag of the item's representation (as a GET
 *   of the same URL by the same caller would give it), or names `*` where there is no item, gets
 *   `412 rest_precondition_failed` (see auth/write-targets.ts).
 */

/** A strong entity tag of a representation: a digest of its exact bytes. */
export function entityTag(body: string): string {
  return tagOfDigest(createHash("sha256").update(body));
}

/**
 * The entity tag of one item: a digest of its state (its id, its count of writes, those of the
 * items it shows, the language and the reader), not of the bytes a version of the service renders
 * it in. Two releases serving side by side (a rolling upgrade) give an unchanged item the same tag,
 * so an `If-Match` read from one is honoured by the other.
 */
export function stateTag(state: readonly unknown[]): string {
  return entityTag(JSON.stringify(["item-state-1", ...state]));
}

function tagOfDigest(hash: Hash): string {
  return `"${hash.digest("base64url").slice(0, 27)}"`;
}

/** Characters hashed or written between two turns of the event loop. */
const CHARACTERS_PER_SLICE = 1 << 20;
/**
 * Parts are joined into writes of about this many characters: each write is a call into the
 * compressor, and a feed's thousand small ones cost more than the compression (the gzipped feed of
 * 1,000 events took 130 ms a request written part by part, 75 ms so).
 */
const CHARACTERS_PER_WRITE = 1 << 16;

/** The entity tag of a large representation given in parts (entityTag of their concatenation), the event loop free every megabyte. */
export async function entityTagOfParts(parts: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  let sliced = 0;
  for (const part of parts) {
    hash.update(part);
    sliced += part.length;
    if (sliced >= CHARACTERS_PER_SLICE) {
      sliced = 0;
      await yieldToEventLoop();
    }
  }
  return tagOfDigest(hash);
}

/**
 * Writes a large body given in parts and ends the response, the event loop free every megabyte.
 * It does not wait for `drain`: the parts are in memory already, so what the socket has not taken
 * yet costs at most one more copy, and compression's stream takes `drain` listeners that a
 * response cannot remove (one pair per wait piled up).
 */
export async function writeParts(res: Response, parts: readonly string[]): Promise<void> {
  let sliced = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  for (const part of parts) {
    if (res.destroyed) return;
    pending.push(part);
    pendingLength += part.length;
    if (pendingLength >= CHARACTERS_PER_WRITE) {
      res.write(pending.join(""));
      sliced += pendingLength;
      pending = [];
      pendingLength = 0;
    }
    if (sliced >= CHARACTERS_PER_SLICE) {
      sliced = 0;
      await yieldToEventLoop();
    }
  }
  res.end(pending.join(""));
}

/** The tag of `body` as the API serializes it. */
export function entityTagOf(body: unknown): string {
  return entityTag(JSON.stringify(body));
}

/** The tags of an If-Match header: `*`, a list, or null when the request has none. */
export type IfMatch = "*" | string[] | null;

export function ifMatchOf(req: Request): IfMatch {
  const header = req.headers["if-match"];
  if (header === undefined) return null;
  if (header.trim() === "*") return "*";
  return header
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/**
 * Whether If-Match holds for an item whose current tags are `current` (null: there is no item;
 * several: the tags the item is known by now). A strong comparison: a weak tag (`W/"..."`) never
 * matches.
 */
export function ifMatchHolds(ifMatch: IfMatch, current: (() => string[]) | null): boolean {
  if (ifMatch === null) return true;
  if (current === null) return false;
  if (ifMatch === "*") return true;
  const tags = current();
  return ifMatch.some((tag) => tags.includes(tag));
}

function opaqueTag(tag: string): string {
  return tag.replace(/^W\//, "");
}

/** Whether If-None-Match names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function ifNoneMatchHolds(req: Request, etag: string): boolean {
  const header = req.headers["if-none-match"];
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => opaqueTag(tag.trim()) === opaqueTag(etag));
}

/**
 * Sends a JSON representation with its strong ETag: the tag of `body`, or `etag` when that is the
 * tag of another form of the same state (a write answers with the tag a GET would give), or none
 * (null: an item deleted for good has no current representation). A GET whose If-None-Match names
 * the tag gets 304 instead.
 */
export function sendRepresentation(
  res: Response,
  body: unknown,
  options: { status?: number; etag?: string | null } = {},
): void {
  const json = JSON.stringify(body);
  // Another form's tag only for the whole representation: a `_fields` variant's tag is its own bytes'.
  const sent = bytesSent(res, body, json);
  const etag = options.etag === null ? null : sent !== json ? entityTag(sent) : (options.etag ?? entityTag(json));
  if (etag !== null) res.setHeader("ETag", etag);
  const status = options.status ?? 200;
  if (etag !== null && status === 200 && answeredNotModified(res, etag)) return;
  res.status(status);
  sendJson(res, body, json);
}

/** Sends a representation already serialized (a collection put together from items kept), as sendRepresentation would. */
export function sendRepresentationText(res: Response, json: string): void {
  sendPrepared(res, { json, etag: entityTag(json) });
}

/**
 * Sends a representation made before (see sync/representation-cache.ts) as
 * sendRepresentation would have sent it: 200 with its tag, or 304.
 */
export function sendPrepared(res: Response, prepared: { json: string; etag: string }): void {
  const sent = asksForFields(res) ? bytesSent(res, JSON.parse(prepared.json), prepared.json) : prepared.json;
  const etag = sent === prepared.json ? prepared.etag : entityTag(sent);
  res.setHeader("ETag", etag);
  if (answeredNotModified(res, etag)) return;
  res.status(200);
  sendJson(res, () => JSON.parse(prepared.json) as unknown, prepared.json);
}

/**
 * The JSON a 200 with `body` (serialized: `json`) sends: `_fields` applied, as http/response-shaping.ts
 * applies it in `res.json` (after the response validator has seen the body whole).
 */
function bytesSent(res: Response, body: unknown, json: string): string {
  return asksForFields(res) ? JSON.stringify(shapedBody(res, body)) : json;
}

/** For a GET whose If-None-Match names `etag`: answers `304 Not Modified`, without a body, and says so. */
export function answeredNotModified(res: Response, etag: string): boolean {
  if (res.req.method !== "GET" || !ifNoneMatchHolds(res.req, etag)) return false;
  res.status(304).end();
  return true;
}

/**
 * Sends `json` (the serialized `body`, or a function that gives it). A response validator (VALIDATE_RESPONSES, as in the tests)
 * sees bodies through `res.json`, which it replaces on the response: go through it then, so that
 * every body is validated; otherwise send the string already made.
 */
export function sendJson(res: Response, body: unknown, json: string): void {
  if (Object.prototype.hasOwnProperty.call(res, "json"))
    res.json(typeof body === "function" ? (body as () => unknown)() : body);
  else res.type("json").send(json);
}
