import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

/**
 * The guard of every request the service makes to a URL someone gave it (webhook receivers,
 * import sources): against server-side request forgery, only ordinary unicast addresses are
 * reached, and the operator's own networks when a setting allows them; the host is resolved once,
 * every address checked, and the connection pinned to a checked one (a second lookup could answer
 * otherwise).
 */

// The operator's own networks, allowed by a setting: loopback, private (RFC 1918, unique local
// IPv6), shared address space (CGNAT).
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

/** Which setting allows the operator's own networks, named in refusals. */
export interface OutboundPolicy {
  allowPrivate: boolean;
  setting: string;
}

/**
 * Why an address may not be reached (null: it may). Ranges are ipaddr.js's, the IANA
 * special-purpose registries: only ordinary unicast addresses are, and the operator's own
 * networks when allowed. An IPv4-mapped IPv6 address (how a dual-stack socket writes an IPv4 one)
 * is judged as its IPv4 address; every other IPv6 form that embeds one (NAT64, 6to4, Teredo,
 * IPv4-compatible) is refused whatever it embeds. This machine's own addresses (but loopback) never are.
 */
export function refusedAddress(address: string, policy: OutboundPolicy): string | null {
  const given = ipaddr.parse(address.replace(/%.*$/, ""));
  const parsed = given instanceof ipaddr.IPv6 && given.isIPv4MappedAddress() ? given.toIPv4Address() : given;
  const range = parsed.range();
  if (range !== "loopback" && addressesOfThisMachine().has(parsed.toNormalizedString()))
    return `${address} is an address of this machine`;
  if (OPERATOR_RANGES.has(range))
    return policy.allowPrivate ? null : `${address} is a loopback or private address (${policy.setting})`;
  if (range !== "unicast") return `${address} is a special-purpose address (${range}), never reached`;
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(GLOBAL_UNICAST_V6))
    return `${address} is a reserved IPv6 address (outside 2000::/3), never reached`;
  return null;
}

/** The host of a URL as an address, when it is one (IPv6 without its brackets). */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(host) ? host : null;
}

export type ResolvedAddress = { address: string; family: number };

/**
 * The addresses of the URL's host, every one of them allowed; else an error saying why not. A URL
 * with credentials is refused here too, whoever gave it (a source's owner, or a redirect of its
 * server): Node would send them, to whatever host the URL names.
 */
export async function allowedAddresses(url: URL, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  if (url.username !== "" || url.password !== "") throw new Error("refused: the URL carries credentials");
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`refused: not http or https (${url.protocol})`);
  const literal = literalAddress(url);
  const addresses = literal
    ? [{ address: literal, family: isIP(literal) }]
    : await lookup(url.hostname, { all: true, verbatim: true });
  for (const { address } of addresses) {
    const reason = refusedAddress(address, policy);
    if (reason) throw new Error(`refused: ${reason}`);
  }
  return addresses;
}

/** A lookup that answers the checked address, whatever the resolver would say now. */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/**
 * The checked addresses of the URL's host, resolved within `timeoutMs` (a resolver that does not
 * answer uses the time limit up too).
 */
export async function resolveWithin(url: URL, policy: OutboundPolicy, timeoutMs: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs} ms (resolving ${url.hostname})`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([allowedAddresses(url, policy), outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a URL someone gives may be reached, as far as the URL alone says: http or https, no
 * credentials, and, when its host is an address, one that is not refused (a name's addresses are
 * checked at each request).
 */
export function allowedUrl(raw: string, policy: OutboundPolicy): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.username !== "" || url.password !== "") return false;
  const address = literalAddress(url);
  return address === null || refusedAddress(address, policy) === null;
}
