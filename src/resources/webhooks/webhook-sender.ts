import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

/**
 * Sending one notification: to an address that is not refused (server-side request forgery), with
 * a time limit, without following redirects.
 */

// The operator's own networks, allowed with WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback, private
// (RFC 1918, unique local IPv6), shared address space (CGNAT).
const OPERATOR_RANGES = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);
// IPv6 outside it is unallocated or special (IPv4-compatible ::a.b.c.d among them).
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

const OWN_ADDRESSES_FOR_MS = 60_000;
let ownAddresses: { addresses: Set<string>; until: number } | null = null;

/** The addresses of this machine's interfaces (looked up again every minute). */
function addressesOfThisMachine(now = Date.now()): Set<string> {
  if (ownAddresses === null || ownAddresses.until < now) {
    const addresses = Object.values(networkInterfaces()).flatMap((list) =>
      (list ?? []).map((entry) => ipaddr.parse(entry.address.replace(/%.*$/, "")).toNormalizedString()),
    );
    ownAddresses = { addresses: new Set(addresses), until: now + OWN_ADDRESSES_FOR_MS };
  }
  return ownAddresses.addresses;
}

/**
 * Why notifications may not go to an address (null: they may). Ranges are ipaddr.js's, the IANA
 * special-purpose registries: only ordinary unicast addresses are receivers, and the operator's
 * own networks when allowed. An IPv4-mapped IPv6 address (how a dual-stack socket writes an IPv4
 * one) is judged as its IPv4 address; every other IPv6 form that embeds one (NAT64, 6to4, Teredo,
 * IPv4-compatible) is refused whatever it embeds. This machine's own addresses (but loopback) never are.
 */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  const given = ipaddr.parse(address.replace(/%.*$/, ""));
  const parsed = given instanceof ipaddr.IPv6 && given.isIPv4MappedAddress() ? given.toIPv4Address() : given;
  const range = parsed.range();
  if (range !== "loopback" && addressesOfThisMachine().has(parsed.toNormalizedString()))
    return `${address} is an address of this machine`;
  if (OPERATOR_RANGES.has(range))
    return allowPrivate ? null : `${address} is a loopback or private address (WEBHOOK_ALLOW_PRIVATE_TARGETS)`;
  if (range !== "unicast") return `${address} is a special-purpose address (${range}), never a receiver`;
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(GLOBAL_UNICAST_V6))
    return `${address} is a reserved IPv6 address (outside 2000::/3), never a receiver`;
  return null;
}

/** The host of a URL as an address, when it is one (IPv6 without its brackets). */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(host) ? host : null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** How one attempt went: the receiver's status, or why there was none. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

const USER_AGENT = "calendar-events-webhooks/1";
// Receivers' answers are not read; this much is drained so that the connection ends cleanly.
const MAX_ANSWER_BYTES = 64 * 1024;

/** The addresses of the URL's host, every one of them allowed, or why not. */
async function allowedAddresses(url: URL, allowPrivate: boolean): Promise<Array<{ address: string; family: number }>> {
  const literal = literalAddress(url);
  const addresses = literal
    ? [{ address: literal, family: isIP(literal) }]
    : await lookup(url.hostname, { all: true, verbatim: true });
  for (const { address } of addresses) {
    const reason = refusedAddress(address, allowPrivate);
    if (reason) throw new Error(`refused: ${reason}`);
  }
  return addresses;
}

/**
 * POSTs `body` to `url` with `headers`. The host is resolved first and every address checked; the
 * connection goes to the first checked address (a second lookup could answer otherwise).
 */
export async function sendNotification(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  let addresses: Array<{ address: string; family: number }>;
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    target = new URL(url);
    // The time limit counts from the start: a resolver that does not answer uses it up too.
    const outOfTime = new Promise<never>((_resolve, reject) => {
      lookupTimer = setTimeout(
        () => reject(new Error(`no answer within ${options.timeoutMs} ms (resolving ${target.hostname})`)),
        options.timeoutMs,
      );
    });
    addresses = await Promise.race([allowedAddresses(target, options.allowPrivate), outOfTime]);
  } catch (error) {
    return { statusCode: null, durationMs: elapsed(), error: (error as Error).message };
  } finally {
    clearTimeout(lookupTimer);
  }
  const remainingMs = Math.max(1, options.timeoutMs - elapsed());
  const [pinned] = addresses;
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (err: null, all: typeof addresses) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const outgoing = send(
      target,
      {
        method: "POST",
        lookup: pinnedLookup,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": USER_AGENT,
        },
      },
      (answer: IncomingMessage) => {
        let read = 0;
        answer.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) answer.destroy();
        });
        const done = () => finish({ statusCode: answer.statusCode ?? null, error: null });
        answer.on("end", done);
        answer.on("close", done);
        answer.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within ${options.timeoutMs} ms` });
      outgoing.destroy();
    }, remainingMs);
    outgoing.on("error", (error) => finish({ statusCode: null, error: error.message }));
    outgoing.end(body);
  });
}
