import { isDeepStrictEqual } from "node:util";
import { dereference, type JsonObject } from "../src/openapi/spec";

/** One failed check of `optic diff --check`, located as its report locates it. */
export interface Finding {
  /** `POST /events` */
  operation: string;
  section: "request" | "response" | "other";
  /** The media type of the body the finding is in. */
  mediaType?: string;
  /** The JSON pointer of the property, from the media type object (`/schema/properties/venue`). */
  pointer?: string;
  rule: string;
  message: string;
}

/** The findings of Optic's text report: `x [rule] message` lines, under their operation, body and property. */
export function findingsOf(report: string): Finding[] {
  const findings: Finding[] = [];
  let operation = "";
  let section: Finding["section"] = "other";
  let mediaType: string | undefined;
  let pointer: string | undefined;
  for (const line of report.split("\n")) {
    let match: RegExpExecArray | null;
    if ((match = /^x ((?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \S+):/.exec(line))) {
      operation = match[1];
      section = "other";
      mediaType = pointer = undefined;
    } else if ((match = /^ {2}- (request|response \d+|.+)?:/.exec(line))) {
      section = match[1] === "request" ? "request" : match[1]?.startsWith("response") ? "response" : "other";
      mediaType = pointer = undefined;
    } else if ((match = /^\s+- body (\S+):/.exec(line))) {
      mediaType = match[1];
      pointer = undefined;
    } else if ((match = /^\s+- property (\S*):/.exec(line))) {
      pointer = match[1];
    } else if ((match = /^\s+x \[(.+?)\] (.*)$/.exec(line))) {
      findings.push({ operation, section, mediaType, pointer, rule: match[1], message: match[2] });
    }
  }
  return findings;
}

/** Words of a schema that say nothing about which values it takes. */
const ANNOTATIONS = new Set(["description", "example", "examples", "title", "deprecated"]);

/** An integer's `int32` or `int64` format, which (with the bounds every integer here has) takes nothing away. */
const isWidthFormat = (key: string, value: unknown) => key === "format" && (value === "int32" || value === "int64");

function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (schema === null || typeof schema !== "object") return schema;
  const kept = Object.entries(schema).filter(([key, value]) => !ANNOTATIONS.has(key) && !isWidthFormat(key, value));
  return Object.fromEntries(kept.map(([key, value]) => [key, withoutAnnotations(value)]));
}

/**
 * Whether `wider` takes every value `narrower` takes: equal; a union of which each branch is
 * taken; a union with a branch that takes it, type by type; or a list like it whose items take
 * every item it takes.
 */
export function covers(wider: JsonObject, narrower: JsonObject): boolean {
  const [a, b] = [withoutAnnotations(wider) as JsonObject, withoutAnnotations(narrower) as JsonObject];
  if (isDeepStrictEqual(a, b)) return true;
  const narrowerBranches = (b.anyOf ?? b.oneOf) as JsonObject[] | undefined;
  if (narrowerBranches !== undefined && Object.keys(b).length === 1)
    return narrowerBranches.every((branch) => covers(a, branch));
  if (Array.isArray(b.type)) return b.type.every((type) => covers(a, { ...b, type }));
  if (Array.isArray(a.type) && typeof b.type === "string" && a.type.includes(b.type))
    return isDeepStrictEqual({ ...a, type: b.type }, b);
  if (a.type === "array" && b.type === "array" && a.items && b.items) {
    const rest = (schema: JsonObject) => Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "items"));
    if (isDeepStrictEqual(rest(a), rest(b)) && covers(a.items as JsonObject, b.items as JsonObject)) return true;
  }
  const branches = (a.anyOf ?? a.oneOf) as JsonObject[] | undefined;
  return branches !== undefined && branches.some((branch) => covers(branch, b));
}

function mediaTypeObject(document: JsonObject, operation: string, mediaType: string): JsonObject | undefined {
  const [method, path] = operation.split(" ");
  const item = (document.paths as Record<string, Record<string, JsonObject>>)[path];
  const body = item?.[method.toLowerCase()]?.requestBody;
  if (body === undefined) return undefined;
  const content = (dereference(document, body) as { content?: Record<string, JsonObject> }).content;
  return content?.[mediaType];
}

/** What `key` of a schema node is, looking into the members of its `allOf` too (as Optic flattens them). */
function child(node: JsonObject, key: string): unknown {
  if (key in node) return node[key];
  for (const member of (node.allOf as JsonObject[] | undefined) ?? []) {
    const found = child(member, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The schema at `pointer` (as Optic reports it) from a media type object, with every `$ref` resolved. */
function at(document: JsonObject, node: JsonObject, pointer: string): JsonObject | undefined {
  let current: unknown = dereference(document, node);
  for (const part of pointer.split("/").slice(1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = child(current as JsonObject, part.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return current as JsonObject | undefined;
}

export function isCompatible(finding: Finding, before: JsonObject, after: JsonObject): boolean {
  if (finding.section !== "request" || finding.mediaType === undefined) return false;
  const old = mediaTypeObject(before, finding.operation, finding.mediaType);
  if (finding.rule === "prevent changing request property to required")
    return old === undefined && mediaTypeObject(after, finding.operation, finding.mediaType) !== undefined;
  if (
    finding.rule === "prevent expanded in request union types" &&
    old !== undefined &&
    finding.pointer !== undefined
  ) {
    const oldSchema = at(before, old, finding.pointer);
    const newSchema = at(after, mediaTypeObject(after, finding.operation, finding.mediaType)!, finding.pointer);
    return oldSchema !== undefined && newSchema !== undefined && covers(newSchema, oldSchema);
  }
  return false;
}
