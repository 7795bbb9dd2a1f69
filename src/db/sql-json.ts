import type { Provider } from "./database";

/**
 * JSON built by the database, so that an item and everything linked to it come back from one
 * statement (the hot reads of events; each statement through Prisma costs a fixed few hundred
 * microseconds, more than the work itself). SQLite and PostgreSQL spell it differently; these
 * helpers write the same shapes for both. They take SQL fragments made of constants only.
 */
export interface JsonSql {
  /** A JSON object of `key → SQL expression`. */
  object(fields: Record<string, string>): string;
  /**
   * A JSON array (never null) of `item` for each row of `from` (`"Table" alias WHERE ...`),
   * in `orderBy` order.
   */
  array(item: string, from: string, orderBy: string): string;
}

const sqlite: JsonSql = {
  object: (fields) =>
    `json_object(${Object.entries(fields)
      .map(([key, value]) => `'${key}', ${value}`)
      .join(", ")})`,
  // Each item is made where the tables' aliases are visible, in order; a subquery's result loses
  // SQLite's JSON subtype, which json(...) gives back, so that items nest as JSON, not as strings.
  array: (item, from, orderBy) =>
    `json((SELECT json_group_array(json("item")) FROM (SELECT ${item} AS "item" FROM ${from} ORDER BY ${orderBy})))`,
};

const postgresql: JsonSql = {
  object: (fields) =>
    `json_build_object(${Object.entries(fields)
      .map(([key, value]) => `'${key}', ${value}`)
      .join(", ")})`,
  array: (item, from, orderBy) => `(SELECT COALESCE(json_agg(${item} ORDER BY ${orderBy}), '[]'::json) FROM ${from})`,
};

export function jsonSql(provider: Provider): JsonSql {
  return provider === "postgresql" ? postgresql : sqlite;
}

/** The columns of a table as `key → "alias"."column"` pairs, for `object`. */
export function columns(alias: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `"${alias}"."${name}"`]));
}

/** How a column's JSON value becomes the record's: SQLite has no booleans (0/1), and instants come as text. */
export type ValueType = "date" | "boolean";

/** A record's columns whose JSON form is not the record's own, by name (see each resource's record). */
export type ValueTypes = Readonly<Record<string, ValueType>>;

/**
 * The value types of records nested in one another (an event with its venues, organizers and
 * terms), as one map by column name: a name means the same type wherever it is in the tree.
 */
export function mergedValueTypes(...maps: ValueTypes[]): ValueTypes {
  const merged: Record<string, ValueType> = {};
  for (const map of maps) {
    for (const [name, type] of Object.entries(map)) {
      if (merged[name] !== undefined && merged[name] !== type)
        throw new Error(`column ${name} is a ${merged[name]} in one record and a ${type} in another`);
      merged[name] = type;
    }
  }
  return merged;
}

/**
 * A JSON value from the database, in the types Prisma would give: SQLite has no booleans
 * (0/1) and keeps dates as ISO text; PostgreSQL's JSON gives timestamps without a zone (UTC).
 */
export function revive<T>(value: unknown, types: ValueTypes): T {
  const parsed = typeof value === "string" ? JSON.parse(value) : value;
  // In place and without copies: a list page revives hundreds of records, each a tree.
  const fix = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) node[i] = fix(node[i]);
      return node;
    }
    if (node === null || typeof node !== "object") return node;
    const object = node as Record<string, unknown>;
    for (const key in object) {
      const inner = object[key];
      if (inner === null) continue;
      if (typeof inner === "object") object[key] = fix(inner);
      else if (typeof inner === "string") {
        if (types[key] === "date") object[key] = new Date(hasZone(inner) ? inner : `${inner}Z`);
      } else if (typeof inner === "number" && types[key] === "boolean") object[key] = inner !== 0;
    }
    return object;
  };
  return fix(parsed) as T;
}

/** Whether an ISO instant ends with its zone: `Z`, or an offset such as `+00:00`. */
function hasZone(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  if (last === 90 || last === 122) return true;
  const sign = text.charAt(text.length - 6);
  return (sign === "+" || sign === "-") && text.charAt(text.length - 3) === ":";
}
