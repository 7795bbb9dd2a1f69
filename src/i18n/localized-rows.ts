import { applyTextChange, effectiveText, type OwnText } from "./localized-text";
import type { Language } from "./languages";
import { searchTextOf, sortKeyOf } from "../text/search-text";

export interface LocalizedRow<F extends string> {
  language: Language;
  own: { [K in F]: string | null };
  searchText: string;
  sortKey: string;
  shown: { [K in F]: string | null };
}

export interface RowsSpec<F extends string> {
  fields: readonly F[];
  /** The field that names the item (for ordering by name or title). */
  nameField: F;
  /** The translatable fields search looks in. */
  searchFields: readonly F[];
}

/**
 * Every language's text row of an item after a write in `language`: the own values (the change
 * applied to that language only) and, computed from what each language shows after fallback,
 * the normalized search text and sort key. `shared` adds text that is the same in every language
 * (a venue's address) to the search text.
 */
export function localizedRows<F extends string>(
  spec: RowsSpec<F>,
  existing: ReadonlyArray<OwnText<F>>,
  language: Language,
  change: Partial<Record<F, string | null>>,
  order: { defaultLanguage: Language; sourceLanguage: string },
  shared: Array<string | null | undefined> = [],
): Array<LocalizedRow<F>> {
  const own = applyTextChange(existing, spec.fields, language, change);
  return own.map((row) => {
    const shown = effectiveText(own, spec.fields, { language: row.language, ...order });
    return {
      language: row.language,
      own: Object.fromEntries(spec.fields.map((field) => [field, row[field]])) as unknown as {
        [K in F]: string | null;
      },
      searchText: searchTextOf([...spec.searchFields.map((field) => shown[field]), ...shared]),
      sortKey: sortKeyOf(shown[spec.nameField]),
      shown,
    };
  });
}

/** `""` and null both mean "none" in write bodies. */
export function noneIfEmpty<T extends string | null | undefined>(value: T): T | null {
  return value === "" ? null : value;
}
