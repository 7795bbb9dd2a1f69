// The human-readable texts of an OpenAPI document, which the per-language overlays translate:
// every `description`, `summary` and `title`, and the tags' `x-displayName` (the menu labels of
// the HTML page), except inside example values (those are data, not prose; the summary of a named
// example is prose).
import { createHash } from "node:crypto";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const TEXT_KEYS = ["title", "summary", "description", "x-displayName"] as const;

export interface Text {
  /** JSONPath of the object that holds the text. */
  target: string;
  key: (typeof TEXT_KEYS)[number];
  text: string;
}

function step(key: string | number): string {
  if (typeof key === "number") return `[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `['${key.replace(/'/g, "\\'")}']`;
}

export function translatableTexts(document: Json): Text[] {
  const texts: Text[] = [];
  const walk = (node: Json, target: string) => {
    if (Array.isArray(node)) return node.forEach((item, index) => walk(item, target + step(index)));
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "example" || (key === "value" && target.includes(".examples"))) continue;
      if ((TEXT_KEYS as readonly string[]).includes(key) && typeof value === "string") {
        texts.push({ target, key: key as Text["key"], text: value });
      } else {
        walk(value, target + step(key));
      }
    }
  };
  walk(document, "$");
  return texts;
}

/** A short hash of an English text: an overlay action records which text it translates. */
export function sourceHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The document with its texts blanked: what must be identical across languages. */
export function shapeOf(document: Json): Json {
  if (Array.isArray(document)) return document.map(shapeOf);
  if (document === null || typeof document !== "object") return document;
  return Object.fromEntries(
    Object.entries(document).map(([key, value]) => [
      key,
      (TEXT_KEYS as readonly string[]).includes(key) && typeof value === "string"
        ? "<text>"
        : key === "example"
          ? value
          : shapeOf(value),
    ]),
  );
}
