/**
 * Query parameters whose values are secrets (an event's `password`): never written to the log,
 * never repeated in an answer's links (`rest_url`, `next_rest_url`, `Link`). A name counts in
 * every form the query parser reads as that parameter (`password`, `password[]`, `password[0]`,
 * `password[a][b]`, percent-encoded), in any case, and inside a `rest_route` value, whose own
 * query WordPress's form carries (`/?rest_route=/calendar/events/v1/events%3Fpassword%3D...`).
 */

const SECRET_QUERY_PARAMS = new Set(["password"]);

export function isSecretParameter(name: string): boolean {
  return SECRET_QUERY_PARAMS.has(name.replace(/\[.*$/s, "").trim().toLowerCase());
}

/** A query string (without `?`) with the secrets' values replaced. */
function redactQuery(query: string): string {
  const params = new URLSearchParams(query);
  let changed = false;
  const kept = [...params].map(([name, value]): [string, string] => {
    const redacted = isSecretParameter(name) ? "[redacted]" : name === "rest_route" ? redactUrl(value) : value;
    if (redacted !== value) changed = true;
    return [name, redacted];
  });
  return changed ? new URLSearchParams(kept).toString() : query;
}

/** A URL (a path and query) as the log may hold it. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf("?");
  if (queryStart < 0) return url;
  const query = url.slice(queryStart + 1);
  const redacted = redactQuery(query);
  return redacted === query ? url : `${url.slice(0, queryStart)}?${redacted}`;
}
