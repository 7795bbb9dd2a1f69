import { dirname } from "node:path";

/**
 * express-openapi-validator compiles two JSON schemas for each operation (its parameters, its
 * body), and puts the whole document's `paths` and `components` in each, for their `$ref`s to
 * resolve. Before compiling a schema, Ajv walks every node of it for identifiers and anchors
 * (getSchemaRefs): the same two subtrees, 4,000 nodes, walked again for every operation, were
 * more than half of the validators' build time at start-up (the warm-up of 26 reads took 2.0 s
 * with it, 0.8 s without, on an empty database).
 * A subtree none of whose nodes carries an identifier or an anchor adds nothing to what that walk
 * finds: so the walk leaves out those of the validator's two shared subtrees found, once each,
 * to carry none. The refs still resolve against the whole schema, which is compiled as it is.
 * Patched on the module Ajv's core calls through, as validation.ts patches path-to-regexp.
 */
export function walkSharedSubtreesOnce(): void {
  const validatorDir = dirname(require.resolve("express-openapi-validator"));
  const ajvResolve = require(require.resolve("ajv/dist/compile/resolve", { paths: [validatorDir] })) as {
    getSchemaRefs: GetSchemaRefs;
    sharedSubtreesSkipped?: true;
  };
  if (ajvResolve.sharedSubtreesSkipped) return;
  const traverse = require(
    require.resolve("json-schema-traverse", { paths: [dirname(require.resolve("ajv", { paths: [validatorDir] }))] }),
  ) as Traverse;
  const walk = ajvResolve.getSchemaRefs;
  const plain = new Map<string, WeakMap<object, boolean>>();
  /** Whether no node of `subtree` (as Ajv's walk visits them) names an identifier or an anchor. */
  const withoutIds = (subtree: object, schemaId: string): boolean => {
    let known = plain.get(schemaId);
    if (!known) plain.set(schemaId, (known = new WeakMap()));
    let answer = known.get(subtree);
    if (answer === undefined) {
      answer = true;
      traverse(subtree, { allKeys: true }, (node) => {
        for (const key of [schemaId, "$anchor", "$dynamicAnchor"]) if (typeof node[key] === "string") answer = false;
      });
      known.set(subtree, answer);
    }
    return answer;
  };
  ajvResolve.getSchemaRefs = function (schema, baseId) {
    if (typeof schema !== "object" || schema === null) return walk.call(this, schema, baseId);
    const schemaId = this.opts.schemaId ?? "$id";
    const shared = SHARED_KEYS.filter((key) => {
      const subtree = schema[key];
      return typeof subtree === "object" && subtree !== null && withoutIds(subtree, schemaId);
    });
    if (shared.length === 0) return walk.call(this, schema, baseId);
    const rest = { ...schema };
    for (const key of shared) delete rest[key];
    return walk.call(this, rest, baseId);
  };
  ajvResolve.sharedSubtreesSkipped = true;
}

/** What express-openapi-validator puts, the same objects, in every operation's schemas. */
const SHARED_KEYS = ["paths", "components"];

type SchemaNode = Record<string, unknown>;
type GetSchemaRefs = (this: AjvInstance, schema: SchemaNode | boolean, baseId: string) => unknown;
type Traverse = (schema: object, options: { allKeys: boolean }, visit: (node: SchemaNode) => void) => void;
type AjvInstance = { opts: { schemaId?: string } };
