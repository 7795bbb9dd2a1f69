import type { Language } from "../i18n/languages";

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
 * Each token starts with a letter that says in which of the event's languages' texts it is (one
 * of seven, for the sets of languages: a text copied to a language it lacks gives no second
 * token), so that one document holds an event's languages apart: a word is looked for in the
 * asked language's text only, as the index's own answer (a word's prefix under each of the four
 * marks that include the language). Only a word longer than TOKEN_CHARS, matched by the index on
 * its first characters, is checked again with LIKE on the text itself (see event-list-sql.ts).
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

/** Each language's bit in a token's set of languages. */
const LANGUAGE_BIT: Record<Language, number> = { en: 1, "pt-br": 2, es: 4 };

/** A token's first letter, for its set of languages (1 to 7): letters outside hexadecimal's. */
function markOf(languages: number): string {
  return String.fromCharCode(0x66 + languages);
}

/** The marks of the sets of languages that include `language` (also those of PostgreSQL's search words: event-list-sql.ts). */
export function marksWith(language: Language): string[] {
  const bit = LANGUAGE_BIT[language];
  return [1, 2, 3, 4, 5, 6, 7].filter((languages) => (languages & bit) !== 0).map(markOf);
}

const hexOfChar = new Map<string, string>();

function hex(char: string): string {
  let value = hexOfChar.get(char);
  if (value === undefined) hexOfChar.set(char, (value = Buffer.from(char, "utf8").toString("hex")));
  return value;
}

/** A search text (see search-text.ts) and the language it is in. */
export interface LanguageSearchText {
  language: Language;
  searchText: string;
}

/** The distinct tokens of some search texts (an event's, in each of its languages), within the bounds above. */
export function searchTokens(texts: Iterable<LanguageSearchText>): string[] {
  const languagesOf = new Map<string, number>();
  for (const { language, searchText } of texts) {
    const bit = LANGUAGE_BIT[language];
    let budget = TEXT_TOKEN_CHARS;
    const seen = new Set<string>();
    for (const word of new Set(searchText.split(" "))) {
      if (word === "") continue;
      const chars = Array.from(word.slice(0, WORD_CHARS + TOKEN_CHARS), hex);
      const starts = Math.min(chars.length, WORD_CHARS);
      for (let start = 0; start < starts && budget > 0; start += 1) {
        const token = chars.slice(start, start + TOKEN_CHARS).join("");
        if (seen.has(token)) continue;
        seen.add(token);
        languagesOf.set(token, (languagesOf.get(token) ?? 0) | bit);
        budget -= token.length + 1;
      }
      if (budget <= 0) break;
    }
  }
  return Array.from(languagesOf, ([token, languages]) => markOf(languages) + token);
}

/**
 * The token prefixes of which a text in `language` containing `word` (a normalized search word)
 * has at least one: the word's first TOKEN_CHARS characters under each mark that includes the language.
 */
export function searchPrefixes(language: Language, word: string): string[] {
  const prefix = Array.from(word, hex).slice(0, TOKEN_CHARS).join("");
  return marksWith(language).map((mark) => mark + prefix);
}

/** Whether the index finds `word` exactly (see above), or on its first TOKEN_CHARS characters only. */
export function indexedWhole(word: string): boolean {
  return Array.from(word).length <= TOKEN_CHARS;
}
