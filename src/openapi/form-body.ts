import type { Request, RequestHandler } from "express";
import { matchedOperationId } from "./query-normalizer";
import type { JsonObject, SpecOperation } from "./spec";

/**
 * A form-encoded body (`application/x-www-form-urlencoded`) holds only text: `post_parent=31`,
 * `geo_lat=59.9`, `show_map=1`, `venue[geo_lat]=59.9`. Before the body is validated, each value is
 * read as its field's schema declares it, as WordPress reads its parameters: text where the field
 * takes text, else a number, a boolean, or (`""` in a field that takes `null`) null; one value
 * where only a list is taken is a list of it (`event_types=event.created`: OpenAPI's form encoding
 * writes a list of one item so, and WordPress's lists take one value). A value that is none of
 * those stays text, and validation refuses it as it would in JSON. The schema is the operation's
 * body schema, the same for both media types.
 */

// A decimal number as a form writes it.
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEAN = /^(true|false|1|0)$/i;

/** A schema and its alternatives (`anyOf`, `oneOf`) and parts (`allOf`), flattened. */
function variants(schema: JsonObject): JsonObject[] {
  const nested = ["anyOf", "oneOf", "allOf"].flatMap((key) =>
    Array.isArray(schema[key]) ? (schema[key] as JsonObject[]) : [],
  );
  return [schema, ...nested.flatMap(variants)];
}

function typesOf(schema: JsonObject): Set<string> {
  const types = new Set<string>();
  for (const variant of variants(schema)) {
    const type = variant.type;
    for (const name of Array.isArray(type) ? type : typeof type === "string" ? [type] : []) types.add(name as string);
    if (Array.isArray(variant.enum))
      for (const value of variant.enum)
        types.add(value === null ? "null" : typeof value === "number" ? "number" : typeof value);
    if (variant.properties !== undefined) types.add("object");
    if (variant.items !== undefined) types.add("array");
  }
  return types;
}

function readText(schema: JsonObject, text: string): unknown {
  const types = typesOf(schema);
  if (types.has("string")) return text;
  if (text === "" && types.has("null")) return null;
  if ((types.has("integer") || types.has("number")) && DECIMAL.test(text) && Number.isFinite(Number(text)))
    return Number(text);
  if (types.has("boolean") && BOOLEAN.test(text)) return /^(true|1)$/i.test(text);
  return text;
}

/** What `part` of a schema holds (an object's property, a list's items), over every alternative that declares it. */
function partSchema(schema: JsonObject, part: (variant: JsonObject) => unknown): JsonObject | undefined {
  const found = variants(schema)
    .map((variant) => part(variant) as JsonObject | undefined)
    .filter((found): found is JsonObject => found !== undefined);
  return found.length === 0 ? undefined : found.length === 1 ? found[0] : { anyOf: found };
}

/** The schema of what `name` of an object may hold. */
function propertySchema(schema: JsonObject, name: string): JsonObject | undefined {
  return partSchema(schema, (variant) => (variant.properties as Record<string, JsonObject> | undefined)?.[name]);
}

function itemSchema(schema: JsonObject): JsonObject | undefined {
  return partSchema(schema, (variant) => variant.items);
}

const SCALARS = ["string", "integer", "number", "boolean", "null", "object"];

export function readFormValue(schema: JsonObject, value: unknown): unknown {
  if (typeof value === "string") {
    const types = typesOf(schema);
    const items = types.has("array") && !SCALARS.some((type) => types.has(type)) ? itemSchema(schema) : undefined;
    return items ? [readFormValue(items, value)] : readText(schema, value);
  }
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return items ? value.map((item) => readFormValue(items, item)) : value;
  }
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    const types = typesOf(schema);
    // `key[0]=a&key[5]=b` (or more items than the parser makes a list of) where a list is expected: its values, in order.
    if (!types.has("object") && types.has("array")) return readFormValue(schema, Object.values(object));
    return Object.fromEntries(
      Object.entries(object).map(([name, field]) => {
        const property = propertySchema(schema, name);
        return [name, property ? readFormValue(property, field) : field];
      }),
    );
  }
  return value;
}

function isForm(req: Request): boolean {
  return req.is("application/x-www-form-urlencoded") === "application/x-www-form-urlencoded";
}

export function formBodyReader(operations: SpecOperation[]): RequestHandler {
  const schemas = new Map(
    operations
      .filter((operation) => operation.bodySchema)
      .map((operation) => [operation.operationId, operation.bodySchema!]),
  );
  return (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const schema = operationId ? schemas.get(operationId) : undefined;
    if (schema && isForm(req) && req.body !== null && typeof req.body === "object")
      req.body = readFormValue(schema, req.body);
    next();
  };
}
