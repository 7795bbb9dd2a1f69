import { readFileSync } from "node:fs";
import type { Config } from "../config";
import type { Language } from "../i18n/languages";
import { projectPath } from "../project-root";

/** The namespace every route lives under. */
export const NAMESPACE = "calendar/events/v1";

export const HTTP_METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type JsonObject = Record<string, unknown>;

export interface SpecParameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required?: boolean;
  description?: string;
  style?: string;
  explode?: boolean;
  schema: JsonObject;
}

/** An operation of the spec with every `$ref` resolved. */
export interface SpecOperation {
  operationId: string;
  method: HttpMethod;
  /** The path as the spec writes it, relative to the namespace (`/categories/{id}`). */
  path: string;
  parameters: SpecParameter[];
  /** The JSON schema of the request body, if the operation takes one. */
  bodySchema: JsonObject | null;
  bodyRequired: boolean;
  /** The spec's security requirements; `{}` stands for anonymous access. */
  security: Array<Record<string, string[]>>;
  /** The capabilities a caller's role must hold (`x-required-capabilities`). */
  "x-required-capabilities": string[];
}

/**
 * The bundled document of a language (`npm run generate` writes them: English from openapi/,
 * the others with openapi/overlays/<language>.yaml applied, identical but for their texts).
 */
export function bundledSpecPath(language: Language = "en"): string {
  return projectPath("generated", language === "en" ? "openapi.json" : `openapi.${language}.json`);
}

export function loadBundledSpec(language: Language = "en"): JsonObject {
  return JSON.parse(readFileSync(bundledSpecPath(language), "utf8")) as JsonObject;
}

/** The REST base path of the namespace (without language prefix): `/calendar/events/v1`. */
export function namespaceBasePath(config: Config): string {
  return `${config.restRoot}/${NAMESPACE}`;
}

/** A JSON pointer's reference token, unescaped (RFC 6901). */
export const unescapeToken = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");

/** What a local `$ref` (`#/components/...`) points to. */
export function pointer(document: JsonObject, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`only local references are expected in the bundled spec, not ${ref}`);
  return ref
    .slice(2)
    .split("/")
    .map(unescapeToken)
    .reduce<unknown>((node, part) => (node as JsonObject)[part], document);
}

/**
 * A copy of `node` with every local `$ref` replaced by what it points to. What a reference points
 * to is copied once for all the calls given the same `copies`, which then share it (the operations'
 * common parameters and bodies: a tenth of a start-up when each was copied again).
 */
export function dereference<T>(
  document: JsonObject,
  node: T,
  seen: string[] = [],
  copies = new Map<string, unknown>(),
): T {
  if (Array.isArray(node)) return node.map((item) => dereference(document, item, seen, copies)) as T;
  if (node === null || typeof node !== "object") return node;
  const object = node as JsonObject;
  if (typeof object.$ref === "string") {
    const ref = object.$ref;
    if (seen.includes(ref)) throw new Error(`recursive reference ${ref} in the spec`);
    if (!copies.has(ref)) copies.set(ref, dereference(document, pointer(document, ref), [...seen, ref], copies));
    return copies.get(ref) as T;
  }
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [key, dereference(document, value, seen, copies)]),
  ) as T;
}

/** The document as this configuration serves it: the page size default it uses (`bundled`, changed in place). */
export function documentedSpec(bundled: JsonObject, config: Config): JsonObject {
  const parameters = (bundled.components as JsonObject | undefined)?.parameters as
    Record<string, SpecParameter> | undefined;
  if (parameters?.PerPage) parameters.PerPage.schema.default = config.perPageDefault;
  return bundled;
}

/**
 * The document as the validator and the routes work with it: its paths under the namespace base
 * path of this configuration.
 */
export function runtimeSpec(documented: JsonObject, config: Config): JsonObject {
  // The rest is shared with the documented one: neither is changed once made (the validator is
  // given a copy of its own).
  return { ...documented, servers: [{ url: namespaceBasePath(config) }] };
}

export function operationsOf(spec: JsonObject): SpecOperation[] {
  const operations: SpecOperation[] = [];
  const globalSecurity = (spec.security as SpecOperation["security"] | undefined) ?? [];
  // The operations are read, not changed: they share what their references point to.
  const copies = new Map<string, unknown>();
  const resolved = <T>(node: T) => dereference(spec, node, [], copies);
  // Only what an operation is described by here is dereferenced: its responses are most of the
  // document (copying them too took 110 ms of every start).
  for (const [path, item] of Object.entries(spec.paths as Record<string, JsonObject>)) {
    const shared = resolved((item.parameters as SpecParameter[] | undefined) ?? []);
    for (const method of HTTP_METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      const own = resolved((operation.parameters as SpecParameter[] | undefined) ?? []);
      const body = resolved(operation.requestBody as JsonObject | undefined);
      const content = body?.content as Record<string, { schema?: JsonObject }> | undefined;
      operations.push({
        operationId: operation.operationId as string,
        method,
        path,
        parameters: [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own],
        bodySchema: content?.["application/json"]?.schema ?? null,
        bodyRequired: body?.required === true,
        security: (operation.security as SpecOperation["security"] | undefined) ?? globalSecurity,
        "x-required-capabilities": (operation["x-required-capabilities"] as string[] | undefined) ?? [],
      });
    }
  }
  return operations;
}

/**
 * An operation's path under the namespace's base, each parameter written by `parameter` (`:id`
 * for Express, a value to request it with); the index route `/` is the base itself.
 */
export function mountedPath(
  basePath: string,
  path: string,
  parameter: (name: string) => string = (name) => `{${name}}`,
): string {
  const own = path === "/" ? "" : path.replace(/\{(\w+)\}/g, (_match, name: string) => parameter(name));
  return `${basePath}${own}` || "/";
}
