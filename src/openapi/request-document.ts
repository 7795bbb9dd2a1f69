import { HTTP_METHODS, type JsonObject } from "./spec";

/**
 * The document as request validation needs it: without the operations' responses, and without
 * the components only they reach (the representations of events, venues, errors...). Checking
 * responses is for tests (`validateResponses`); a service that does not check them had
 * express-openapi-validator prepare every response schema at start-up all the same, a sixth of
 * the start-up's CPU, and carry them in each operation's validators. Nothing is rewritten: a
 * reference of what stays resolves as it did in the whole document.
 */
export function requestDocument(spec: JsonObject): JsonObject {
  const document = structuredClone(spec) as { paths: Record<string, JsonObject>; components?: Components };
  for (const item of Object.values(document.paths))
    for (const method of HTTP_METHODS) delete (item[method] as JsonObject | undefined)?.responses;
  const components = document.components ?? {};
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") reach(value);
      else visit(value);
    }
  };
  const reach = (ref: string) => {
    // A pointer into a component keeps the whole component.
    const [, , kind, name] = ref.split("/");
    if (!ref.startsWith("#/components/") || reached.has(`${kind}/${name}`)) return;
    reached.add(`${kind}/${name}`);
    visit(components[kind]?.[unescape(name)]);
  };
  // Whatever else refers to a component (the paths, the notifications this service sends) keeps it.
  for (const [key, value] of Object.entries(document)) if (key !== "components") visit(value);
  // Security schemes are named by requirements, not referred to: all stay.
  for (const [kind, entries] of Object.entries(components))
    if (kind !== "securitySchemes")
      for (const name of Object.keys(entries)) if (!reached.has(`${kind}/${escape(name)}`)) delete entries[name];
  return document as unknown as JsonObject;
}

type Components = Record<string, Record<string, unknown>>;

/** A JSON pointer's reference token, and back (RFC 6901). */
const unescape = (token: string) => token.replace(/~1/g, "/").replace(/~0/g, "~");
const escape = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");
