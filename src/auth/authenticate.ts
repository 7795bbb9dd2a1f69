import type { Request, RequestHandler } from "express";
import { ApiError } from "../http/errors";
import type { CredentialVerifier } from "./credentials";
import { can } from "./roles";

/** The caller's address, as the rate limit and the slow-hash queue tell clients apart. */
export function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "";
}

/**
 * Resolves the caller from the Authorization header, before anything else looks at the request:
 * no header means anonymous; a header that is not a valid credential is a 401 on any route,
 * without saying which part was wrong.
 */
export function authenticate(verifier: CredentialVerifier): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === "") {
      req.principal = null;
      return next();
    }
    const principal = await verifier.verify(header, clientOf(req));
    if (!principal) return next(new ApiError("rest_forbidden", {}, {}, 401));
    req.principal = principal;
    next();
  };
}

interface StatusError extends Error {
  status: number;
}

function statusError(status: number): StatusError {
  return Object.assign(new Error(status === 401 ? "authentication required" : "not allowed"), { status });
}

/**
 * Whether the caller's role has every capability `scopes` lists: 401 when anonymous, 403 when a
 * capability is missing, whatever scheme the credential came in (it was verified by `authenticate`).
 */
export function requireScopes(req: Request, scopes: string[]): true {
  const principal = req.principal;
  if (!principal) throw statusError(401);
  if (!scopes.every((scope) => can(principal.role, scope))) throw statusError(403);
  return true;
}

type SecurityRequirement = Record<string, string[]>;

/**
 * The operation's security, once it is matched and before anything reads the request's body: open
 * when one of its requirements is empty (`{}`), else the caller must hold the scopes of one of
 * them. The schemes only say how a credential may be sent: a Basic caller without the right gets
 * the 403 a Bearer caller gets (the validator's own check answered 401, "your Bearer header is
 * missing", to every Basic caller it refused).
 */
export const requireOperationScopes: RequestHandler = (req, _res, next) => {
  const requirements = (req as { openapi?: { schema?: { security?: SecurityRequirement[] } } }).openapi?.schema
    ?.security;
  if (!requirements || requirements.length === 0) return next();
  if (requirements.some((requirement) => Object.keys(requirement).length === 0)) return next();
  let refusal: StatusError | null = null;
  for (const requirement of requirements) {
    try {
      requireScopes(req, Object.values(requirement).flat());
      return next();
    } catch (error) {
      refusal = error as StatusError;
    }
  }
  next(refusal);
};
