import { localizedRows, type LocalizedRow, type RowsSpec } from "../../i18n/localized-rows";
import type { OwnText } from "../../i18n/localized-text";
import type { Language } from "../../i18n/languages";

/**
 * The per-language text of an item (an event's title, description, excerpt and slug; a venue's
 * or organizer's name, description and slug; a term's name, description and slug) after a write.
 */

export interface TextOrder {
  defaultLanguage: Language;
  sourceLanguage: string;
}

/** Text that is the same in every language and that search looks in too (a venue's address), before and after the write. */
export interface SharedText {
  before: Array<string | null | undefined>;
  after: Array<string | null | undefined>;
}

function sameRow<F extends string>(spec: RowsSpec<F>, a: LocalizedRow<F>, b: LocalizedRow<F>): boolean {
  return (
    a.searchText === b.searchText &&
    a.sortKey === b.sortKey &&
    spec.fields.every((field) => a.own[field] === b.own[field])
  );
}

export interface TextWrite<F extends string> {
  /** The rows to store. */
  rows: Array<LocalizedRow<F>>;
  /** Every language's row after the write, stored or not. */
  all: Array<LocalizedRow<F>>;
  /** Whether any language's search text changes (the search index is then written again). */
  searchChanged: boolean;
}

/**
 * The rows a write must store, and only those: after `change` in `language`, every language's row
 * whose own fields, search text or sort key (derived from what the language shows after fallback,
 * so a change in one language can change another's) differ from the stored ones, or that does not
 * exist yet. No rows when the write changes no text.
 */
export function textRowsToWrite<F extends string>(
  spec: RowsSpec<F>,
  current: ReadonlyArray<OwnText<F>>,
  language: Language,
  change: Partial<Record<F, string | null>>,
  order: TextOrder,
  shared: SharedText = { before: [], after: [] },
): TextWrite<F> {
  const before = new Map(
    localizedRows(spec, current, language, {}, order, shared.before).map((row) => [row.language, row]),
  );
  const stored = new Set(current.map((row) => row.language));
  const all = localizedRows(spec, current, language, change, order, shared.after);
  const rows = all.filter((row) => !stored.has(row.language) || !sameRow(spec, before.get(row.language)!, row));
  return { rows, all, searchChanged: rows.some((row) => before.get(row.language)?.searchText !== row.searchText) };
}

/**
 * The name a slug is to be made from when a write names an item in a language that has no slug of
 * its own yet, and gives none: a translation written without a slug gets one from its own name,
 * as a translated post gets in WordPress. A post whose name is blank (its markup filtered away)
 * gets its `id` instead, as WordPress gives it. Undefined when no slug is to be made.
 */
export function nameForNewSlug<F extends string>(
  spec: RowsSpec<F>,
  current: ReadonlyArray<OwnText<F>>,
  language: Language,
  change: Partial<Record<F, string | null>>,
  id?: number,
): string | undefined {
  const slugField = "slug" as F;
  if (change[slugField] !== undefined) return undefined;
  const given = change[spec.nameField];
  if (typeof given !== "string") return undefined;
  const name = given === "" && id !== undefined ? String(id) : given;
  if (name === "") return undefined;
  const own = current.find((row) => row.language === language);
  return own && own[slugField] ? undefined : name;
}
