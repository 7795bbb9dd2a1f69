import { existsSync, readFileSync } from "node:fs";
import type { Language } from "../i18n/languages";
import { isOriginPath, type JsonObject } from "./spec";
import { projectPath } from "../project-root";

/**
 * What `/doc` serves: the OpenAPI document as JSON, and the HTML page rendered from it by
 * `npm run build:docs` (Redocly, self-contained). Both are prepared once with a placeholder for
 * the server URL, which is filled per request with the REST base the client asked for.
 */
export const API_BASE_PLACEHOLDER = "__CALENDAR_API_BASE__";
export const ORIGIN_PLACEHOLDER = "__CALENDAR_ORIGIN__";

/**
 * The document with placeholders for the addresses the service fills in per request: the REST
 * base (`servers`) and, for the paths at the origin (the health probes), the origin.
 */
export function withAddressPlaceholders(document: JsonObject): JsonObject {
  const paths = Object.fromEntries(
    Object.entries(document.paths as JsonObject).map(([path, item]) =>
      isOriginPath(item as JsonObject)
        ? [path, { ...(item as JsonObject), servers: ((item as JsonObject).servers as JsonObject[]).map((server) => ({ ...server, url: ORIGIN_PLACEHOLDER })) }]
        : [path, item],
    ),
  );
  return { ...document, servers: [{ url: API_BASE_PLACEHOLDER }], paths };
}

function fillAddresses(text: string, apiBase: string, origin: string, escape: (value: string) => string): string {
  return text.split(API_BASE_PLACEHOLDER).join(escape(apiBase)).split(ORIGIN_PLACEHOLDER).join(escape(origin));
}

export function docsHtmlPath(language: Language): string {
  return projectPath("generated", "docs", `${language}.html`);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

export class Documentation {
  private readonly json = new Map<Language, string>();
  private readonly html = new Map<Language, string | null>();

  constructor(private readonly documents: Map<Language, JsonObject>) {
    for (const [language, document] of documents) {
      this.json.set(language, JSON.stringify(withAddressPlaceholders(document)));
    }
  }

  document(language: Language): JsonObject {
    const document = this.documents.get(language);
    if (!document) throw new Error(`no documentation for language ${language}`);
    return document;
  }

  /** The document as a JSON string, with `servers[0].url` = `apiBase` (the origin for paths at the origin). */
  jsonFor(language: Language, apiBase: string, origin: string): string {
    const json = this.json.get(language);
    if (json === undefined) throw new Error(`no documentation for language ${language}`);
    return fillAddresses(json, apiBase, origin, (value) => JSON.stringify(value).slice(1, -1));
  }

  /** The HTML page, or null when it has not been built (`npm run build:docs`). */
  htmlFor(language: Language, apiBase: string, origin: string): string | null {
    if (!this.html.has(language)) {
      const path = docsHtmlPath(language);
      this.html.set(language, existsSync(path) ? readFileSync(path, "utf8") : null);
    }
    const page = this.html.get(language);
    return page ? fillAddresses(page, apiBase, origin, escapeHtml) : null;
  }
}
