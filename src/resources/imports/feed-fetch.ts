import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import { pinnedLookup, resolveWithin, type OutboundPolicy } from "../../net/outbound-guard";

/**
 * Fetching a source's feed: through the guard every outbound request passes (net/outbound-guard.ts,
 * with IMPORT_ALLOW_PRIVATE_SOURCES), within one time limit for the whole of it, at most
 * MAX_REDIRECTS redirects (each target checked again), gzip or deflate, a bound on its size once
 * decompressed, and conditional: the validators of the last feed read are sent back, so that an
 * unchanged feed costs one `304`.
 */

export const MAX_REDIRECTS = 3;
const USER_AGENT = "calendar-events-imports/1";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedAnswer = { notModified: true } | ({ notModified: false; text: string } & FeedValidators);

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  /** What is asked for: an iCalendar feed (the default, its lines unfolded as octets) or JSON. */
  format?: "ical" | "json";
  /** Aborts the fetch (its process stops). */
  signal?: AbortSignal;
}

/** Why a feed could not be fetched (the run fails with this message); `status`, the source's answer's. */
export class FeedFetchError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** The answer was larger than the bytes it was allowed. */
export class FeedTooLarge extends FeedFetchError {}

/** The sources' policy: the operator's own networks with IMPORT_ALLOW_PRIVATE_SOURCES. */
export const privateSources = (allowPrivate: boolean): OutboundPolicy => ({
  allowPrivate,
  setting: "IMPORT_ALLOW_PRIVATE_SOURCES",
});

function decoded(answer: IncomingMessage): Readable {
  const encoding = String(answer.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return answer.pipe(createGunzip());
  if (encoding === "deflate") return answer.pipe(createInflate());
  if (encoding === "" || encoding === "identity") return answer;
  throw new FeedFetchError(`the feed came in an encoding this service does not read (${encoding})`);
}

/** A decoder of the answer's charset; UTF-8 when it names none this runtime knows. */
function textDecoderOf(charset: string) {
  try {
    return new TextDecoder(charset);
  } catch {
    return new TextDecoder("utf-8");
  }
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The feed's content lines unfolded (a line break followed by a space or a tab taken out, RFC 5545
 * §3.1) before its UTF-8 is decoded: a line is folded at 75 octets, which may fall inside a
 * character (Google and Outlook fold so), and each half decoded alone would be U+FFFD.
 */
export function unfoldedOctets(octets: Buffer): Buffer {
  const kept: Buffer[] = [];
  let from = 0;
  for (let at = octets.indexOf(LINE_FEED); at !== -1; at = octets.indexOf(LINE_FEED, at + 1)) {
    const next = octets[at + 1];
    if (next !== 0x20 && next !== 0x09) continue;
    kept.push(octets.subarray(from, at > 0 && octets[at - 1] === CARRIAGE_RETURN ? at - 1 : at));
    from = at + 2;
  }
  if (from === 0) return octets;
  kept.push(octets.subarray(from));
  return Buffer.concat(kept);
}

/** The answer's body as text, up to `maxBytes` once decompressed (an iCalendar feed's lines unfolded: `unfold`). */
function readBody(answer: IncomingMessage, maxBytes: number, unfold: boolean): Promise<string> {
  const declared = Number(answer.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes && !answer.headers["content-encoding"])
    return Promise.reject(new FeedTooLarge(`the feed is larger than ${maxBytes} bytes (IMPORT_MAX_BYTES)`));
  return new Promise((resolve, reject) => {
    let body: Readable;
    try {
      body = decoded(answer);
    } catch (error) {
      answer.destroy();
      reject(error as Error);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        answer.destroy();
        body.destroy();
        reject(new FeedTooLarge(`the feed is larger than ${maxBytes} bytes (IMPORT_MAX_BYTES)`));
        return;
      }
      chunks.push(chunk);
    });
    body.on("error", (error) => reject(new FeedFetchError(`the feed could not be read: ${error.message}`)));
    answer.on("error", (error) => reject(new FeedFetchError(`the feed could not be read: ${error.message}`)));
    body.on("end", () => {
      const charset = /charset="?([^";\s]+)/i.exec(String(answer.headers["content-type"] ?? ""))?.[1] ?? "utf-8";
      const decoder = textDecoderOf(charset);
      const octets = Buffer.concat(chunks);
      resolve(decoder.decode(unfold && decoder.encoding === "utf-8" ? unfoldedOctets(octets) : octets));
    });
  });
}

/** One request, its answer's head: a redirect's target, a 304, or the answer to read. */
async function requestOnce(
  target: URL,
  headers: Record<string, string>,
  options: FetchOptions,
  deadline: number,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const remaining = () => Math.max(1, deadline - performance.now());
  const [address] = await resolveWithin(target, privateSources(options.allowPrivate), remaining());
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: "GET", lookup: pinnedLookup(address), headers, signal }, resolve);
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Fetches the feed at `url`, sending back the validators of the last one read. */
export async function fetchFeed(url: string, validators: FeedValidators, options: FetchOptions): Promise<FeedAnswer> {
  const deadline = performance.now() + options.timeoutMs;
  let target = new URL(url);
  const json = options.format === "json";
  const headers: Record<string, string> = {
    accept: json ? "application/json" : "text/calendar, text/plain;q=0.5, */*;q=0.1",
    "accept-encoding": "gzip, deflate",
    "user-agent": USER_AGENT,
  };
  if (validators.etag) headers["if-none-match"] = validators.etag;
  if (validators.lastModified) headers["if-modified-since"] = validators.lastModified;
  // Whatever is under way when the time is up is aborted: the request, or the reading of its answer.
  const aborting = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new FeedFetchError(`no answer within ${options.timeoutMs} ms (IMPORT_TIMEOUT_MS)`));
      aborting.abort();
    }, options.timeoutMs);
    options.signal?.addEventListener("abort", () => {
      reject(new FeedFetchError("the process stops"));
      aborting.abort();
    });
  });
  const fetching = async (): Promise<FeedAnswer> => {
    for (let redirects = 0; ; redirects++) {
      const answer = await requestOnce(target, headers, options, deadline, aborting.signal);
      const status = answer.statusCode ?? 0;
      if (REDIRECTS.has(status) && answer.headers.location) {
        answer.resume();
        if (redirects === MAX_REDIRECTS) throw new FeedFetchError(`more than ${MAX_REDIRECTS} redirects`);
        target = new URL(answer.headers.location, target);
        if (target.protocol !== "http:" && target.protocol !== "https:")
          throw new FeedFetchError(`redirected to a URL that is not http or https (${target.protocol})`);
        continue;
      }
      if (status === 304) {
        answer.resume();
        return { notModified: true };
      }
      if (status < 200 || status > 299) {
        answer.resume();
        throw new FeedFetchError(`the source answered ${status}`, status);
      }
      const text = await readBody(answer, options.maxBytes, !json);
      const header = (name: string) => {
        const value = answer.headers[name];
        return typeof value === "string" && value.length <= 1000 ? value : null;
      };
      return { notModified: false, text, etag: header("etag"), lastModified: header("last-modified") };
    }
  };
  try {
    return await Promise.race([fetching(), outOfTime]);
  } catch (error) {
    aborting.abort();
    if (error instanceof FeedFetchError) throw error;
    throw new FeedFetchError((error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}
