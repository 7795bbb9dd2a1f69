import busboy from "busboy";
import type { Request, RequestHandler } from "express";
import qs from "qs";

/**
 * WordPress core's request forms, which its REST API reads on every route and clients of the
 * original rely on (the spec's "WordPress's request forms"):
 * - `?rest_route=/calendar/events/v1/...` at the site root, for sites without pretty links;
 * - `POST` with `_method=DELETE|PUT|PATCH` in the query, or an `X-HTTP-Method-Override` header,
 *   for clients that can only send GET and POST (never on GET: a link must not delete);
 * - a write's fields in the query string, the body's winning where both give one;
 * - `multipart/form-data` bodies, read as form-encoded ones are (files are ignored, as the
 *   original's event routes ignore them: images go to WordPress's media routes).
 */

const OVERRIDES = new Set(["PUT", "PATCH", "DELETE"]);

/** The site root's `?rest_route=`: the request goes to that route, with the rest of its query. */
export function restRouteParameter(restRoot: string): RequestHandler {
  return (req, _res, next) => {
    const queryStart = req.url.indexOf("?");
    if (queryStart < 0) return next();
    const path = req.url.slice(0, queryStart);
    if (path !== "/" && path !== `${restRoot}/` && path !== restRoot) return next();
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
  if (!["POST", "PUT", "PATCH"].includes(req.method)) return next();
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

/**
 * A `multipart/form-data` body (PHP cURL given an array), read as a form-encoded one: its fields
 * through the same `key[]=` / `key[field]=` reading, its files drained and ignored. Then the
 * request is a form-encoded one for everything after.
 */
export function multipartBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (
      !/^multipart\/form-data\b/i.test(req.headers["content-type"] ?? "") ||
      !["POST", "PUT", "PATCH"].includes(req.method)
    )
      return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: limitBytes, fields: 1000, parts: 2000 } });
    } catch (error) {
      req.deferredBodyError = Object.assign(error as Error, { type: "entity.parse.failed", status: 400 });
      return next();
    }
    const pairs: string[] = [];
    let size = 0;
    let failed: Error | null = null;
    parser.on("field", (name, value) => {
      size += name.length + value.length;
      if (size > limitBytes)
        failed ??= Object.assign(new Error("request entity too large"), { type: "entity.too.large", status: 413 });
      else pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    });
    parser.on("file", (_name, stream) => stream.resume());
    parser.on(
      "fieldsLimit",
      () => (failed ??= Object.assign(new Error("too many parameters"), { type: "parameters.too.many", status: 413 })),
    );
    parser.on("error", (error: Error) => {
      failed ??= Object.assign(error, { type: "entity.parse.failed", status: 400 });
      finish();
    });
    parser.on("close", () => finish());
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      req.headers["content-type"] = "application/x-www-form-urlencoded";
      // Read: the body parsers after this leave it as it is.
      (req as Request & { _body?: boolean })._body = true;
      if (failed) req.deferredBodyError = failed;
      else {
        try {
          req.body = qs.parse(pairs.join("&"), {
            allowPrototypes: true,
            arrayLimit: Math.max(100, pairs.length),
            depth: 32,
            strictDepth: true,
            parameterLimit: 1000,
          });
        } catch (error) {
          req.deferredBodyError = Object.assign(error as Error, { type: "querystring.parse.rangeError", status: 400 });
        }
      }
      next();
    };
    req.pipe(parser);
  };
}
