import { LANGUAGES, type Language } from "./languages";

/**
 * Per-language text of an item (an event's title, a venue's name, ...). Each item has one row per
 * language; a field is null in a language it was never written in. What an item shows in a
 * language falls back field by field: that language, then the default language, then the
 * language the item was created in (which always has the required fields).
 */
export type OwnText<F extends string> = { language: string } & { [K in F]: string | null };

export interface FallbackOrder {
  language: Language;
  defaultLanguage: Language;
  sourceLanguage: string;
}

export function fallbackLanguages({ language, defaultLanguage, sourceLanguage }: FallbackOrder): string[] {
  return [...new Set([language, defaultLanguage, sourceLanguage])];
}

/** The value of each field as shown in `order.language`. */
export function effectiveText<F extends string>(
  rows: ReadonlyArray<OwnText<F>>,
  fields: readonly F[],
  order: FallbackOrder,
): { [K in F]: string | null } {
  const byLanguage = fallbackLanguages(order)
    .map((language) => rows.find((row) => row.language === language))
    .filter((row): row is OwnText<F> => row !== undefined);
  const result = {} as { [K in F]: string | null };
  for (const field of fields) {
    result[field] = byLanguage.find((row) => row[field] !== null && row[field] !== undefined)?.[field] ?? null;
  }
  return result;
}

/** The languages an item has any text of its own in. */
export function translatedLanguages<F extends string>(
  rows: ReadonlyArray<OwnText<F>>,
  fields: readonly F[],
): Language[] {
  return LANGUAGES.filter((language) =>
    rows.some((row) => row.language === language && fields.some((field) => row[field] !== null)),
  );
}

/**
 * The own text of every language after a write in `language`: the fields of `change` replace
 * that language's values (null removes one); the other languages are untouched.
 */
export function applyTextChange<F extends string>(
  rows: ReadonlyArray<OwnText<F>>,
  fields: readonly F[],
  language: Language,
  change: Partial<Record<F, string | null>>,
): Array<OwnText<F> & { language: Language }> {
  return LANGUAGES.map((lang) => {
    const current = rows.find((row) => row.language === lang);
    const row = { language: lang } as OwnText<F> & { language: Language };
    for (const field of fields) {
      const own = current ? current[field] : null;
      (row as Record<string, string | null>)[field] =
        lang === language && field in change ? (change[field] ?? null) : own;
    }
    return row;
  });
}
