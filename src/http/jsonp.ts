import type { RequestHandler, Response } from "express";
import { ApiError } from "./errors";

/**
 * WordPress's `_jsonp=<callback>` (the spec's "WordPress's global parameters"): the answer,
 * whatever its status, sent as the script `/**\/<callback>(<json>)`, for pages that read the API
 * through a `<script>` tag. A callback that is not a plain name (letters, digits, `_`, `.`: what
 * wp_check_jsonp_callback allows) is `400 rest_callback_invalid`; with JSONP switched off
 * (`JSONP=false`, WordPress's rest_jsonp_enabled filter), any `_jsonp` is `400 rest_callback_disabled`.
 *
 * A script tag carries the browser's saved credentials to any page that includes it, so a JSONP
 * request is answered as to an anonymous caller whatever credential it sends (`isJsonpRequest`).
 */

const CALLBACK = /^[\w.]{1,200}$/;

/** The `_jsonp` callback a request names, or undefined: the query string only, and not empty, as WordPress reads it. */
function callbackOf(query: unknown): unknown {
  const callback = (query as Record<string, unknown> | undefined)?._jsonp;
  return callback === "" ? undefined : callback;
}

export function isJsonpRequest(query: unknown): boolean {
  return callbackOf(query) !== undefined;
}

function sendAsScript(res: Response, callback: string, body: unknown): Response {
  res.type("application/javascript; charset=utf-8");
  // The JSON text, not a page: a browser must not guess otherwise (WordPress sends the same).
  res.setHeader("X-Content-Type-Options", "nosniff");
  // U+2028/2029 end a JavaScript line in engines before ES2019; JSON allows them raw.
  const json = JSON.stringify(body ?? null)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return res.send(`/**/${callback}(${json})`);
}

/**
 * Installed before the other shapers of res.json (`_fields`, `_envelope`), so that it is the last
 * to act: the body they make is what the script carries.
 */
export function jsonpCallbacks(enabled: boolean): RequestHandler {
  return (req, res, next) => {
    const callback = callbackOf(req.query);
    if (callback === undefined) return next();
    if (!enabled) return next(new ApiError("rest_callback_disabled"));
    if (typeof callback !== "string" || !CALLBACK.test(callback)) return next(new ApiError("rest_callback_invalid"));
    res.json = (body: unknown) => sendAsScript(res, callback, body);
    next();
  };
}
