import type { Request, RequestHandler } from "express";
import type { SpecOperation } from "./spec";

/**
 * Brings query strings written the way WordPress clients write them into the shapes the spec
 * declares, before the request is validated:
 * - list parameters: `a,b`, `a, b`, `a=1&a=2`, `a[]=1&a[]=2` and `a[x]=1&a[y]=2` all become a
 *   list, with spaces around items and empty items dropped (tec-rest-v1.md §2);
 * - boolean parameters: `1`/`0` and any case of `true`/`false` become `true`/`false`.
 * Which parameters are lists or booleans comes from the operation's declaration in the spec.
 */
interface QueryShape {
  lists: Set<string>;
  booleans: Set<string>;
}

function schemaTypes(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === "string" ? [type] : [];
}

function shapeOf(operation: SpecOperation): QueryShape {
  const shape: QueryShape = { lists: new Set(), booleans: new Set() };
  for (const parameter of operation.parameters) {
    if (parameter.in !== "query") continue;
    const types = schemaTypes(parameter.schema);
    if (types.includes("array")) shape.lists.add(parameter.name);
    else if (types.includes("boolean")) shape.booleans.add(parameter.name);
  }
  return shape;
}

function splitList(value: unknown): unknown {
  // `a[x]=1&a[y]=2` parses to an object; like PHP (and so WordPress), take it as the list of its values.
  const items = Array.isArray(value) ? value : value !== null && typeof value === "object" ? Object.values(value) : [value];
  // Items that are not strings (`a[x][y]=1`) stay as they are, in a list: validation rejects them.
  if (!items.every((item) => typeof item === "string")) return items;
  return (items as string[])
    .flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function normalizeBoolean(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (/^(true|1)$/i.test(value)) return "true";
  if (/^(false|0)$/i.test(value)) return "false";
  return value;
}

/** The operation express-openapi-validator matched (its metadata middleware sets `req.openapi`). */
export function matchedOperationId(req: Request): string | undefined {
  return (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
}

export function queryNormalizer(operations: SpecOperation[]): RequestHandler {
  const shapes = new Map(operations.map((operation) => [operation.operationId, shapeOf(operation)]));
  return (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const shape = operationId ? shapes.get(operationId) : undefined;
    if (!shape) return next();
    const query = req.query as Record<string, unknown>;
    for (const name of Object.keys(query)) {
      if (shape.lists.has(name)) query[name] = splitList(query[name]);
      else if (shape.booleans.has(name)) query[name] = normalizeBoolean(query[name]);
    }
    // Express 5 recomputes req.query from the URL on every read; pin the normalized object so
    // the validator (which coerces it in place) and the handlers see the same one.
    Object.defineProperty(req, "query", { value: query, writable: true, configurable: true, enumerable: true });
    next();
  };
}
