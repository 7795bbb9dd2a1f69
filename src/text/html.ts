/**
 * The HTML the original serves for descriptions and excerpts: WordPress runs stored text through
 * wpautop (paragraphs for blank-line-separated text) and, when a post has no excerpt of its own,
 * makes one of the first 55 words of its content. This is the part of that behaviour clients see.
 */

import { rememberedText } from "./text-memo";

const BLOCK_TAG =
  /<(p|div|ul|ol|li|h[1-6]|table|blockquote|pre|figure|section|article|header|footer|hr|dl|address)[\s>/]/i;
const EXCERPT_WORDS = 55;
const EXCERPT_MORE = " [&hellip;]";

/** Text as HTML paragraphs: blank lines separate paragraphs, single newlines become `<br />`. */
export const autop = rememberedText(paragraphsOf);

function paragraphsOf(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "" || BLOCK_TAG.test(trimmed)) return trimmed;
  return trimmed
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => `<p>${paragraph.replace(/\s*\n\s*/g, "<br />\n")}</p>`)
    .join("\n");
}

/** The words of an HTML text, tags removed. */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const rememberedExcerpt = rememberedText(excerptOfText);

/** An excerpt made from a description, as wp_trim_excerpt makes one; null when there is nothing. */
export function excerptOf(description: string | null): string | null {
  return description === null ? null : rememberedExcerpt(description);
}

function excerptOfText(description: string): string | null {
  const words = plainText(description)
    .split(" ")
    .filter((word) => word.length > 0);
  if (words.length === 0) return null;
  const text = words.length > EXCERPT_WORDS ? words.slice(0, EXCERPT_WORDS).join(" ") + EXCERPT_MORE : words.join(" ");
  return `<p>${text}</p>`;
}

/** A short plain-text description for schema.org data. */
export function plainSummary(html: string | null, maxWords = EXCERPT_WORDS): string | undefined {
  if (html === null) return undefined;
  const words = plainText(html)
    .split(" ")
    .filter((word) => word.length > 0);
  if (words.length === 0) return undefined;
  return words.length > maxWords ? `${words.slice(0, maxWords).join(" ")}…` : words.join(" ");
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
  euro: "€",
};

/** Character references as the characters they stand for (the common named ones, and every numeric one). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}

/**
 * An HTML text as plain text that keeps its shape, for calendar apps (iCalendar DESCRIPTION):
 * paragraphs and headings apart by a blank line, line breaks and table rows on lines of their own,
 * list items each on a line starting with "- ", character references decoded.
 */
export const calendarText = rememberedText((html: string): string =>
  decodeEntities(
    html
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, "")
      .replace(/\s+/g, " ")
      .replace(/<br\s*\/?>/gi, "\n")
      .replace(/<li(\s[^>]*)?>/gi, "\n- ")
      .replace(/<\/(p|h[1-6]|blockquote|pre|ul|ol|table|figure|section|article|header|footer|address)>/gi, "\n\n")
      .replace(/<\/(div|tr|dt|dd)>/gi, "\n")
      .replace(/<[^>]*>/g, ""),
  )
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim(),
);
