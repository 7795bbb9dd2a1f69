import type { Request } from "express";
import type { Principal } from "../auth/principal";
import type { Config } from "../config";
import { isLanguage, type Language } from "../i18n/languages";

/** What a handler needs to know about the request, resolved once before it runs. */
export interface RequestContext {
  language: Language;
  defaultLanguage: Language;
  siteTimezone: string;
  principal: Principal | null;
  /** Absolute URL of the namespace as the client addressed it, language prefix included. */
  apiBase: string;
  /** Origin of the public site, for `url` permalinks. */
  siteUrl: string;
  /** The language prefix the client used ("" at the REST root), for links that keep it. */
  languagePrefix: string;
  /** Absolute URL of the namespace under a language's prefix (`/es/calendar/events/v1`). */
  apiBaseIn(language: Language): string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId?: string;
      /** The language of the path prefix (`/es/...`), if any. */
      prefixLanguage?: Language;
      /** The authenticated caller; null when anonymous. Set before the spec validation. */
      principal?: Principal | null;
      ctx?: RequestContext;
    }
  }
}

/**
 * The language to answer in, usable at any stage (even before validation): a valid
 * `i18n_language` wins over the path prefix, which wins over the default language.
 */
export function requestLanguage(req: Request, config: Config): Language {
  if (req.ctx) return req.ctx.language;
  const raw = new URL(req.originalUrl, "http://x").searchParams.get("i18n_language");
  if (isLanguage(raw)) return raw;
  return req.prefixLanguage ?? config.defaultLanguage;
}

// A host name or IP literal with an optional port; anything else in Host is not echoed back.
const SAFE_HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i;

/**
 * Origin of the request, as the client sees it (honours X-Forwarded-* when trust proxy is on).
 * The Host header is client input that ends up in links and in the HTML documentation, so an
 * unusual one is replaced rather than echoed.
 */
export function requestOrigin(req: Request, config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const host = req.get("host") ?? "";
  return `${req.protocol}://${SAFE_HOST.test(host) ? host : "localhost"}`;
}

export function context(req: Request): RequestContext {
  if (!req.ctx) throw new Error("request context used before it was resolved");
  return req.ctx;
}
