import type { Request, RequestHandler } from "express";
import type { Config } from "../config";
import { ApiError } from "./errors";
import { requestOrigin } from "./request-context";

/**
 * Writes that a page on another site can make a visitor's browser send, with credentials the
 * browser attaches by itself (Basic credentials it remembered), without CORS's consent: an HTML
 * form, or a `fetch` whose body is of a "simple" type (form-encoded, multipart, text/plain or none),
 * which no preflight announces, whatever its mode: a `cors` fetch with `credentials: "include"`
 * is sent, and acted on, before the browser hides the answer from the page. WordPress refuses its
 * cookie writes without a nonce for the same reason. Refused (`403 rest_cross_site_write`):
 * - a write the browser marks as a navigation or `no-cors` fetch from elsewhere: `Sec-Fetch-Site`
 *   other than `same-origin` or `none` with `Sec-Fetch-Mode` `navigate`, `nested-navigate` or
 *   `no-cors`;
 * - a POST (the one write method a page may send without a preflight: checked before
 *   `_method` turns it into another) from another site, with a simple body: an `Origin` neither
 *   the service's own nor one CORS_ORIGINS lists by name (`null` included), or, without `Origin`,
 *   `Sec-Fetch-Site` other than `same-origin` or `none`.
 * Browser applications write through CORS with a JSON body (a preflight first), and server-side
 * clients send none of these headers: both go through.
 */

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
const SAME_SITE_ORIGIN = new Set(["same-origin", "none"]);
const WITHOUT_CORS = new Set(["navigate", "nested-navigate", "no-cors"]);
const SIMPLE_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

function simpleBody(req: Request): boolean {
  const type = req.headers["content-type"];
  return type === undefined || SIMPLE_TYPES.test(type);
}

export function refuseCrossSiteWrites(config: Config): RequestHandler {
  const named = new Set(config.corsOrigins === "*" ? [] : config.corsOrigins);
  return (req, _res, next) => {
    if (READS.has(req.method)) return next();
    const site = req.headers["sec-fetch-site"];
    const origin = req.headers.origin;
    const fromElsewhere = typeof site === "string" && !SAME_SITE_ORIGIN.has(site);
    const marked = fromElsewhere && WITHOUT_CORS.has(String(req.headers["sec-fetch-mode"]));
    const crossSite =
      typeof origin === "string" ? origin !== requestOrigin(req, config) && !named.has(origin) : fromElsewhere;
    const withoutPreflight = req.method === "POST" && simpleBody(req);
    if (marked || (crossSite && withoutPreflight)) return next(new ApiError("rest_cross_site_write"));
    next();
  };
}
