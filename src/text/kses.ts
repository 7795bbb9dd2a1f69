import type sanitizeHtml from "sanitize-html";
import { can } from "../auth/roles";
import type { Principal } from "../auth/principal";

/**
 * Markup filtering as WordPress's kses does it on save, for users who may not post unfiltered
 * HTML (authors, contributors: no `unfiltered_html`): descriptions and excerpts keep the markup of
 * posts (wp_kses_post), titles and names the few inline tags WordPress allows in them
 * ($allowedtags). Scripts, styles, frames, forms, event-handler attributes and `javascript:` or
 * `data:` links never pass. Editors' and administrators' text is kept as sent.
 */

// wp_allowed_protocols(), without the obsolete ones.
const ALLOWED_SCHEMES = [
  "http",
  "https",
  "ftp",
  "ftps",
  "mailto",
  "news",
  "irc",
  "ircs",
  "feed",
  "tel",
  "fax",
  "sms",
  "webcal",
  "xmpp",
  "urn",
];

const GLOBAL_ATTRIBUTES = ["class", "id", "title", "lang", "dir", "role", "aria-*", "data-*", "style"];

// safecss_filter_attr keeps layout and typography properties; these are the ones text needs, with
// plain values (no `url(...)`, no `expression(...)`).
const SAFE_STYLE_VALUE = [/^[#a-z0-9 .,%-]+$/i];
const ALLOWED_STYLES = Object.fromEntries(
  [
    "text-align",
    "color",
    "background-color",
    "font-weight",
    "font-style",
    "text-decoration",
    "font-size",
    "margin",
    "padding",
    "width",
    "height",
    "border",
    "vertical-align",
  ].map((property) => [property, SAFE_STYLE_VALUE]),
);

const POST_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "a",
    "abbr",
    "acronym",
    "address",
    "article",
    "aside",
    "b",
    "bdo",
    "big",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "main",
    "mark",
    "nav",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
  ],
  allowedAttributes: {
    "*": GLOBAL_ATTRIBUTES,
    a: ["href", "rel", "rev", "name", "target", "download", "hreflang", "type"],
    blockquote: ["cite"],
    col: ["span"],
    colgroup: ["span"],
    del: ["datetime", "cite"],
    details: ["open"],
    img: ["src", "alt", "width", "height", "loading", "srcset", "sizes", "decoding"],
    ins: ["datetime", "cite"],
    ol: ["start", "reversed", "type"],
    q: ["cite"],
    td: ["colspan", "rowspan", "headers"],
    th: ["colspan", "rowspan", "headers", "scope"],
    time: ["datetime"],
  },
  allowedStyles: { "*": ALLOWED_STYLES },
  allowedSchemes: ALLOWED_SCHEMES,
  allowProtocolRelative: true,
  // What is inside a removed <script> or <style> goes with it; other removed tags keep their text.
  disallowedTagsMode: "discard",
};

const TITLE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "a",
    "abbr",
    "acronym",
    "b",
    "blockquote",
    "cite",
    "code",
    "del",
    "em",
    "i",
    "q",
    "s",
    "strike",
    "strong",
  ],
  allowedAttributes: {
    a: ["href", "title"],
    abbr: ["title"],
    acronym: ["title"],
    blockquote: ["cite"],
    del: ["datetime"],
    q: ["cite"],
  },
  allowedSchemes: ALLOWED_SCHEMES,
  allowProtocolRelative: true,
  disallowedTagsMode: "discard",
};

/** How a writer's text is stored: filtered or not, per their role. */
export interface MarkupFilter {
  /** A title or a name. */
  title(text: string): string;
  /** A description or an excerpt. */
  html(text: string): string;
}

const UNFILTERED: MarkupFilter = { title: (text) => text, html: (text) => text };

let sanitizer: typeof sanitizeHtml | undefined;

/**
 * The filter, loaded when first needed (40–80 ms of a start-up; an administrator's writes never
 * need it). The warm-up loads it, so that a contributor's first write does not.
 */
export function markupSanitizer(): typeof sanitizeHtml {
  return (sanitizer ??= require("sanitize-html") as typeof sanitizeHtml);
}

const FILTERED: MarkupFilter = {
  // Titles are served as stored, not entity-encoded (a departure, see the README): the `&` the
  // filter writes `&amp;` goes back to `&`, which cannot start a tag.
  title: (text) => markupSanitizer()(text, TITLE_OPTIONS).replace(/&amp;/g, "&"),
  html: (text) => markupSanitizer()(text, POST_OPTIONS),
};

/** How a contributor's text is stored, and text from outside (an imported feed's). */
export const CONTRIBUTOR_MARKUP = FILTERED;

export function markupFilterOf(principal: Principal): MarkupFilter {
  return can(principal.role, "unfiltered_html") ? UNFILTERED : FILTERED;
}
