import type { Schemas } from "../http/operation-types";
import type { RequestContext } from "../http/request-context";
import { effectiveText, translatedLanguages, type OwnText } from "./localized-text";

/**
 * The `translations` object of single-item responses: each language the item has text of its
 * own in, with its slug there and its address under that language's prefix.
 */
export function translationsOf<F extends string>(
  rows: ReadonlyArray<OwnText<F>>,
  fields: readonly F[],
  sourceLanguage: string,
  ctx: RequestContext,
  slugIn: (language: ReturnType<typeof translatedLanguages>[number], shownSlug: string | null) => string,
  path: string,
): Schemas["Translations"] {
  const translations: Schemas["Translations"] = {};
  for (const language of translatedLanguages(rows, fields)) {
    const shown = effectiveText(rows, fields, { language, defaultLanguage: ctx.defaultLanguage, sourceLanguage });
    const slug = slugIn(language, (shown as Record<string, string | null>).slug ?? null);
    translations[language] = { slug, rest_url: `${ctx.apiBaseIn(language)}${path}` };
  }
  return translations;
}
