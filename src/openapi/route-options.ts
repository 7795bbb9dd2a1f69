import type { Request, RequestHandler } from "express";
import { mayCall } from "../auth/authenticate";
import type { Config } from "../config";
import { requestOrigin } from "../http/request-context";
import { contextAt } from "../http/request-pipeline";
import { isLanguage, type Language } from "../i18n/languages";
import { renderRoute, routeOfPath, type IndexRoute } from "./namespace-index";
import type { SpecOperation } from "./spec";

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** The operations by method and path template (`GET /events/{id}`), as the index's routes name them. */
function operationsByRoute(operations: SpecOperation[]): Map<string, SpecOperation> {
  return new Map(operations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation]));
}

/** A request's path within the namespace (null: outside it). */
function namespacePath(req: Request, basePath: string): string | null {
  return req.path.startsWith(basePath) ? req.path.slice(basePath.length) || "/" : null;
}

/**
 * The route of the namespace a request's path names (null: none). Routes and methods are the same
 * in every language: one language's index finds them.
 */
function routeOfRequest(
  req: Request,
  basePath: string,
  indexRoutes: (language: Language) => Map<string, IndexRoute>,
): IndexRoute | null {
  const path = namespacePath(req, basePath);
  return path === null ? null : (routeOfPath(indexRoutes("en"), path) ?? null);
}

/** The methods of the route a request names that its caller may use (HEAD wherever GET is), in the usual order. */
function methodsAllowed(
  route: IndexRoute,
  principal: Request["principal"],
  operations: Map<string, SpecOperation>,
): string {
  const methods = new Set(
    route.methods.filter((method) => mayCall(principal ?? null, operations.get(`${method} ${route.path}`))),
  );
  if (methods.has("GET")) methods.add("HEAD");
  return METHOD_ORDER.filter((method) => methods.has(method)).join(", ");
}

/**
 * Every answer on a route of the namespace says, in `Allow`, the methods of the route its caller
 * may use, as WordPress's REST API says on each of its answers (it asks each method's permission
 * check). `OPTIONS` on a route answers `200` with them and the route's description as the
 * namespace index gives it (methods, endpoints, arguments). A browser's preflight is answered
 * before this (http/cors.ts).
 */
export function routeOptions(
  config: Config,
  basePath: string,
  indexRoutes: (language: Language) => Map<string, IndexRoute>,
  operations: SpecOperation[],
): RequestHandler {
  const byRoute = operationsByRoute(operations);
  return (req, res, next) => {
    const route = routeOfRequest(req, basePath, indexRoutes);
    if (!route) return next();
    res.setHeader("Allow", methodsAllowed(route, req.principal, byRoute));
    if (req.method !== "OPTIONS") return next();
    // Only an OPTIONS answer, which describes the route, needs the request's language's index.
    const asked = (req.query as { i18n_language?: unknown }).i18n_language;
    const language = isLanguage(asked) ? asked : (req.prefixLanguage ?? config.defaultLanguage);
    const described = routeOfPath(indexRoutes(language), namespacePath(req, basePath)!) ?? route;
    const prefix = isLanguage(asked) || req.prefixLanguage !== undefined ? `/${language}` : "";
    res.setHeader("Content-Language", language);
    res
      .status(200)
      .json(renderRoute(described, contextAt(config, requestOrigin(req, config), language, prefix, null).apiBase));
  };
}

/**
 * The operation a request was meant for: the one matched, else (a request refused before its
 * operation was matched, a credential that is not valid say) the one its method and path name.
 * What the metrics label a request with; undefined outside the namespace's routes.
 */
export function intendedOperation(
  basePath: string,
  indexRoutes: (language: Language) => Map<string, IndexRoute>,
  operations: SpecOperation[],
  matched: (req: Request) => string | undefined,
): (req: Request) => string | undefined {
  const byRoute = operationsByRoute(operations);
  return (req) => {
    const id = matched(req);
    if (id !== undefined) return id;
    const route = routeOfRequest(req, basePath, indexRoutes);
    const method = req.method === "HEAD" ? "GET" : req.method;
    return route ? byRoute.get(`${method} ${route.path}`)?.operationId : undefined;
  };
}
