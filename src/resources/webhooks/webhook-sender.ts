import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Sending one notification: to an address that is not refused (server-side request forgery), with
 * a time limit, without following redirects.
 */

type Subnet = [address: string, prefix: number, family: "ipv4" | "ipv6"];

function blockListOf(subnets: Subnet[]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of subnets) list.addSubnet(address, prefix, family);
  return list;
}

// Never a receiver: link-local (cloud metadata services live there), unspecified, multicast, reserved.
const NEVER = blockListOf([
  ["169.254.0.0", 16, "ipv4"],
  ["0.0.0.0", 8, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
  ["::", 128, "ipv6"],
]);

// The operator's own networks: loopback, private (RFC 1918, unique local IPv6), shared (CGNAT), benchmarking.
const PRIVATE = blockListOf([
  ["127.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["::1", 128, "ipv6"],
  ["fc00::", 7, "ipv6"],
]);

/** Why notifications may not go to an address (null: they may). */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  if (NEVER.check(address, family)) return `${address} is a link-local, multicast or reserved address`;
  if (!allowPrivate && PRIVATE.check(address, family)) return `${address} is a loopback or private address (WEBHOOK_ALLOW_PRIVATE_TARGETS)`;
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
  const addresses = literal ? [{ address: literal, family: isIP(literal) }] : await lookup(url.hostname, { all: true, verbatim: true });
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
export async function sendNotification(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  let addresses: Array<{ address: string; family: number }>;
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    target = new URL(url);
    // The time limit counts from the start: a resolver that does not answer uses it up too.
    const outOfTime = new Promise<never>((_resolve, reject) => {
      lookupTimer = setTimeout(() => reject(new Error(`no answer within ${options.timeoutMs} ms (resolving ${target.hostname})`)), options.timeoutMs);
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
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (err: null, all: typeof addresses) => void)(null, [pinned]);
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
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": USER_AGENT },
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
