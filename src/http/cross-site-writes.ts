import type { Request, RequestHandler } from "express";
import type { Config } from "../config";
import { ApiError } from "./errors";
import { requestOrigin } from "./request-context";

/**
 * Writes that a page on another site can make a visitor's browser send, with credentials the
 * browser attaches by itself (Basic credentials it remembered), without CORS's consent: an HTML
 * form, or a `fetch` in `no-cors` mode, whose body is of a "simple" type (form-encoded, multipart
 * or text/plain) and which no preflight announces. WordPress refuses its cookie writes without a
 * nonce for the same reason. Refused (`403 rest_cross_site_write`):
 * - a write the browser marks as such: `Sec-Fetch-Site` other than `same-origin` or `none` with
 *   `Sec-Fetch-Mode` `navigate`, `nested-navigate` or `no-cors`;
 * - from a browser that sends no `Sec-Fetch-Mode`: a write with an `Origin` that is neither the
 *   service's own nor one CORS_ORIGINS lists by name, whose body is of a simple type.
 * Browser applications that send their own `Authorization` go through CORS (a preflight, then
 * `Sec-Fetch-Mode: cors`), and server-side clients send none of these headers: both are as before.
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
    const mode = req.headers["sec-fetch-mode"];
    const origin = req.headers.origin;
    const marked = typeof site === "string" && !SAME_SITE_ORIGIN.has(site) && WITHOUT_CORS.has(String(mode));
    const unmarked =
      mode === undefined &&
      typeof origin === "string" &&
      origin !== requestOrigin(req, config) &&
      !named.has(origin) &&
      simpleBody(req);
    if (marked || unmarked) return next(new ApiError("rest_cross_site_write"));
    next();
  };
}
