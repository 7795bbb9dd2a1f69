import type { Request, RequestHandler } from "express";
import { BODY_METHODS } from "./request-body";

/**
 * WordPress core's request forms, which its REST API reads on every route and clients of the
 * original rely on (the spec's "WordPress's request forms"):
 * - `?rest_route=/calendar/events/v1/...` at the site root (`/` or `/index.php`), for sites without
 *   pretty links;
 * - `POST` with `_method=DELETE|PUT|PATCH` in the query, or an `X-HTTP-Method-Override` header,
 *   for clients that can only send GET and POST (never on GET: a link must not delete);
 * - a write's fields in the query string, the body's winning where both give one;
 * - `multipart/form-data` bodies, read as form-encoded ones are (http/request-body.ts).
 */

const OVERRIDES = new Set(["PUT", "PATCH", "DELETE"]);

/** The site root's `?rest_route=`: the request goes to that route, with the rest of its query. */
export function restRouteParameter(restRoot: string): RequestHandler {
  return (req, _res, next) => {
    const queryStart = req.url.indexOf("?");
    if (queryStart < 0) return next();
    const path = req.url.slice(0, queryStart);
    // `/index.php?rest_route=` is the API root a WordPress site without pretty links advertises.
    if (path !== "/" && path !== "/index.php" && path !== `${restRoot}/` && path !== restRoot) return next();
    const params = new URLSearchParams(req.url.slice(queryStart + 1));
    const route = params.get("rest_route");
    if (route === null || !route.startsWith("/")) return next();
    params.delete("rest_route");
    const rest = params.toString();
    req.url = `${restRoot}${route}${rest === "" ? "" : `?${rest}`}`;
    next();
  };
}

/** `_method` (query) or `X-HTTP-Method-Override` on a POST: the request is that method. */
export const methodOverride: RequestHandler = (req, _res, next) => {
  if (req.method !== "POST") return next();
  const asked = (req.query as Record<string, unknown>)._method ?? req.headers["x-http-method-override"];
  const method = typeof asked === "string" ? asked.trim().toUpperCase() : "";
  if (OVERRIDES.has(method)) req.method = method;
  next();
};

// Not fields of a write: WordPress's global parameters and the query parameters writes declare.
const QUERY_ONLY = new Set([
  "_method",
  "_fields",
  "_envelope",
  "_jsonp",
  "_embed",
  "_",
  "context",
  "rest_route",
  "i18n_language",
  "password",
  "force",
]);

const bodyless = (req: Request) =>
  (req.headers["content-length"] ?? "0") === "0" && req.headers["transfer-encoding"] === undefined;

/** A write's fields given in the query string join its body's (the body wins); a write with no body at all is a form of them. */
export const queryFieldsOfWrites: RequestHandler = (req, _res, next) => {
  if (!BODY_METHODS.has(req.method)) return next();
  const fields = Object.fromEntries(
    Object.entries(req.query as Record<string, unknown>).filter(([name]) => !QUERY_ONLY.has(name)),
  );
  if (Object.keys(fields).length === 0) return next();
  if (bodyless(req) && req.headers["content-type"] === undefined) {
    req.headers["content-type"] = "application/x-www-form-urlencoded";
    req.body = fields;
  } else if (req.body !== null && typeof req.body === "object" && !Array.isArray(req.body)) {
    req.body = { ...fields, ...(req.body as Record<string, unknown>) };
  }
  next();
};
