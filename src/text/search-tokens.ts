/**
 * Search tokens: what the event search index holds, so that a substring search (`LIKE
 * '%word%'`, the contract's word-fragment search) is answered by an index instead of by reading
 * every text.
 *
 * Search words never contain a space and search texts are words separated by single spaces
 * (see search-text.ts), so a text contains a word exactly when one of its words does, that is,
 * when the word begins one of the suffixes of one of its words. The tokens of a text are those
 * suffixes, cut to TOKEN_CHARS characters: a search word is then a token prefix, which both
 * SQLite's FTS5 (`"token"*`) and PostgreSQL's text search (`'token':*`) find in their indexes
 * by a range scan. Tokens are written in hexadecimal (of UTF-8), so that neither database's
 * tokenizer can split or fold them, and a prefix of a word stays a prefix of its token.
 *
 * The index narrows the candidates; the query still checks each candidate's text in the asked
 * language with LIKE (a document holds all of an event's languages, and words longer than
 * TOKEN_CHARS match on their first characters only), so what it finds is exactly what LIKE finds.
 *
 * A document is bounded, so that any text can be saved (PostgreSQL refuses a tsvector of a
 * megabyte or more, which 11,000 characters of Japanese, one unbroken word, reached) and none costs
 * much to index: suffixes start in the first WORD_CHARS characters of a word only, and each
 * language's text gives at most TEXT_TOKEN_CHARS characters of tokens, its first words first (the
 * title comes first). Words past those bounds are not found by search.
 */

/** Characters kept of each suffix: longer tokens would grow the index for little selectivity. */
export const TOKEN_CHARS = 16;

/** Characters of a word whose suffixes are indexed (a URL, say); a longer word's tail is not. */
export const WORD_CHARS = 1_000;

/** Characters of tokens (hexadecimal) that one language's text may give its event's document. */
export const TEXT_TOKEN_CHARS = 150_000;

const hexOfChar = new Map<string, string>();

function hex(char: string): string {
  let value = hexOfChar.get(char);
  if (value === undefined) hexOfChar.set(char, (value = Buffer.from(char, "utf8").toString("hex")));
  return value;
}

/** The distinct tokens of some search texts (an event's, in each of its languages), within the bounds above. */
export function searchTokens(searchTexts: Iterable<string>): string[] {
  const tokens = new Set<string>();
  for (const text of searchTexts) {
    let budget = TEXT_TOKEN_CHARS;
    for (const word of new Set(text.split(" "))) {
      if (word === "") continue;
      const chars = Array.from(word.slice(0, WORD_CHARS + TOKEN_CHARS), hex);
      const starts = Math.min(chars.length, WORD_CHARS);
      for (let start = 0; start < starts && budget > 0; start += 1) {
        const token = chars.slice(start, start + TOKEN_CHARS).join("");
        if (tokens.has(token)) continue;
        tokens.add(token);
        budget -= token.length;
      }
      if (budget <= 0) break;
    }
  }
  return [...tokens];
}

/** The token prefix that every text containing `word` (a normalized search word) has. */
export function searchPrefix(word: string): string {
  return Array.from(word, hex).slice(0, TOKEN_CHARS).join("");
}
