import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { pointer } from "../../src/openapi/spec";

/**
 * Requests generated from the OpenAPI document, for fuzzing: for each operation, its path and
 * query parameters and its body, each either a value its schema allows or something hostile
 * (wrong types, out-of-range, negative, non-finite and huge numbers, floats for integers, unicode
 * and control characters, lone surrogates, injection strings, 100 KB strings, long unbroken text,
 * deep nesting, arrays for scalars), plus unknown parameters, malformed JSON and wrong content
 * types; and a quarter of the requests valid as a whole. Only
 * the schemas decide what is generated: a new parameter or field is fuzzed without touching this
 * file.
 */

type Json = Record<string, any>;

export interface SpecOperation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  operationId: string;
  parameters: Json[];
  bodySchema: Json | null;
}

export interface GeneratedRequest {
  method: string;
  /** Relative to the namespace base, query string included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** A schema with `allOf` as one object schema: the properties of all its parts, and all their required fields. */
function flattenAllOf(document: Json, schema: Json): Json {
  const { allOf, ...own } = schema;
  const parts: Json[] = [own, ...(allOf as Json[]).map((part) => resolveRef(document, part))];
  return {
    ...Object.assign({}, ...parts),
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => part.required ?? []),
  };
}

export function resolveRef(document: Json, value: Json): Json {
  let current = value;
  while (current && typeof current.$ref === "string") current = pointer(document, current.$ref) as Json;
  return current;
}

/** The document's operations, their parameters resolved. */
export function specOperations(document: Json): SpecOperation[] {
  const operations: SpecOperation[] = [];
  for (const [path, rawItem] of Object.entries(document.paths as Json)) {
    const item = resolveRef(document, rawItem as Json);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter: Json) =>
        resolveRef(document, parameter),
      );
      const bodySchema = operation.requestBody
        ? (resolveRef(document, operation.requestBody).content?.["application/json"]?.schema ?? null)
        : null;
      operations.push({ method, path, operationId: operation.operationId, parameters, bodySchema });
    }
  }
  return operations;
}

const HOSTILE_STRINGS = [
  "' OR '1'='1",
  '1; DROP TABLE "Event"; --',
  '" OR ""="',
  '%\' AND 1=0 UNION SELECT * FROM "User" --',
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "../../etc/passwd",
  "${7*7}{{7*7}}",
  "\u0000\u0001\u0002\u001b[31m",
  "\r\nSet-Cookie: x=1",
  "𝕦𝕟𝕚𝕔𝕠𝕕𝕖 ☃ 中文 العربية",
  "\ud800",
  "a\ud800b",
  "\udc00 tail",
  "%",
  "_",
  "\\",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e309",
  "-1e309",
  "9007199254740993",
  "2147483648",
  "0000-01-01",
  "10000-01-01",
  "0x10",
  "  ",
  "",
];

/** Something that a schema probably does not allow. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.constant("x".repeat(100_000)),
    // Long unbroken text that a field may hold: a run of one letter, Japanese with no spaces.
    fc.constant("w".repeat(65_000)),
    fc.constant(Array.from({ length: 11_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join("")),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
    fc.constantFrom(-1, 0, 2 ** 53, -(2 ** 63), 1e308, 1e20, -1e20, 1e21, 1.5, -0.25, Number.MAX_SAFE_INTEGER + 2),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
  );
}

/**
 * A value the schema allows: approximately (formats and patterns only hinted at), or, `matched`,
 * with patterns matched, lists as long as they must be and the example where nesting runs out
 * (what takenValue checks against the whole schema).
 */
export function schemaValue(document: Json, raw: Json | undefined, depth = 0, matched = false): fc.Arbitrary<unknown> {
  const schema = raw ? resolveRef(document, raw) : {};
  if (depth > 4) return fc.constant(matched ? (schema.example ?? null) : null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const variants = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(variants))
    return fc.oneof(...variants.map((variant: Json) => schemaValue(document, variant, depth + 1, matched)));
  if (Array.isArray(schema.allOf)) return schemaValue(document, flattenAllOf(document, schema), depth + 1, matched);
  const matching = matched ? patternValue(schema) : null;
  if (matching) return matching;
  const types: string[] = Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : schema.properties
        ? ["object"]
        : ["string"];
  return fc.oneof(...types.map((type) => valueOfType(document, schema, type, depth, matched)));
}

/** Strings its pattern matches, within its length; null without a pattern fast-check can read. */
function patternValue(schema: Json): fc.Arbitrary<unknown> | null {
  if (typeof schema.pattern !== "string") return null;
  try {
    const max = schema.maxLength ?? 200;
    return fc.stringMatching(new RegExp(schema.pattern)).map((text) => text.slice(0, max));
  } catch {
    return null;
  }
}

function valueOfType(
  document: Json,
  schema: Json,
  type: string,
  depth: number,
  matched: boolean,
): fc.Arbitrary<unknown> {
  switch (type) {
    case "integer":
      return fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 60 });
    case "number":
      return fc.double({
        min: schema.minimum ?? -200,
        max: schema.maximum ?? 200,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(
        schemaValue(document, schema.items, depth + 1, matched),
        matched ? { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) } : { maxLength: 3 },
      );
    case "object": {
      const properties = Object.entries((schema.properties ?? {}) as Json);
      if (properties.length === 0) return fc.constant({});
      return fc.record(
        Object.fromEntries(
          properties.map(([name, property]) => [name, schemaValue(document, property as Json, depth + 1, matched)]),
        ),
        {
          requiredKeys: (schema.required ?? []).filter((name: string) => name in schema.properties),
        },
      );
    }
    default:
      return stringValue(schema);
  }
}

function stringValue(schema: Json): fc.Arbitrary<unknown> {
  const max = Math.min(schema.maxLength ?? 30, 30);
  switch (schema.format) {
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2040-01-01"), noInvalidDate: true })
        .map((date) => date.toISOString());
    case "uri":
      return fc.webUrl();
    case "email":
      return fc.emailAddress();
    default:
      return fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: max }),
        fc.constantFrom(
          "2026-12-01 19:00:00",
          "tomorrow",
          "+2 days",
          "now",
          "1",
          "foo",
          "publish",
          "draft",
          "UTC",
          "Europe/Lisbon",
        ),
      );
  }
}

/**
 * Percent-encodes any string, lone surrogates included (as the bytes WTF-8 gives them, which are
 * not valid UTF-8: the service must cope with those too).
 */
export function percentEncode(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const pair =
      code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("");
    } else {
      out += encodeURIComponent(text[i]);
    }
  }
  return out;
}

function encodeQuery(name: string, value: unknown, asArray: boolean): string[] {
  const encode = (item: unknown) => percentEncode(typeof item === "string" ? item : (JSON.stringify(item) ?? ""));
  if (Array.isArray(value)) {
    return asArray
      ? value.map((item) => `${percentEncode(name)}[]=${encode(item)}`)
      : [`${percentEncode(name)}=${value.map(encode).join(",")}`];
  }
  if (value !== null && typeof value === "object")
    return Object.entries(value).map(([key, item]) => `${percentEncode(name)}[${percentEncode(key)}]=${encode(item)}`);
  return [`${percentEncode(name)}=${encode(value)}`];
}

/** Valid about two thirds of the time, hostile otherwise. */
function mostlyValid(document: Json, schema: Json | undefined): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 2, arbitrary: schemaValue(document, schema) }, { weight: 1, arbitrary: hostileValue() });
}

const PATH_SEGMENTS = [
  "1",
  "2",
  "3",
  "0",
  "-1",
  "1.5",
  "99999999999999999999",
  "2147483648",
  "1e309",
  "Infinity",
  "abc",
  "%00",
  "%2F",
  "..",
  "%E2%98%83",
  "%ED%A0%80",
  "1%20OR%201=1",
];

/** JSON nested far deeper than any field (a hundred thousand lists), and numbers JSON.parse makes infinite. */
const DEEP = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
const RAW_BODIES = [
  '{"title": "x"',
  "{'title': 'x'}",
  "[1,2",
  "nul",
  '{"a":1}}',
  "\u0000",
  `{"title":${DEEP}}`,
  `{"description":${DEEP},"title":"x"}`,
  '{"start_date":1e309,"end_date":-1e309,"title":"x"}',
];

/** Query values by name, each with whether it goes out as `name[]=` items. */
type QueryValues = Record<string, [unknown, boolean]>;

/** A request of `operation`: its path filled in, its query encoded, its credential and body. */
function assembled(
  operation: SpecOperation,
  authorization: string,
  path: Record<string, string>,
  query: QueryValues,
  unknown: [string, unknown] | null,
  payload: { text: string; type: string } | null,
): GeneratedRequest {
  let url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => path[name]);
  const parts = Object.entries(query).flatMap(([name, [value, asArray]]) => encodeQuery(name, value, asArray));
  if (unknown) parts.push(...encodeQuery(unknown[0], unknown[1], false));
  if (parts.length > 0) url += `?${parts.join("&")}`;
  const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
  if (payload) headers["Content-Type"] = payload.type;
  return { method: operation.method.toUpperCase(), path: url, headers, body: payload?.text };
}

/** Requests for one operation, with the credential `authorization` (or anonymous). */
export function requestsFor(
  document: Json,
  operation: SpecOperation,
  authorization: string,
): fc.Arbitrary<GeneratedRequest> {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query");
  const pathValues = fc.record(
    Object.fromEntries(
      pathParameters.map((parameter) => [
        parameter.name,
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...PATH_SEGMENTS) },
          { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map(percentEncode) },
          {
            weight: 1,
            arbitrary: mostlyValid(document, parameter.schema).map((value) => percentEncode(String(value))),
          },
        ),
      ]),
    ),
  );
  const queryValues = fc.record(
    Object.fromEntries(
      queryParameters.map((parameter) => [
        parameter.name,
        fc.tuple(mostlyValid(document, parameter.schema), fc.boolean()),
      ]),
    ),
    { requiredKeys: [] },
  );
  const unknownParameter = fc.option(
    fc.tuple(fc.constantFrom("foo", "perpage", "__proto__", "constructor", "search[]", "page[x]"), hostileValue()),
    { freq: 5 },
  );
  const body = operation.bodySchema
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: mostlyValidBody(document, operation.bodySchema).map((value) => ({
            text: JSON.stringify(value),
            type: "application/json",
          })),
        },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ text, type: "application/json" })) },
        {
          weight: 1,
          arbitrary: hostileValue().map((value) => ({
            text: JSON.stringify(value) ?? "null",
            type: "application/json",
          })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(
              "text/plain",
              "application/x-www-form-urlencoded",
              "application/xml",
              "multipart/form-data; boundary=x",
            )
            .map((type) => ({ text: "title=x", type })),
        },
      )
    : operation.method === "delete"
      ? fc.option(fc.constantFrom({ text: '{"ignored": true}', type: "application/json" }), { freq: 8 })
      : fc.constant(null); // fetch cannot send a body with GET

  const toRequest = ([path, query, unknown, payload]: [
    unknown,
    unknown,
    [string, unknown] | null,
    { text: string; type: string } | null,
  ]): GeneratedRequest =>
    assembled(operation, authorization, path as Record<string, string>, query as QueryValues, unknown, payload);
  // With a dozen parameters each sometimes hostile, a request is almost never valid as a whole:
  // a quarter of them are, so that the handlers behind validation are fuzzed too (existing ids,
  // one valid query parameter at most, the body of the schema's example).
  const example = operation.bodySchema
    ? (resolveRef(document, operation.bodySchema).example as Json | undefined)
    : undefined;
  const validRequest = fc.tuple(
    fc.record(
      Object.fromEntries(
        pathParameters.map((parameter) => [parameter.name, fc.constantFrom("1", "2", "3", "4", "5", "6", "7")]),
      ),
    ),
    queryParameters.length > 0
      ? fc
          .option(
            fc.oneof(
              ...queryParameters.map((parameter) =>
                schemaValue(document, parameter.schema).map((value) => ({ [parameter.name]: [value, false] })),
              ),
            ),
            { freq: 2 },
          )
          .map((one) => one ?? {})
      : fc.constant({}),
    fc.constant(null),
    fc.constant(example ? { text: JSON.stringify(example), type: "application/json" } : null),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(pathValues, queryValues, unknownParameter, body).map(toRequest) },
    { weight: 1, arbitrary: validRequest.map(toRequest) },
  );
}

/** A body from the schema, with some fields hostile and sometimes an unknown field. */
function mostlyValidBody(document: Json, schema: Json): fc.Arbitrary<unknown> {
  const referenced = resolveRef(document, schema);
  const resolved = Array.isArray(referenced.allOf) ? flattenAllOf(document, referenced) : referenced;
  const properties = Object.entries((resolved.properties ?? {}) as Json);
  if (properties.length === 0) return schemaValue(document, schema);
  const fields = Object.fromEntries(
    properties.map(([name, property]) => [name, mostlyValid(document, property as Json)]),
  );
  const required = ((resolved.required ?? []) as string[]).filter((name) => name in fields);
  // Random values for every field rarely make a body the service accepts (a date must parse, a
  // linked id must exist): a third of the bodies are the schema's example, valid as it stands,
  // with at most one field changed, so that writes also get through to the handlers.
  const oneField = fc.oneof(
    ...properties.map(([name, property]) =>
      mostlyValid(document, property as Json).map((value) => ({ [name]: value })),
    ),
  );
  const example = resolved.example as Json | undefined;
  const nearExample = example ? [fc.option(oneField, { freq: 2 }).map((changed) => ({ ...example, ...changed }))] : [];
  return fc
    .tuple(
      fc.oneof(fc.record(fields, { requiredKeys: required }), fc.record(fields, { requiredKeys: [] }), ...nearExample),
      fc.option(fc.tuple(fc.constantFrom("unknown_field", "id", "__proto__"), hostileValue()), { freq: 4 }),
    )
    .map(([record, extra]) => (extra ? { ...(record as object), [extra[0]]: extra[1] } : record));
}

/**
 * Whether a value is one its schema takes, as the document says (Ajv, JSON Schema 2020-12, the
 * document's references resolved): what the service's own validator may not refuse.
 */
export function schemaJudge(document: Json): (schema: Json, value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, "doc");
  const compiled = new Map<Json, ValidateFunction>();
  return (schema, value) => {
    let validate = compiled.get(schema);
    if (!validate) {
      const rooted = JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/')) as Json;
      compiled.set(schema, (validate = ajv.compile(rooted)));
    }
    return validate(value);
  };
}

/** A value the schema takes: patterns matched, then checked against the whole schema. */
function takenValue(document: Json, schema: Json, judge: (schema: Json, value: unknown) => boolean) {
  return schemaValue(document, schema, 0, true).filter((value) => judge(schema, value));
}

/**
 * Requests every part of which the document takes (existing ids in the path, some query
 * parameters, a body its schema takes, or the schema's example), with the credential given.
 */
export function takenRequestsFor(
  document: Json,
  operation: SpecOperation,
  authorization: string,
  judge: (schema: Json, value: unknown) => boolean,
): fc.Arbitrary<GeneratedRequest> {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
  const queryParameters = operation.parameters.filter(
    (parameter) => parameter.in === "query" && resolveRef(document, parameter.schema ?? {}).type !== "object",
  );
  const path = fc.record(
    Object.fromEntries(
      pathParameters.map((parameter) => [
        parameter.name,
        resolveRef(document, parameter.schema).type === "integer"
          ? fc.constantFrom("1", "2", "3", "7")
          : takenValue(document, parameter.schema, judge).map((value) => percentEncode(String(value))),
      ]),
    ),
  );
  const query = fc.record(
    Object.fromEntries(
      queryParameters.map((parameter) => [
        parameter.name,
        takenValue(document, parameter.schema, judge).map((value) => [value, false] as [unknown, boolean]),
      ]),
    ),
    { requiredKeys: [] },
  );
  const example = operation.bodySchema ? resolveRef(document, operation.bodySchema).example : undefined;
  const body = operation.bodySchema
    ? fc.oneof(
        takenValue(document, operation.bodySchema, judge),
        ...(example !== undefined ? [fc.constant(example)] : []),
      )
    : fc.constant(undefined);
  return fc
    .tuple(path, query, body)
    .map(([pathValues, queryValues, bodyValue]) =>
      assembled(
        operation,
        authorization,
        pathValues as Record<string, string>,
        queryValues as QueryValues,
        null,
        bodyValue === undefined ? null : { text: JSON.stringify(bodyValue), type: "application/json" },
      ),
    );
}
