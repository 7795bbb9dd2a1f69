import type { Request, RequestHandler } from "express";
import { ApiError, InvalidParamsError, type ParamProblem } from "../http/errors";
import type { SpecOperation } from "./spec";

/**
 * Brings query strings written the way WordPress clients write them into the shapes the spec
 * declares, before the request is validated:
 * - list parameters: `a,b`, `a, b`, `a=1&a=2`, `a[]=1&a[]=2` and `a[x]=1&a[y]=2` all become a
 *   list, with spaces around items and empty items dropped (docs/compatibility.md §2);
 * - boolean parameters (flags): `1`/`0` and any case of `true`/`false` become `true`/`false`, and
 *   so do `yes`/`no`, `on`/`off`... where the original reads them (TruthyFlag);
 * and refuses numbers that are not finite: the validator (Ajv) reads `Infinity` and `1e309` as
 * numbers, and then skips their range checks. A numeric path parameter (an id) that is not
 * digits, or is past its maximum, matches no route, as in WordPress (`(?P<id>\d+)`).
 * Which parameters are lists, booleans or numbers comes from the operation's declaration in the spec.
 */
interface QueryShape {
  lists: Set<string>;
  /** Lists of numbers, and the type of their items. */
  numberLists: Map<string, "integer" | "number">;
  booleans: Set<string>;
  /** The flags that take the original's yes-and-no words: the words each reads as yes (its others are no). */
  trueWords: Map<string, FlagWords>;
  numbers: Map<string, "integer" | "number">;
  /** Numeric path parameters (ids), and their maximum. */
  pathIds: Map<string, number>;
  /** Every query parameter the operation declares. */
  declared: Set<string>;
}

// A decimal number as JSON writes it, spaces around it allowed.
const DECIMAL = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

const NOT_FINITE: Record<"integer" | "number", ParamProblem> = {
  integer: {
    message: "invalid",
    detailCode: "rest_invalid_type",
    detail: { en: "Must be an integer.", "pt-br": "Deve ser um número inteiro.", es: "Debe ser un número entero." },
  },
  number: {
    message: "invalid",
    detailCode: "rest_invalid_type",
    detail: { en: "Must be a number.", "pt-br": "Deve ser um número.", es: "Debe ser un número." },
  },
};

function isFiniteNumber(value: unknown): boolean {
  return typeof value !== "string" || (DECIMAL.test(value) && Number.isFinite(Number(value)));
}

function schemaTypes(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  const own = Array.isArray(type) ? (type as string[]) : typeof type === "string" ? [type] : [];
  // A flag is `anyOf: [boolean, its string forms]` (so that contract validators take `1`): a boolean here.
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Record<string, unknown>[]) : [];
  return [...own, ...branches.flatMap((branch) => schemaTypes(branch))];
}

function shapeOf(operation: SpecOperation): QueryShape {
  const shape: QueryShape = {
    lists: new Set(),
    booleans: new Set(),
    trueWords: new Map(),
    numbers: new Map(),
    numberLists: new Map(),
    pathIds: new Map(),
    declared: new Set(),
  };
  for (const parameter of operation.parameters) {
    const types = schemaTypes(parameter.schema);
    if (parameter.in === "path" && types.includes("integer"))
      shape.pathIds.set(parameter.name, Number(parameter.schema.maximum ?? Number.MAX_SAFE_INTEGER));
    if (parameter.in !== "query") continue;
    shape.declared.add(parameter.name);
    if (types.includes("array")) {
      shape.lists.add(parameter.name);
      const itemTypes = schemaTypes((parameter.schema.items ?? {}) as Record<string, unknown>);
      if (itemTypes.includes("integer")) shape.numberLists.set(parameter.name, "integer");
      else if (itemTypes.includes("number")) shape.numberLists.set(parameter.name, "number");
    } else if (types.includes("boolean")) {
      shape.booleans.add(parameter.name);
      const words = trueWordsOf(parameter.schema);
      if (words) shape.trueWords.set(parameter.name, words);
    } else if (types.includes("integer")) shape.numbers.set(parameter.name, "integer");
    else if (types.includes("number")) shape.numbers.set(parameter.name, "number");
  }
  return shape;
}

function splitList(value: unknown): unknown {
  // `a[x]=1&a[y]=2` parses to an object; like PHP (and so WordPress), take it as the list of its values.
  const items = Array.isArray(value)
    ? value
    : value !== null && typeof value === "object"
      ? Object.values(value)
      : [value];
  // Items that are not strings (`a[x][y]=1`) stay as they are, in a list: validation rejects them.
  if (!items.every((item) => typeof item === "string")) return items;
  return (items as string[])
    .flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

interface FlagWords {
  yes: Set<string>;
  all: Set<string>;
}

// A flag typed boolean, as WordPress's boolean type reads it.
const PLAIN_WORDS: FlagWords = { yes: new Set(["true", "1"]), all: new Set(["true", "1", "false", "0"]) };

/**
 * A flag's word as `true` or `false`: one of the words its schema lists (any case, as the original
 * reads them) is yes when its `x-true-words` has it, else no; another word is left for validation
 * to refuse.
 */
function normalizeBoolean(value: unknown, words: FlagWords): unknown {
  if (typeof value !== "string") return value;
  const word = value.toLowerCase();
  if (!words.all.has(word)) return value;
  return words.yes.has(word) ? "true" : "false";
}

/**
 * The words a flag's schema takes and those of them it reads as yes (`x-true-words`: TruthyFlag,
 * the original's `tribe_is_truthy`; PhpBooleanFlag, PHP's boolean filter); null for a plain flag.
 */
function trueWordsOf(schema: Record<string, unknown>): FlagWords | null {
  const yes = schema["x-true-words"];
  if (!Array.isArray(yes)) return null;
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Array<{ enum?: unknown[] }>) : [];
  const all = branches.flatMap((branch) => (branch.enum ?? []).map(String));
  return { yes: new Set(yes.map(String)), all: new Set(all) };
}

const DECLARED = Symbol("declared query parameters");

/**
 * The query parameters of the request that its operation declares, with their validated values
 * (the others, which are ignored, left out).
 */
export function declaredQuery(req: Request): Record<string, unknown> {
  const declared = (req as Request & { [DECLARED]?: Set<string> })[DECLARED];
  const query = req.query as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(query)
      .filter((name) => declared?.has(name))
      .map((name) => [name, query[name]]),
  );
}

/** The operation express-openapi-validator matched (its metadata middleware sets `req.openapi`). */
export function matchedOperationId(req: Request): string | undefined {
  return (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
}

/**
 * After validation, a flag is a boolean. (The validator coerces each branch of a flag's `anyOf` in
 * turn, boolean then string, so that it may leave "true" as a string.)
 */
export function flagsAsBooleans(shapes: QueryShapes): RequestHandler {
  return (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const query = req.query as Record<string, unknown>;
    for (const name of (operationId && shapes.get(operationId)?.booleans) || [])
      if (query[name] !== undefined) query[name] = query[name] === true || query[name] === "true";
    next();
  };
}

/** What each operation's query parameters are (lists, flags, numbers), read once from the spec. */
export type QueryShapes = ReadonlyMap<string, QueryShape>;

export function queryShapes(operations: SpecOperation[]): QueryShapes {
  return new Map(operations.map((operation) => [operation.operationId, shapeOf(operation)]));
}

export function queryNormalizer(shapes: QueryShapes): RequestHandler {
  return (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const shape = operationId ? shapes.get(operationId) : undefined;
    if (!shape) return next();
    const pathParams =
      (req as Request & { openapi?: { pathParams?: Record<string, unknown> } }).openapi?.pathParams ?? {};
    for (const [name, maximum] of shape.pathIds) {
      const value = pathParams[name];
      if (value !== undefined && (!/^\d+$/.test(String(value)) || Number(value) > maximum))
        return next(new ApiError("rest_no_route"));
    }
    const query = req.query as Record<string, unknown>;
    const problems: Record<string, ParamProblem> = Object.create(null);
    for (const name of Object.keys(query)) {
      if (shape.lists.has(name)) {
        query[name] = splitList(query[name]);
        const itemType = shape.numberLists.get(name);
        if (itemType && Array.isArray(query[name]) && !(query[name] as unknown[]).every(isFiniteNumber))
          problems[name] = NOT_FINITE[itemType];
      } else if (shape.booleans.has(name))
        query[name] = normalizeBoolean(query[name], shape.trueWords.get(name) ?? PLAIN_WORDS);
      else if (shape.numbers.has(name) && !isFiniteNumber(query[name]))
        problems[name] = NOT_FINITE[shape.numbers.get(name)!];
    }
    if (Object.keys(problems).length > 0) return next(new InvalidParamsError(problems));
    // Express 5 recomputes req.query from the URL on every read; pin the normalized object so
    // the validator (which coerces it in place) and the handlers see the same one.
    Object.defineProperty(req, "query", { value: query, writable: true, configurable: true, enumerable: true });
    (req as Request & { [DECLARED]?: Set<string> })[DECLARED] = shape.declared;
    next();
  };
}
