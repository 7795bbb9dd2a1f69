import { existsSync, readFileSync } from "node:fs";
import { PreparedText } from "../http/compression";
import type { Language } from "../i18n/languages";
import type { JsonObject } from "./spec";
import { projectPath } from "../project-root";
import { RecentValues } from "../text/text-memo";

/**
 * What `/doc` serves: the OpenAPI document as JSON, and the HTML page rendered from it by
 * `npm run build:docs` (Redocly, self-contained). Both are prepared once with a placeholder for
 * the server URL, which is filled per request with the REST base the client asked for.
 */
export const API_BASE_PLACEHOLDER = "__CALENDAR_API_BASE__";

/** The document with a placeholder for the REST base (`servers`), filled per request. */
export function withAddressPlaceholders(document: JsonObject): JsonObject {
  return { ...document, servers: [{ url: API_BASE_PLACEHOLDER }] };
}

function fillAddresses(text: string, apiBase: string, escape: (value: string) => string): string {
  return text.split(API_BASE_PLACEHOLDER).join(escape(apiBase));
}

export function docsHtmlPath(language: Language): string {
  return projectPath("generated", "docs", `${language}.html`);
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * Pages prepared for the addresses recently asked for. The addresses come from the configured
 * public URL or the request's Host: few in practice, and bounded whatever a client sends.
 */
const PREPARED_PAGES = 24;

export class Documentation {
  private readonly json = new Map<Language, string>();
  private readonly html = new Map<Language, string | null>();
  private readonly prepared = new RecentValues<PreparedText>(PREPARED_PAGES);

  /** `documentOf` gives each language's document; each is asked for when first served. */
  constructor(private readonly documentOf: (language: Language) => JsonObject) {}

  /** The document as JSON, with `servers[0].url` = `apiBase`. */
  jsonFor(language: Language, apiBase: string): PreparedText {
    let json = this.json.get(language);
    if (json === undefined)
      this.json.set(language, (json = JSON.stringify(withAddressPlaceholders(this.documentOf(language)))));
    return this.prepared.valueOf(
      `json ${language} ${apiBase}`,
      () =>
        new PreparedText(
          fillAddresses(json, apiBase, (value) => JSON.stringify(value).slice(1, -1)),
          "json",
        ),
    );
  }

  /** The HTML page, or null when it has not been built (`npm run build:docs`). */
  htmlFor(language: Language, apiBase: string): PreparedText | null {
    if (!this.html.has(language)) {
      const path = docsHtmlPath(language);
      this.html.set(language, existsSync(path) ? readFileSync(path, "utf8") : null);
    }
    const page = this.html.get(language);
    return page
      ? this.prepared.valueOf(
          `html ${language} ${apiBase}`,
          () => new PreparedText(fillAddresses(page, apiBase, escapeHtml), "html"),
        )
      : null;
  }
}
