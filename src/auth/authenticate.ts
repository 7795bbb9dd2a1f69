import type { Request, RequestHandler } from "express";
import { ApiError } from "../http/errors";
import { isJsonpRequest } from "../http/jsonp";
import type { CredentialVerifier } from "./credentials";
import type { Principal } from "./principal";
import { can } from "./roles";

/** The caller's address, as the rate limit and the slow-hash queue tell clients apart. */
export function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "";
}

/**
 * Resolves the caller from the Authorization header, before anything else looks at the request:
 * no header means anonymous; a header that is not a valid credential is a 401 on any route,
 * without saying which part was wrong. A JSONP request is anonymous whatever it sends (http/jsonp.ts).
 */
export function authenticate(verifier: CredentialVerifier): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === "" || isJsonpRequest(req.query)) {
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

type SecurityRequirement = Record<string, string[]>;

/** What an operation asks of its caller: the spec's `security`, and its `x-required-capabilities`. */
export interface OperationAccess {
  security?: SecurityRequirement[];
  /**
   * The capabilities the caller's role must hold (`edit_events`): kept out of the security
   * requirements' scopes, which OpenAPI defines for OAuth2 and OpenID schemes only.
   */
  "x-required-capabilities"?: string[];
}

/**
 * Whether the caller may call an operation: one of its security requirements empty (`{}`: anyone),
 * or a signed-in caller whose role holds every capability it requires (none: any signed-in caller),
 * whatever scheme the credential came in (`authenticate` verified it).
 */
export function mayCall(principal: Principal | null, access: OperationAccess | undefined): boolean {
  const requirements = access?.security;
  if (!requirements || requirements.length === 0) return true;
  if (requirements.some((requirement) => Object.keys(requirement).length === 0)) return true;
  const capabilities = access?.["x-required-capabilities"] ?? [];
  return principal !== null && capabilities.every((capability) => can(principal.role, capability));
}

/**
 * The operation's security, once it is matched and before anything reads the request's body: 401
 * for an anonymous caller it is not open to, 403 for a signed-in one whose role may not call it,
 * whatever the scheme of the credential. (The validator's own check answered 401, "Bearer header
 * required", to every Basic caller it refused.)
 */
export const requireOperationScopes: RequestHandler = (req, _res, next) => {
  const operation = (req as { openapi?: { schema?: OperationAccess } }).openapi?.schema;
  if (mayCall(req.principal ?? null, operation)) return next();
  next(statusError(req.principal ? 403 : 401));
};
