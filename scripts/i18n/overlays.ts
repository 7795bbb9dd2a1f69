// Reading and writing the per-language overlays (OpenAPI Overlay 1.0) of openapi/overlays/.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse, stringify } from "yaml";
import type { Language } from "../../src/i18n/languages";

export interface OverlayAction {
  target: string;
  /** Hash of the English text this action translates (see openapi-texts.ts). */
  "x-source": string;
  /** Present while the translation is missing or outdated; the check fails on it. */
  "x-todo"?: string;
  /** The English text to translate, while `x-todo` is there. */
  "x-english"?: string;
  update: Record<string, string>;
}

export interface Overlay {
  overlay: string;
  info: { title: string; version: string };
  actions: OverlayAction[];
}

export function overlayPath(language: Language): string {
  return resolve(__dirname, "../../openapi/overlays", `${language}.yaml`);
}

export function readOverlay(language: Language): Overlay | null {
  const path = overlayPath(language);
  return existsSync(path) ? (parse(readFileSync(path, "utf8")) as Overlay) : null;
}

export function writeOverlay(language: Language, overlay: Overlay): void {
  const header = `# The ${language} texts of the API documentation: an OpenAPI Overlay applied to the bundled English\n# document by \`npm run generate\`. Each action translates one English text, whose hash is\n# \`x-source\`. \`npm run i18n:update\` adds the texts that are new or changed (with \`x-todo\`);\n# \`npm run check:translations\` fails until every one is translated.\n`;
  writeFileSync(overlayPath(language), header + stringify(overlay, { lineWidth: 0, blockQuote: "literal" }));
}
