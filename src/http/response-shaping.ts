import type { Request, RequestHandler, Response } from "express";

/**
 * WordPress's global parameters that change how an answer is sent, not what it is (the spec's
 * "WordPress's global parameters"):
 * - `_fields`: only the named fields of the item, or of each item of a collection's list;
 * - `_envelope`: status and headers moved into a `200` body, for clients that cannot read them.
 * Both act on the body a handler sends through `res.json`, after the response validator (when
 * there is one) has checked it whole: this wrapper is installed before the validator's.
 */

/** Names a `_fields` asks for: a field, or (a `venue.city` path) some fields of it. */
type FieldTree = Map<string, FieldTree | true>;

/** The keys of collection bodies that hold their items: the other keys are the collection's own. */
const COLLECTION_LISTS = ["events", "venues", "organizers", "categories", "tags"];

const MAX_FIELD_NAMES = 100;
const MAX_FIELD_PATH = 200;

/** The headers of this API an envelope carries in its body (WordPress: the response's own headers). */
const ENVELOPED_HEADERS = [
  "Link",
  "Location",
  "ETag",
  "Retry-After",
  "Allow",
  "X-WP-Total",
  "X-WP-TotalPages",
  "X-TEC-Total",
  "X-TEC-TotalPages",
];

/** `_fields` as WordPress reads it (wp_parse_list): comma-separated names, or a list of them. */
function fieldNames(value: unknown): string[] {
  const parts = Array.isArray(value)
    ? value
    : value !== null && typeof value === "object"
      ? Object.values(value)
      : [value];
  return parts
    .filter((part): part is string => typeof part === "string")
    .flatMap((part) => part.split(","))
    .map((name) => name.trim())
    .filter((name) => name.length > 0 && name.length <= MAX_FIELD_PATH)
    .slice(0, MAX_FIELD_NAMES);
}

function fieldTree(names: string[]): FieldTree {
  const tree: FieldTree = new Map();
  for (const name of names) {
    let node = tree;
    const path = name.split(".");
    for (const [depth, key] of path.entries()) {
      const existing = node.get(key);
      if (existing === true) break;
      if (depth === path.length - 1) {
        node.set(key, true);
        break;
      }
      const child: FieldTree = existing ?? new Map();
      node.set(key, child);
      node = child;
    }
  }
  return tree;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `value` with only the fields of `tree`, at every level it names (lists: each of their items). */
function project(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((item) => project(item, tree));
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (Object.prototype.hasOwnProperty.call(value, key))
      kept[key] = sub === true ? value[key] : project(value[key], sub);
  }
  return kept;
}

/** The list key of a collection body, or undefined for any other body. */
function collectionList(body: Record<string, unknown>): string | undefined {
  if (typeof body.total !== "number") return undefined;
  return COLLECTION_LISTS.find((key) => Array.isArray(body[key]));
}

/**
 * A body with only the fields of `tree`. A collection keeps its own fields and has its items
 * projected: by the names given (`title`), or by those under its list's name (`events.title`).
 */
export function projectFields(body: unknown, tree: FieldTree): unknown {
  if (!isPlainObject(body)) return project(body, tree);
  const list = collectionList(body);
  if (list === undefined) return project(body, tree);
  const under = tree.get(list);
  if (under === true) return body;
  const itemTree: FieldTree = new Map(
    [...tree].filter(([key]) => key !== list && !Object.prototype.hasOwnProperty.call(body, key)),
  );
  for (const [key, sub] of under ?? []) itemTree.set(key, sub);
  return { ...body, [list]: project(body[list], itemTree) };
}

function envelopeOf(res: Response, body: unknown): unknown {
  const headers: Record<string, string | number | string[]> = {};
  for (const name of ENVELOPED_HEADERS) {
    const value = res.getHeader(name);
    if (value === undefined) continue;
    headers[name] = value;
    res.removeHeader(name);
  }
  return { body, status: res.statusCode, headers };
}

function shapingOf(req: Request): { fields: FieldTree | null; envelope: boolean } {
  const query = req.query as Record<string, unknown>;
  const names = query._fields === undefined ? [] : fieldNames(query._fields);
  return { fields: names.length > 0 ? fieldTree(names) : null, envelope: query._envelope !== undefined };
}

const fieldsOf = (res: Response) => (res.locals as { fields?: FieldTree | null }).fields ?? null;

/** Whether the request asks for some fields only (`_fields`): its representations are other bytes, with other tags. */
export function asksForFields(res: Response): boolean {
  return fieldsOf(res) !== null;
}

/**
 * The body a representation's 200 is sent as, `_fields` applied: what its entity tag is the digest
 * of (http/conditional.ts), so that each variant has its own tag. (Shaping it again, as res.json
 * does, gives the same body.)
 */
export function shapedBody(res: Response, body: unknown): unknown {
  const fields = fieldsOf(res);
  return fields === null ? body : projectFields(body, fields);
}

export const responseShaping: RequestHandler = (req, res, next) => {
  const { fields, envelope } = shapingOf(req);
  if (fields === null && !envelope) return next();
  (res.locals as { fields?: FieldTree | null }).fields = fields;
  const send = res.json.bind(res);
  // An own property: http/conditional.ts sends through res.json when one is installed.
  res.json = (body: unknown) => {
    const success = res.statusCode >= 200 && res.statusCode < 300;
    const shaped = fields !== null && success ? projectFields(body, fields) : body;
    if (!envelope) return send(shaped);
    const wrapped = envelopeOf(res, shaped);
    res.status(200);
    return send(wrapped);
  };
  next();
};
