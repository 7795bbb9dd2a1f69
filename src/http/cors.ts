import type { RequestHandler } from "express";

/**
 * What browser scripts may read from responses besides the basics: totals, page links, the tag an
 * If-Match needs, a new item's address, the methods allowed, limits, the sync token.
 */
const EXPOSED = [
  "X-TEC-Total",
  "X-TEC-TotalPages",
  "X-WP-Total",
  "X-WP-TotalPages",
  "Link",
  "ETag",
  "Location",
  "Allow",
  "Content-Language",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "X-Next-Sync-Token",
  "X-Feed-Truncated",
  "X-Request-Id",
].join(", ");
const METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
const HEADERS = "Authorization, Content-Type, Accept-Language, If-Match, If-None-Match, X-HTTP-Method-Override";
const PREFLIGHT_MAX_AGE_SECONDS = "86400";

/**
 * Cross-origin access for browsers (CORS). `origins` "*" lets any site call the API (credentials
 * are sent in the Authorization header, not cookies, so this does not let sites act as their
 * visitors); a list allows those origins only; an empty list sends no CORS headers. A preflight
 * (OPTIONS with Access-Control-Request-Method) is answered here with 204.
 */
export function cors(origins: "*" | string[]): RequestHandler {
  const allowed = origins === "*" ? null : new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origins !== "*") res.vary("Origin");
    const allowOrigin = origin === undefined ? null : allowed === null ? "*" : allowed.has(origin) ? origin : null;
    if (allowOrigin === null) return next();
    res.setHeader("Access-Control-Allow-Origin", allowOrigin);
    res.setHeader("Access-Control-Expose-Headers", EXPOSED);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      res.setHeader("Access-Control-Allow-Methods", METHODS);
      res.setHeader("Access-Control-Allow-Headers", HEADERS);
      res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS);
      return void res.status(204).end();
    }
    next();
  };
}
