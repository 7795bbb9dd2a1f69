import { validatorModule } from "./validator-modules";

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
  const ajvResolve = validatorModule<{ getSchemaRefs: GetSchemaRefs; sharedSubtreesSkipped?: true }>(
    "ajv/dist/compile/resolve",
  );
  if (ajvResolve.sharedSubtreesSkipped) return;
  const traverse = validatorModule<Traverse>("json-schema-traverse", "ajv");
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

/**
 * Each operation's schemas are roots of their own, so Ajv compiled every `$ref` they reach (the
 * event, the venue, the error shapes...) again for each operation: a third of the start-up's CPU,
 * and each operation's first request paid for its own copy. A reference resolves to the same
 * schema in every root that carries the same shared subtrees (the document's `paths` and
 * `components` objects, compiled with the same options by the same Ajv instance): so what it
 * resolves to, inlined schema or compiled function, is kept for that instance and those subtrees,
 * and every later root reuses it. A reference resolved from a scope of its own (an `$id` below
 * the root) goes the usual way. Patched on the module Ajv's `$ref` keyword calls through.
 */
export function compileSharedRefsOnce(): void {
  const ajvCompile = validatorModule<{ resolveRef: ResolveRef; sharedRefsCompiledOnce?: true }>("ajv/dist/compile");
  if (ajvCompile.sharedRefsCompiledOnce) return;
  const resolveRef = ajvCompile.resolveRef;
  if (typeof resolveRef !== "function")
    throw new Error("Ajv's compile module no longer has resolveRef: see shared-schema-refs.ts");
  const resolved = new WeakMap<object, WeakMap<object, WeakMap<object, Map<string, unknown>>>>();
  /** The references resolved by `ajv` in roots carrying these `paths` and `components`. */
  const sharedBy = (ajv: object, paths: object, components: object): Map<string, unknown> => {
    let byPaths = resolved.get(ajv);
    if (!byPaths) resolved.set(ajv, (byPaths = new WeakMap()));
    let byComponents = byPaths.get(paths);
    if (!byComponents) byPaths.set(paths, (byComponents = new WeakMap()));
    let refs = byComponents.get(components);
    if (!refs) byComponents.set(components, (refs = new Map()));
    return refs;
  };
  ajvCompile.resolveRef = function (root, baseId, ref) {
    const { paths, components } = (root.schema ?? {}) as SchemaNode;
    const shared =
      baseId === root.baseId && ref.startsWith("#/") && isObject(paths) && isObject(components)
        ? sharedBy(this, paths, components)
        : null;
    const known = shared?.get(ref);
    if (known !== undefined) return known;
    const found = resolveRef.call(this, root, baseId, ref);
    if (found !== undefined) shared?.set(ref, found);
    return found;
  };
  ajvCompile.sharedRefsCompiledOnce = true;
}

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

type ResolveRef = (this: object, root: { schema?: unknown; baseId: string }, baseId: string, ref: string) => unknown;

/** What express-openapi-validator puts, the same objects, in every operation's schemas. */
const SHARED_KEYS = ["paths", "components"];

type SchemaNode = Record<string, unknown>;
type GetSchemaRefs = (this: AjvInstance, schema: SchemaNode | boolean, baseId: string) => unknown;
type Traverse = (schema: object, options: { allKeys: boolean }, visit: (node: SchemaNode) => void) => void;
type AjvInstance = { opts: { schemaId?: string } };
