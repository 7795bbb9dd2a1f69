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
 * TOKEN_CHARS match on their first characters only), so results are exactly LIKE's.
 */

/** Characters kept of each suffix: longer tokens would grow the index for little selectivity. */
export const TOKEN_CHARS = 16;

const hexOfChar = new Map<string, string>();

function hex(char: string): string {
  let value = hexOfChar.get(char);
  if (value === undefined) hexOfChar.set(char, (value = Buffer.from(char, "utf8").toString("hex")));
  return value;
}

/** The distinct tokens of some search texts (an event's, in each of its languages). */
export function searchTokens(searchTexts: Iterable<string>): string[] {
  const words = new Set<string>();
  for (const text of searchTexts) for (const word of text.split(" ")) if (word !== "") words.add(word);
  const tokens = new Set<string>();
  for (const word of words) {
    const chars = Array.from(word, hex);
    for (let start = 0; start < chars.length; start += 1) tokens.add(chars.slice(start, start + TOKEN_CHARS).join(""));
  }
  return [...tokens];
}

/** The token prefix that every text containing `word` (a normalized search word) has. */
export function searchPrefix(word: string): string {
  return Array.from(word, hex).slice(0, TOKEN_CHARS).join("");
}
