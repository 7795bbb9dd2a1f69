import type { RequestHandler } from "express";

// JSON is never a document to render: nothing may load, nothing may frame it.
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
// The documentation page is one self-contained file (inline scripts, styles and images, web workers
// from blobs): it loads nothing from any other host (scripts/build-docs.ts inlines Redoc's badge).
const DOCS_POLICY =
  "default-src 'none'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "worker-src blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Headers that keep browsers from misusing responses: no MIME sniffing, no framing, no referrer
 * leaks, a content security policy; and, on HTTPS (as seen through a trusted proxy), HSTS.
 */
export const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
  res.setHeader(
    "Content-Security-Policy",
    /\/doc\/?$/.test(req.path) && req.accepts(["json", "html"]) === "html" ? DOCS_POLICY : API_POLICY,
  );
  if (req.secure) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  next();
};
