import type { RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { requireScopes } from "../auth/authenticate";
import { formBodyReader } from "./form-body";
import { guardInput } from "./input-guard";
import { queryNormalizer } from "./query-normalizer";
import type { JsonObject, SpecOperation } from "./spec";

export interface ValidationOptions {
  validateResponses: boolean;
  /** Checks that need the matched operation and the caller, and must come before validation. */
  authorization: RequestHandler[];
}

/** Reports a body that express.json could not parse, once the credentials have been checked. */
const raiseDeferredBodyError: RequestHandler = (req, _res, next) => {
  if (req.deferredBodyError !== undefined) return next(req.deferredBodyError);
  next();
};

/**
 * express-openapi-validator's middleware, with steps of ours put between its own:
 *   path params → route metadata → [query normalizer] → security (scopes)
 *   → [authorization] → [deferred body error] → [input guard: NUL, lone surrogates, nesting]
 *   → [form body reader] → request validation → response validation.
 * The normalizer and the form body reader need the matched operation, and must run before
 * validation; a malformed body must only be reported after an anonymous or unauthorized caller
 * has been turned away. Unknown query parameters are let through (and ignored), as WordPress does.
 */
export function specValidation(spec: JsonObject, operations: SpecOperation[], options: ValidationOptions): RequestHandler[] {
  const middleware = OpenApiValidator.middleware({
    apiSpec: structuredClone(spec) as never,
    // The document is linted in CI (`npm run lint:spec`) and checked by the tests; checking it
    // again against the OpenAPI schema took a quarter of every start-up (0.45 s).
    validateApiSpec: false,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: {
      handlers: {
        bearerAuth: (req, scopes) => requireScopes(req as never, scopes),
        basicAuth: (req, scopes) => requireScopes(req as never, scopes),
      },
    },
    useRequestUrl: true,
    // No operation takes uploads.
    fileUploader: false,
  }) as RequestHandler[];

  const expected = ["pathParamsMiddleware", "metadataMiddleware", "securityMiddleware", "requestMiddleware"];
  if (options.validateResponses) expected.push("responseMiddleware");
  const names = middleware.map((fn) => fn.name);
  if (names.join() !== expected.join()) {
    throw new Error(`express-openapi-validator's middleware changed: expected ${expected.join(", ")}, got ${names.join(", ")}`);
  }
  const [pathParams, metadata, security, request, ...response] = middleware;
  return [pathParams, metadata, queryNormalizer(operations), security, ...options.authorization, raiseDeferredBodyError, guardInput, formBodyReader(operations), request, ...response];
}
