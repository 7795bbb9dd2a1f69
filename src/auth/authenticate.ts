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
 * The security handler of every scheme: the credential was verified by `authenticate`; this
 * checks that the caller's role has every capability the operation lists as scopes. It runs
 * before the request is validated, so an anonymous or unauthorized write never gets a 400.
 */
export function requireScopes(req: Request, scopes: string[]): true {
  const principal = req.principal;
  if (!principal) throw statusError(401);
  if (!scopes.every((scope) => can(principal.role, scope))) throw statusError(403);
  return true;
}
