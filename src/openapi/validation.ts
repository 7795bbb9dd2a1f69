import type { RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { requireOperationScopes } from "../auth/authenticate";
import { isWarmUpMessage } from "../http/warm-up-marker";
import { RecentValues } from "../text/text-memo";
import { formBodyReader } from "./form-body";
import { requestDocument, withBodyReferencesResolved } from "./request-document";
import { guardInput } from "./input-guard";
import { compileSharedRefsOnce, walkSharedSubtreesOnce } from "./shared-schema-refs";
import { validatorModule } from "./validator-modules";
import { flagsAsBooleans, queryNormalizer, queryShapes } from "./query-normalizer";
import type { JsonObject, SpecOperation } from "./spec";

export interface ValidationOptions {
  validateResponses: boolean;
  /** Checks that need the matched operation and the caller, and must come before validation. */
  authorization: RequestHandler[];
  /** What reads a request's body: only once the caller may call the operation (see http/request-body.ts). */
  bodyReaders: RequestHandler[];
}

/**
 * The validator finds a request's operation by compiling the path pattern of every route with
 * path-to-regexp, on every request, until one matches (a twentieth of an anonymous read's CPU).
 * The patterns are the document's, a fixed set, and a compiled pattern holds no state between
 * matches (no `g` flag): each is compiled once. Patched on the module the validator calls through
 * at each request; Express's router compiles its own routes once, when they are added.
 */
function compilePathPatternsOnce(): void {
  const pathToRegexp = validatorModule<{
    pathToRegexp: (path: string, options?: object) => unknown;
    compiledOnce?: true;
  }>("path-to-regexp");
  if (pathToRegexp.compiledOnce) return;
  const compile = pathToRegexp.pathToRegexp;
  const compiled = new RecentValues<unknown>(2_000);
  pathToRegexp.pathToRegexp = (path, options) =>
    typeof path === "string"
      ? compiled.valueOf(`${JSON.stringify(options ?? {})} ${path}`, () => compile(path, options))
      : compile(path, options);
  pathToRegexp.compiledOnce = true;
}

/**
 * The validator's parameter mutator reads each parameter of the operation on every request: it
 * resolves its schema through Ajv (`normalizeParameter`) and sets its default style and explode
 * on it, for the same parameter objects of the document each time (a seventh of a cached list's
 * CPU, with its thirty-odd parameters). What it gives for one parameter object never changes:
 * each is read once. Patched on the module the mutator calls through at each request.
 */
function normalizeParametersOnce(): void {
  const parsers = validatorModule<{
    normalizeParameter: (ajv: unknown, parameter: object) => { name: string; schema: unknown };
    normalizedOnce?: true;
  }>("./middlewares/parsers/util");
  if (parsers.normalizedOnce) return;
  const normalize = parsers.normalizeParameter;
  const normalized = new WeakMap<object, { name: string; schema: unknown }>();
  parsers.normalizeParameter = (ajv, parameter) => {
    let result = normalized.get(parameter);
    if (!result) normalized.set(parameter, (result = normalize(ajv, parameter)));
    return result;
  };
  parsers.normalizedOnce = true;
}

/**
 * express-openapi-validator compiles the OpenAPI meta-schema at every start, to check the
 * document against it, and keeps it when told not to check (`validateApiSpec: false`): a tenth of
 * the start-up's CPU for nothing. It is compiled when a check asks for it. Patched on the module
 * the validator constructs it through.
 */
function compileMetaSchemaWhenUsed(): void {
  const metaSchema = validatorModule<{
    OpenAPISchemaValidator: new (options: object) => { validate(document: unknown): unknown };
    compiledWhenUsed?: true;
  }>("./framework/openapi.schema.validator");
  if (metaSchema.compiledWhenUsed) return;
  const Eager = metaSchema.OpenAPISchemaValidator;
  metaSchema.OpenAPISchemaValidator = class {
    constructor(private readonly options: object) {}
    validate(document: unknown): unknown {
      return new Eager(this.options).validate(document);
    }
  };
  metaSchema.compiledWhenUsed = true;
}

/**
 * express-openapi-validator's middleware, with steps of ours put between its own:
 *   path params → route metadata → [query normalizer] → [security: the operation's scopes]
 *   → [authorization] → [body readers] → [input guard: NUL, lone surrogates, nesting] → [form body reader] → request validation
 *   → [flags as booleans] → response validation.
 * Who the caller is, and whether the operation is open to them, is settled before a byte of the
 * body is read: an anonymous or unauthorized write is turned away at once, whatever it carries.
 * The normalizer and the form body reader need the matched operation, and must run before
 * validation. Unknown query parameters are let through (and ignored), as WordPress does.
 */
export function specValidation(
  spec: JsonObject,
  operations: SpecOperation[],
  options: ValidationOptions,
): RequestHandler[] {
  compilePathPatternsOnce();
  normalizeParametersOnce();
  compileMetaSchemaWhenUsed();
  walkSharedSubtreesOnce();
  compileSharedRefsOnce();
  const middleware = OpenApiValidator.middleware({
    apiSpec: withBodyReferencesResolved(
      options.validateResponses ? structuredClone(spec) : requestDocument(spec),
    ) as never,
    // The document is linted in CI (`npm run lint:spec`) and checked by the tests; checking it
    // again against the OpenAPI schema took a quarter of every start-up (0.45 s).
    validateApiSpec: false,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    // The credential is verified by auth/authenticate.ts and the scopes by requireOperationScopes.
    validateSecurity: false,
    useRequestUrl: true,
    // No operation takes uploads.
    fileUploader: false,
  }) as RequestHandler[];

  const expected = ["pathParamsMiddleware", "metadataMiddleware", "securityMiddleware", "requestMiddleware"];
  if (options.validateResponses) expected.push("responseMiddleware");
  const names = middleware.map((fn) => fn.name);
  if (names.join() !== expected.join()) {
    throw new Error(
      `express-openapi-validator's middleware changed: expected ${expected.join(", ")}, got ${names.join(", ")}`,
    );
  }
  const [pathParams, metadata, , request, ...response] = middleware;
  const shapes = queryShapes(operations);
  return [
    pathParams,
    metadata,
    queryNormalizer(shapes),
    ...[requireOperationScopes, ...options.authorization].map(exceptWarmUpWrites),
    ...options.bodyReaders,
    guardInput,
    formBodyReader(operations),
    request,
    warmUpWritesEndHere,
    flagsAsBooleans(shapes),
    ...response,
  ];
}

/**
 * The process's warm-up (http/warm-up.ts) sends each write operation too, for its validators to
 * be built before the first client's write: as far as validation, whoever may call it, and no
 * further (a write's first request took 55–85 ms longer than its tenth without). Only this process
 * knows the warm-up's secret, and a warm-up write never reaches its handler.
 */
function isWarmUpWrite(req: Parameters<RequestHandler>[0]): boolean {
  return req.method !== "GET" && req.method !== "HEAD" && isWarmUpMessage(req.headers);
}

function exceptWarmUpWrites(check: RequestHandler): RequestHandler {
  return (req, res, next) => (isWarmUpWrite(req) ? next() : check(req, res, next));
}

const warmUpWritesEndHere: RequestHandler = (req, res, next) => {
  if (isWarmUpWrite(req)) res.status(204).end();
  else next();
};
