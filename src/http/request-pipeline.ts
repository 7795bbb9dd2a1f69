import type { RequestHandler } from "express";
import type { Config } from "../config";
import type { Principal } from "../auth/principal";
import { isLanguage, type Language } from "../i18n/languages";
import { NAMESPACE } from "../openapi/spec";
import { ApiError } from "./errors";
import { requestOrigin, type RequestContext } from "./request-context";

const LANGUAGE_PREFIX = /^\/([a-z]{2}(?:-[a-z]{2})?)(?=\/|$)/;

/**
 * `/es/calendar/events/v1/...` is served by the same routes as `/calendar/events/v1/...`:
 * the prefix is recorded as the request language and removed from the URL the routes see.
 */
export const languagePrefix: RequestHandler = (req, _res, next) => {
  const match = LANGUAGE_PREFIX.exec(req.url);
  if (match && isLanguage(match[1])) {
    req.prefixLanguage = match[1];
    req.url = req.url.slice(match[0].length) || "/";
  }
  next();
};

/**
 * The namespace index is the spec's path `/`, which the validator only matches with its
 * trailing slash: give the bare namespace root one.
 */
export function namespaceRootSlash(basePath: string): RequestHandler {
  return (req, _res, next) => {
    const queryStart = req.url.indexOf("?");
    const path = queryStart < 0 ? req.url : req.url.slice(0, queryStart);
    if (path === basePath) req.url = `${basePath}/${queryStart < 0 ? "" : req.url.slice(queryStart)}`;
    next();
  };
}

/**
 * WordPress's REST index answers at the REST root (`REST_ROOT`, `/` by default), at `/wp-json/`
 * whatever the root, and at the site root's `?rest_route=/` (which restRouteParameter made the
 * REST root): the spec's `/rest-index`, where the routes take it.
 */
export function restIndexAliases(restRoot: string, basePath: string): RequestHandler {
  const roots = new Set([restRoot || "/", `${restRoot}/`, "/wp-json", "/wp-json/"]);
  return (req, _res, next) => {
    const queryStart = req.url.indexOf("?");
    const path = queryStart < 0 ? req.url : req.url.slice(0, queryStart);
    if ((req.method === "GET" || req.method === "HEAD") && roots.has(path))
      req.url = `${basePath}/rest-index${queryStart < 0 ? "" : req.url.slice(queryStart)}`;
    next();
  };
}

/**
 * Every answer names the REST root as WordPress's do (`Link: <…>; rel="https://api.w.org/"`), in
 * the request's language prefix: WordPress clients discover the API by it.
 */
export function discoveryLink(config: Config): RequestHandler {
  return (req, res, next) => {
    const prefix = req.prefixLanguage === undefined ? "" : `/${req.prefixLanguage}`;
    res.setHeader("Link", `<${requestOrigin(req, config)}${prefix}${config.restRoot}/>; rel="https://api.w.org/"`);
    next();
  };
}

/** HEAD is answered by the GET route (Node leaves the body out of the response). */
export const headAsGet: RequestHandler = (req, _res, next) => {
  if (req.method === "HEAD") req.method = "GET";
  next();
};

/** What a handler works with, for a caller reaching the API at `origin` in `language`. */
export function contextAt(
  config: Config,
  origin: string,
  language: Language,
  languagePrefix: string,
  principal: Principal | null,
): RequestContext {
  return {
    language,
    defaultLanguage: config.defaultLanguage,
    siteTimezone: config.siteTimezone,
    principal,
    apiBase: `${origin}${languagePrefix}${config.restRoot}/${NAMESPACE}`,
    siteUrl: config.siteUrl ?? origin,
    languagePrefix,
    apiBaseIn: (other) => `${origin}/${other}${config.restRoot}/${NAMESPACE}`,
  };
}

/** After validation: the language, caller and addresses every handler works with. */
export function resolveContext(config: Config): RequestHandler {
  return (req, res, next) => {
    const asked = (req.query as { i18n_language?: unknown }).i18n_language;
    const fromQuery = isLanguage(asked) ? asked : undefined;
    const language = fromQuery ?? req.prefixLanguage ?? config.defaultLanguage;
    // Links keep the language the client asked for, through its prefix.
    const languagePrefix = fromQuery !== undefined || req.prefixLanguage !== undefined ? `/${language}` : "";
    req.ctx = contextAt(config, requestOrigin(req, config), language, languagePrefix, req.principal ?? null);
    res.setHeader("Content-Language", language);
    next();
  };
}

export const noRoute: RequestHandler = (_req, _res, next) => next(new ApiError("rest_no_route"));
