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
  path: string,
): Schemas["Translations"] {
  const translations: Schemas["Translations"] = {};
  for (const language of translatedLanguages(rows, fields)) {
    const shown = effectiveText(rows, fields, { language, defaultLanguage: ctx.defaultLanguage, sourceLanguage });
    translations[language] = {
      slug: (shown as Record<string, string | null>).slug ?? "",
      rest_url: `${ctx.apiBaseIn(language)}${path}`,
    };
  }
  return translations;
}
