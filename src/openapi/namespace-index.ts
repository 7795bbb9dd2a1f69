import { DateTime } from "luxon";
import type { Language } from "../i18n/languages";
import { NAMESPACE, type JsonObject, type SpecOperation } from "./spec";

/**
 * The WordPress-style namespace index (docs/compatibility.md §9.1), built from the spec's operations:
 * one route per path, keyed by its pattern; per route, its endpoints, an endpoint being the
 * methods that share the same arguments (so POST, PUT and PATCH of an item form one); per
 * endpoint, its query, path and body arguments with their JSON Schema keywords.
 */

const ARG_KEYWORDS = [
  "type",
  "format",
  "const",
  "enum",
  "default",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "items",
  "oneOf",
  "anyOf",
  "properties",
  "additionalProperties",
];

export interface IndexArg extends JsonObject {
  required: boolean;
}

export interface IndexEndpoint {
  methods: string[];
  args: Record<string, IndexArg>;
  withBody: boolean;
}

export interface IndexRoute {
  namespace: string;
  methods: string[];
  endpoints: IndexEndpoint[];
  /** Path relative to the namespace, for the `_links.self` of routes without parameters. */
  path: string;
  hasPathParams: boolean;
}

function schemaKeywords(schema: JsonObject, description?: string): JsonObject {
  const arg: JsonObject = {};
  const text = description ?? (schema.description as string | undefined);
  if (text) arg.description = text;
  for (const keyword of ARG_KEYWORDS) {
    if (schema[keyword] !== undefined) arg[keyword] = stripExamples(schema[keyword]);
  }
  return arg;
}

function stripExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripExamples);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as JsonObject)
      .filter(([key]) => key !== "example" && key !== "examples")
      .map(([key, inner]) => [key, stripExamples(inner)]),
  );
}

function argsOf(operation: SpecOperation): Record<string, IndexArg> {
  const args: Record<string, IndexArg> = {};
  for (const parameter of operation.parameters) {
    if (parameter.in !== "query" && parameter.in !== "path") continue;
    args[parameter.name] = {
      ...schemaKeywords(parameter.schema, parameter.description),
      required: parameter.required === true,
    };
  }
  const body = operation.bodySchema;
  if (body?.properties) {
    const required = new Set((body.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(body.properties as Record<string, JsonObject>)) {
      // A body field never hides a path or query argument of the same name.
      if (args[name]) continue;
      args[name] = { ...schemaKeywords(schema), required: required.has(name) };
    }
  }
  return args;
}

/** `/events/{id}` → `/calendar/events/v1/events/(?P<id>\d+)`, as WordPress keys its routes. */
export function routePattern(operation: SpecOperation): string {
  const path = operation.path === "/" ? "" : operation.path;
  const pattern = path.replace(/\./g, "\\.").replace(/\{(\w+)\}/g, (_match, name: string) => {
    const parameter = operation.parameters.find((p) => p.in === "path" && p.name === name);
    return parameter?.schema.type === "integer" ? `(?P<${name}>\\d+)` : `(?P<${name}>[^/]+)`;
  });
  return `/${NAMESPACE}${pattern}`;
}

export function buildIndexRoutes(operations: SpecOperation[]): Map<string, IndexRoute> {
  const routes = new Map<string, IndexRoute>();
  for (const operation of operations) {
    const key = routePattern(operation);
    let route = routes.get(key);
    if (!route) {
      route = {
        namespace: NAMESPACE,
        methods: [],
        endpoints: [],
        path: operation.path,
        hasPathParams: operation.path.includes("{"),
      };
      routes.set(key, route);
    }
    const method = operation.method.toUpperCase();
    route.methods.push(method);
    const args = argsOf(operation);
    // Only writes that take the same body share an endpoint (POST, PUT and PATCH of an item);
    // a GET and a DELETE with the same arguments are still two endpoints, as in WordPress.
    const same = operation.bodySchema
      ? route.endpoints.find((endpoint) => endpoint.withBody && JSON.stringify(endpoint.args) === JSON.stringify(args))
      : undefined;
    if (same) same.methods.push(method);
    else route.endpoints.push({ methods: [method], args, withBody: operation.bodySchema !== null });
  }
  return routes;
}

/** One route as the index shows it: its methods and endpoints, and a self link when it has no parameters. */
export function renderRoute(route: IndexRoute, apiBase: string): JsonObject {
  const endpoints = route.endpoints.map(({ methods, args }) => ({ methods, args }));
  const entry: JsonObject = { namespace: route.namespace, methods: route.methods, endpoints };
  if (!route.hasPathParams)
    entry._links = { self: [{ href: route.path === "/" ? apiBase : `${apiBase}${route.path}` }] };
  return entry;
}

/** The index as served: self links made absolute against the base the client used. */
export function renderIndex(routes: Map<string, IndexRoute>, apiBase: string, restRootUrl: string): JsonObject {
  const rendered: JsonObject = {};
  for (const [key, route] of routes) rendered[key] = renderRoute(route, apiBase);
  return { namespace: NAMESPACE, routes: rendered, _links: { up: [{ href: restRootUrl }] } };
}

/** The calendar's name in each language, where WordPress gives its site's. */
const CALENDAR_NAME: Record<Language, string> = { en: "Events", "pt-br": "Eventos", es: "Eventos" };

/** Where the REST index is, and what it says of the site. */
export interface RestIndexSite {
  language: Language;
  siteUrl: string;
  siteTimezone: string;
  restRootUrl: string;
  documentationUrl: string;
}

/** WordPress's REST index (its `/wp-json/`): the site, the namespace, the REST root's route and the namespace's. */
export function renderRestIndex(routes: Map<string, IndexRoute>, apiBase: string, site: RestIndexSite): JsonObject {
  const root: JsonObject = {
    namespace: "",
    methods: ["GET"],
    endpoints: [{ methods: ["GET"], args: {} }],
    _links: { self: [{ href: site.restRootUrl }] },
  };
  const namespaceRoutes = renderIndex(routes, apiBase, site.restRootUrl).routes as JsonObject;
  const offsetMinutes = DateTime.now().setZone(site.siteTimezone).offset;
  return {
    name: CALENDAR_NAME[site.language],
    description: "",
    url: site.siteUrl,
    home: site.siteUrl,
    gmt_offset: offsetMinutes / 60,
    timezone_string: site.siteTimezone,
    namespaces: [NAMESPACE],
    authentication: {},
    routes: { "/": root, ...namespaceRoutes },
    _links: { help: [{ href: site.documentationUrl }] },
  };
}

/** Each route's pattern, made once: every answer on a route looks its route up (route-options.ts). */
const ROUTE_PATTERNS = new WeakMap<IndexRoute, RegExp>();

function patternOf(route: IndexRoute): RegExp {
  let pattern = ROUTE_PATTERNS.get(route);
  if (pattern === undefined) {
    // Ids are digits, as their routes take them; slugs anything but a slash.
    pattern = new RegExp(
      `^${route.path
        .replace(/\./g, "\\.")
        .replace(/\{id\}/g, "\\d+")
        .replace(/\{[^}]+\}/g, "[^/]+")}/?$`,
    );
    ROUTE_PATTERNS.set(route, pattern);
  }
  return pattern;
}

/** The route of the index a path of the namespace (`/events/12`) is, if any. */
export function routeOfPath(routes: Map<string, IndexRoute>, path: string): IndexRoute | undefined {
  for (const route of routes.values()) if (patternOf(route).test(path)) return route;
  return undefined;
}
