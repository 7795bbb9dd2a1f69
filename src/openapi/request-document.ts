import { HTTP_METHODS, pointer, unescapeToken, type JsonObject } from "./spec";

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
    visit(components[kind]?.[unescapeToken(name)]);
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

/** A name as a JSON pointer's reference token (RFC 6901; unescapeToken goes back). */
const escape = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * `document` (changed in place) with each operation's request body and responses, and their
 * media types' schemas, in place of the references to them: what express-openapi-validator's
 * preprocessor puts there itself, finding each one through an Ajv of its own that compiled every
 * schema it was asked for and threw it away (a fifth of an idle start-up to its first answer).
 * The objects put there are the components themselves, as the preprocessor's were.
 */
export function withBodyReferencesResolved(document: JsonObject): JsonObject {
  const resolved = (node: unknown): JsonObject | undefined => {
    let target = node as JsonObject | undefined;
    for (let hops = 0; typeof target?.$ref === "string" && hops < 16; hops += 1)
      target = pointer(document, target.$ref) as JsonObject | undefined;
    return target;
  };
  const resolveContent = (body: JsonObject | undefined) => {
    for (const media of Object.values((body?.content ?? {}) as Record<string, JsonObject>))
      if (media.schema !== undefined) media.schema = resolved(media.schema);
  };
  for (const item of Object.values(document.paths as Record<string, JsonObject>))
    for (const method of HTTP_METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      if (operation.requestBody !== undefined)
        resolveContent((operation.requestBody = resolved(operation.requestBody)));
      const responses = (operation.responses ?? {}) as Record<string, unknown>;
      for (const status of Object.keys(responses))
        resolveContent((responses[status] = resolved(responses[status])) as JsonObject);
    }
  return document;
}
