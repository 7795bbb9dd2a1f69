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

/** What a search asks for, as WordPress reads a search (`WP_Query::parse_search`): see searchOf. */
export interface Search {
  /** The words the index looks for: every word of every term that must occur, normalized. */
  words: string[];
  /** The terms of more than one word that must occur as written (`"jazz night"`), normalized. */
  phrases: string[];
  /** The terms that must not occur (`-music`), normalized. */
  excluded: string[];
}

// WordPress's terms of a search: a quoted phrase (to its closing quote or the end), or a run of
// anything but tabs, spaces, quotes, commas and `+`.
const SEARCH_TERM = /".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g;
// WordPress's stopwords (in English): words too common to look for.
const STOPWORDS = new Set(
  "about an are as at be by com for from how in is it of on or that the this to was what when where who will with www".split(
    " ",
  ),
);
const MAX_TERMS = 9;
const MAX_WORDS = 20;

/** WordPress's terms of a search: its phrases and words, but single letters, lone dashes and stopwords. */
function termsOf(query: string, language: string): string[] {
  const terms: string[] = [];
  for (const [match] of query.matchAll(SEARCH_TERM)) {
    const term = /^".+"$/.test(match) ? match.replace(/^["']+|["']+$/g, "") : match.replace(/^["' ]+|["' ]+$/g, "");
    if (term === "" || /^[a-z-]$/i.test(term)) continue;
    if (language === "en" && STOPWORDS.has(term.toLowerCase())) continue;
    terms.push(term);
  }
  return terms;
}

/**
 * A search as WordPress reads one: `"a phrase"` is one term, `-word` (or `"-a phrase"`) a term that
 * must not occur, every other term must (as part of a word or whole); single letters and, in
 * English, stopwords (`the`, `at`...) are not looked for; a search of none but those, or of more
 * than nine terms, is looked for whole, as one term.
 */
export function searchOf(query: string, language: string): Search {
  const text = query.replace(/[\r\n]/g, "");
  let terms = termsOf(text, language);
  if (terms.length === 0 || terms.length > MAX_TERMS) terms = [text];
  const search: Search = { words: [], phrases: [], excluded: [] };
  for (const term of terms) {
    const excluded = term.startsWith("-") && term.length > 1;
    const normalized = normalizeForSearch(excluded ? term.slice(1) : term);
    if (normalized === "") continue;
    if (excluded) {
      search.excluded.push(normalized);
      continue;
    }
    const words = searchWords(normalized);
    search.words.push(...words);
    if (words.length > 1) search.phrases.push(normalized);
  }
  search.words = [...new Set(search.words)].slice(0, MAX_WORDS);
  return search;
}

/** Key for ordering by a name: normalized, so that "Ábaco" sorts with "abaco", before "b". */
export function sortKeyOf(text: string | null | undefined): string {
  return normalizeForSearch(text ?? "").slice(0, 190);
}
