import { dereference, type JsonObject } from "../src/openapi/spec";
import type { Finding } from "./breaking-findings";

/**
 * Breaking changes `npm run check:breaking` finds itself, beside Optic's: Optic let through a
 * query parameter removed (`featured` on `GET /events`) and a request body property made required
 * (`city` in `CreateVenueRequest`). A client that sends the parameter is then refused (this
 * service answers 400 to no unknown parameter, but the parameter no longer does what it did), and
 * one that leaves out the property is refused.
 */

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type Operations = Map<string, { path: JsonObject; operation: JsonObject }>;

function operationsOf(document: JsonObject): Operations {
  const operations: Operations = new Map();
  for (const [path, item] of Object.entries(document.paths as Record<string, JsonObject>))
    for (const method of METHODS)
      if (item[method])
        operations.set(`${method.toUpperCase()} ${path}`, { path: item, operation: item[method] as JsonObject });
  return operations;
}

/** An operation's parameters, the path item's too, as `in:name`. */
function parameterNames(document: JsonObject, path: JsonObject, operation: JsonObject): Set<string> {
  const listed = [...((path.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])];
  return new Set(
    listed.map((parameter) => {
      const { in: place, name } = dereference(document, parameter) as { in: string; name: string };
      return `${place}:${name}`;
    }),
  );
}

/** A schema's properties and required names, its `allOf` members' merged in. */
function objectShape(schema: JsonObject): { properties: Record<string, JsonObject>; required: Set<string> } {
  const properties: Record<string, JsonObject> = { ...((schema.properties as Record<string, JsonObject>) ?? {}) };
  const required = new Set((schema.required as string[]) ?? []);
  for (const member of (schema.allOf as JsonObject[]) ?? []) {
    const inner = objectShape(member);
    Object.assign(properties, inner.properties);
    for (const name of inner.required) required.add(name);
  }
  return { properties, required };
}

/** Properties required in `after` that `before` did not require, at any depth of objects both have. */
function newlyRequired(before: JsonObject, after: JsonObject, pointer: string, depth = 0): string[] {
  if (depth > 8) return [];
  const [old, now] = [objectShape(before), objectShape(after)];
  const found = [...now.required]
    .filter((name) => !old.required.has(name))
    .map((name) => `${pointer}/properties/${name}`);
  for (const [name, schema] of Object.entries(now.properties)) {
    const previous = old.properties[name];
    if (previous) found.push(...newlyRequired(previous, schema, `${pointer}/properties/${name}`, depth + 1));
  }
  return found;
}

function requestBodies(document: JsonObject, operation: JsonObject): Record<string, JsonObject> {
  if (!operation.requestBody) return {};
  const body = dereference(document, operation.requestBody) as { content?: Record<string, { schema?: JsonObject }> };
  return Object.fromEntries(
    Object.entries(body.content ?? {}).map(([type, media]) => [type, dereference(document, media.schema ?? {})]),
  );
}

export function ownBreakingFindings(before: JsonObject, after: JsonObject): Finding[] {
  const findings: Finding[] = [];
  const now = operationsOf(after);
  for (const [name, { path, operation }] of operationsOf(before)) {
    const current = now.get(name);
    // A removed operation is Optic's to report.
    if (!current) continue;
    const kept = parameterNames(after, current.path, current.operation);
    for (const parameter of parameterNames(before, path, operation))
      if (!kept.has(parameter))
        findings.push({
          operation: name,
          section: "request",
          rule: "parameter removed",
          message: `the ${parameter.replace(":", " parameter ")} is no longer taken`,
        });
    const newBodies = requestBodies(after, current.operation);
    for (const [mediaType, schema] of Object.entries(requestBodies(before, operation))) {
      if (!newBodies[mediaType]) continue;
      for (const pointer of newlyRequired(schema, newBodies[mediaType], "/schema"))
        findings.push({
          operation: name,
          section: "request",
          mediaType,
          pointer,
          rule: "request property made required",
          message: `a body without ${pointer.split("/").pop()} was taken, and is now refused`,
        });
    }
  }
  return findings;
}
