// LIKE wildcards (and SQLite has no default escape character) are stored and searched as
// private-use characters, so that a `%` in a search means a percent sign on both databases.
const LIKE_SAFE: Record<string, string> = { "%": "\uE000", _: "\uE001", "\\": "\uE002" };

/**
 * Text normalized for matching: accents removed, lower case, HTML tags and entities dropped,
 * whitespace collapsed. Stored in the `searchText` and `sortKey` columns and applied to search
 * words, so that matching is an exact substring test that behaves the same on SQLite and
 * PostgreSQL (neither database's own case folding is used).
 */
export function normalizeForSearch(text: string): string {
  return text
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, " ")
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[%_\\]/g, (char) => LIKE_SAFE[char])
    .replace(/\s+/g, " ")
    .trim();
}

/** Separates fields in a search text, so that no search word can match across two fields. */
export const FIELD_SEPARATOR = " \u001f ";

export function searchTextOf(fields: Array<string | null | undefined>): string {
  return fields
    .filter((field): field is string => typeof field === "string" && field.length > 0)
    .map(normalizeForSearch)
    .join(FIELD_SEPARATOR);
}

// Punctuation that ends or starts a word without being part of it ("france," "(jazz)").
const EDGE_PUNCTUATION = /^[,;:!?"'()[\]{}«»“”‘’.…]+|[,;:!?"'()[\]{}«»“”‘’.…]+$/g;

/**
 * The words of a search query, normalized; empty when the query has no words. Punctuation at a
 * word's ends is dropped; inside a word it stays (`@common.com`, `http://one.com`, `100%`).
 */
export function searchWords(query: string): string[] {
  const normalized = normalizeForSearch(query);
  const words = normalized
    .split(/\s+/)
    .map((word) => word.replace(EDGE_PUNCTUATION, ""))
    .filter((word) => word.length > 0)
    .slice(0, 20);
  // A query of punctuation only is looked for as it is, rather than matching everything.
  return words.length > 0 || normalized === "" ? words : [normalized];
}

/** Key for ordering by a name: normalized, so that "Ábaco" sorts with "abaco", before "b". */
export function sortKeyOf(text: string | null | undefined): string {
  return normalizeForSearch(text ?? "").slice(0, 190);
}
