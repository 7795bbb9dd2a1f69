import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import fc from "fast-check";

/**
 * Values a schema of the OpenAPI document accepts, for tests that write what the spec lets
 * through and read it back through every door: its edge values (the shortest and longest
 * strings, in ASCII and in characters outside the BMP, markup, controls, white space, each bound
 * of a number, each member of an enum or a union, empty and full lists) and values drawn at
 * random from its patterns. Every value is checked with Ajv against the schema itself, so that
 * only what the spec accepts is offered: what the service still refuses, it must refuse with a
 * 4xx, and what it stores, every read must show.
 */

type Json = Record<string, any>;

/** Characters past the BMP count once in a JSON Schema length and twice in JavaScript's. */
const WIDE = "🎷";
/** A letter past the BMP (U+20000): slugs keep letters. */
const WIDE_LETTER = "\u{20000}";

export class SpecValues {
  private readonly ajv: Ajv2020;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: "spec" });
  }

  resolve(schema: Json | undefined): Json {
    let current = schema ?? {};
    while (typeof current.$ref === "string")
      current = (current.$ref as string)
        .slice(2)
        .split("/")
        .reduce((node: Json, key) => node[key.replace(/~1/g, "/").replace(/~0/g, "~")], this.document);
    return current;
  }

  /** The properties of an object schema, its `allOf` members' included. */
  properties(schema: Json): Record<string, Json> {
    const resolved = this.resolve(schema);
    const own = (resolved.properties ?? {}) as Record<string, Json>;
    const members = ((resolved.allOf ?? []) as Json[]).map((member) => this.properties(member));
    return Object.assign({}, ...members, own);
  }

  /** Whether the schema accepts `value` (its `$ref`s read in the document). */
  accepts(schema: Json, value: unknown): boolean {
    const validate = this.ajv.compile(this.withRefsInDocument(schema));
    return validate(value) === true;
  }

  private withRefsInDocument(schema: Json): Json {
    return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"spec#/'));
  }

  /** Values the schema accepts, edges first, then `samples` drawn at random (a fixed seed). */
  values(schema: Json, samples = 1, seed = 20261207): unknown[] {
    const validate = this.ajv.compile(this.withRefsInDocument(schema));
    // A pattern is where a hand-picked edge is least likely to find what it lets through: more draws.
    const draws = this.patterned(schema) ? samples * 4 : samples;
    const candidates = [...this.edges(schema, 0), ...this.sampled(schema, draws, seed)];
    const seen = new Set<string>();
    return candidates.filter((value) => {
      const key = JSON.stringify(value);
      if (key === undefined || seen.has(key) || !validate(value)) return false;
      seen.add(key);
      return true;
    });
  }

  private patterned(raw: Json): boolean {
    const schema = this.resolve(raw);
    if (typeof schema.pattern === "string") return true;
    const members = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])] as Json[];
    return members.some((member) => this.patterned(member));
  }

  private edges(raw: Json, depth: number): unknown[] {
    const schema = this.resolve(raw);
    if (depth > 3) return [];
    const own: unknown[] = [];
    if (schema.example !== undefined) own.push(schema.example);
    if (schema.const !== undefined) own.push(schema.const);
    if (Array.isArray(schema.enum)) own.push(...schema.enum);
    for (const key of ["oneOf", "anyOf", "allOf"] as const)
      if (Array.isArray(schema[key])) for (const member of schema[key]) own.push(...this.edges(member, depth + 1));
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    for (const type of types) own.push(...this.edgesOfType(schema, type, depth));
    return own;
  }

  private edgesOfType(schema: Json, type: string, depth: number): unknown[] {
    switch (type) {
      case "null":
        return [null];
      case "boolean":
        return [true, false];
      case "integer":
      case "number": {
        const low =
          schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -(2 ** 31));
        const high =
          schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 2 ** 31 - 1);
        const numbers = [low, high, 0, 1, -1, low + 1, high - 1];
        return type === "number" ? [...numbers, 0.5, -0.000001, high - 0.000001, low + 0.000001] : numbers;
      }
      case "string":
        return this.stringEdges(schema);
      case "array": {
        const items = this.edges(schema.items ?? {}, depth + 1).filter((item) => item !== null);
        const most = Math.min(schema.maxItems ?? 20, 100);
        return [[], items.slice(0, 1), items.slice(0, most), Array.from({ length: most }, () => items[0])];
      }
      case "object": {
        const properties = this.properties(schema);
        const required = (this.resolve(schema).required ?? []) as string[];
        const minimal = Object.fromEntries(required.map((name) => [name, this.edges(properties[name], depth + 1)[0]]));
        return [{}, minimal];
      }
      default:
        return [];
    }
  }

  private stringEdges(schema: Json): string[] {
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? 5_000, 70_000);
    const strings = [
      "",
      "a".repeat(Math.max(min, 1)),
      "a".repeat(max),
      WIDE.repeat(max),
      // Letters past the BMP after one in it: a cut at an even length falls inside a pair.
      `a${WIDE_LETTER.repeat(Math.max(0, max - 1))}`,
      "a\ud800b lone surrogate",
      " ",
      "<b>bold</b> & <script>alert(1)</script>",
      "\u0001\u001f\u007f\u202e control",
      "-1",
      "2027-03-01",
      "now",
    ];
    if (typeof schema.example === "string") {
      strings.push(schema.example, schema.example.padEnd(max, "x"), `${schema.example}${WIDE}`);
    }
    return strings;
  }

  private sampled(raw: Json, samples: number, seed: number): unknown[] {
    if (samples === 0) return [];
    const arbitrary = this.arbitrary(raw, 0);
    return arbitrary ? fc.sample(arbitrary, { numRuns: samples, seed }) : [];
  }

  /** A random value of the schema, patterns drawn by fast-check (null: none to draw). */
  private arbitrary(raw: Json, depth: number): fc.Arbitrary<unknown> | null {
    const schema = this.resolve(raw);
    if (depth > 3) return null;
    const members = (schema.oneOf ?? schema.anyOf ?? schema.allOf) as Json[] | undefined;
    if (Array.isArray(members)) {
      const arbitraries = members.map((member) => this.arbitrary(member, depth + 1)).filter((a) => a !== null);
      return arbitraries.length > 0 ? fc.oneof(...arbitraries) : null;
    }
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.includes("string")) {
      const max = Math.min(schema.maxLength ?? 200, 2_000);
      if (typeof schema.pattern === "string") {
        try {
          return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length <= max);
        } catch {
          // A pattern fast-check cannot draw from (a lookahead): its edges stand for it.
          return null;
        }
      }
      return fc.string({ unit: "grapheme", minLength: schema.minLength ?? 0, maxLength: Math.min(max, 60) });
    }
    if (types.includes("integer"))
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 - 1 });
    if (types.includes("number"))
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    if (types.includes("array")) {
      const items = this.arbitrary(schema.items ?? {}, depth + 1);
      return items ? fc.array(items, { maxLength: Math.min(schema.maxItems ?? 5, 5) }) : null;
    }
    return null;
  }
}
