/**
 * The web addresses an item may store (a website, an image): absolute http(s) URLs that every
 * reader can parse. The spec's `WriteUrl` and `WriteImage` carry this very pattern (a test holds
 * them equal), and imports take a remote site's URLs through `isWebUrl`, so that no door stores a
 * value another cannot read. WHATWG's parser (`new URL`) refuses what a looser pattern let
 * through: a port past 65535, a host that ends in a number but is no IPv4 address
 * (`a.123`, `1.2.3.256`), a bracket, a percent sign or a control character in the host.
 *
 * Conservative where the parser is lenient: no user name or password, no IPv6 literal, host names
 * in ASCII (an IDN in its `xn--` form). The path, query and fragment may hold any character but
 * white space and controls (the parser percent-encodes them).
 */

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = String.raw`(?:${OCTET}\.){3}${OCTET}`;
/** Labels of letters, digits, `-` and `_`; the last one not a number (decimal or `0x…`), which the parser would read as IPv4. */
const HOST_NAME = String.raw`(?:[A-Za-z0-9_-]+\.)*(?!(?:\d+|0[Xx][0-9A-Fa-f]*)\.?(?:[:/?#]|$))[A-Za-z0-9_-]+\.?`;
const PORT = String.raw`(?::(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|\d{1,4})?)?`;
const REST = String.raw`(?:[/?#][^\s\x00-\x1f\x7f]*)?`;

/** The pattern of a stored web address, or of `""` (none). */
export const WEB_URL_PATTERN = String.raw`^(https?://(?:${IPV4}|${HOST_NAME})${PORT}${REST})?$`;

const WEB_URL = new RegExp(WEB_URL_PATTERN, "u");

/** The most characters a stored web address may have. */
export const MAX_WEB_URL_LENGTH = 2000;

/** Whether `value` is a web address an item may store (not `""`). */
export function isWebUrl(value: string): boolean {
  return value !== "" && value.length <= MAX_WEB_URL_LENGTH && WEB_URL.test(value) && URL.canParse(value);
}
