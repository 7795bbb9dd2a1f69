import type { Request, RequestHandler } from "express";
import { ifMatchHolds, ifMatchOf } from "../http/conditional";
import { ApiError } from "../http/errors";
import type { Operation, TargetRule, Versioned, WriteTarget } from "../http/operation-types";
import { matchedOperationId } from "../openapi/query-normalizer";

/**
 * Writes to one item (`PATCH /events/{id}`, `DELETE /venues/by-slug/{slug}`...) find and check
 * their item before the body is validated (docs/compatibility.md: authorization comes before the body). The
 * spec's scopes have already checked the caller's role; this finds the item through its
 * resource's resolver (the one id-or-slug lookup), answers 404 when there is none (412 when the
 * request has If-Match: there is no item for it to match), refuses what the caller may not do to
 * it (403), and hands it on to the handler, which does not look it up again.
 */

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The item of a write, as found and checked before validation. */
      writeTarget?: Versioned;
    }
  }
}

export function checkWriteTargets(operations: Record<string, Operation>): RequestHandler {
  return async (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const rule = operationId ? operations[operationId]?.target : undefined;
    if (!rule) return next();
    const item = await rule.resolve(req);
    if (!item) return next(ifMatchOf(req) !== null ? new ApiError("rest_precondition_failed") : rule.notFound(req));
    if (!rule.allows(req, item)) return next(new ApiError("rest_forbidden"));
    req.writeTarget = item;
    next();
  };
}

/**
 * The item of a write as its handler hands it to the store: what was found before validation,
 * with the checks to make again under the item's lock (the same rule, and the request's If-Match
 * against `etagsOf`, the tags the item is known by now, as a GET by this caller would give them).
 */
export function writeTargetOf<R extends Versioned>(
  req: Request,
  rule: TargetRule<R>,
  etagsOf: (record: R) => string[],
): WriteTarget<R> {
  const record = req.writeTarget as R | undefined;
  if (!record) throw new Error("a write's item used before it was found (checkWriteTargets)");
  const ifMatch = ifMatchOf(req);
  return {
    record,
    conditional: ifMatch !== null,
    verify(current: R | null): asserts current is R {
      if (!current) throw ifMatch !== null ? new ApiError("rest_precondition_failed") : rule.notFound(req);
      if (!rule.allows(req, current)) throw new ApiError("rest_forbidden");
      if (!ifMatchHolds(ifMatch, () => etagsOf(current))) throw new ApiError("rest_precondition_failed");
    },
  };
}
