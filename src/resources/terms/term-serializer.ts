import type { RequestContext } from "../../http/request-context";
import type { Schemas } from "../../http/operation-types";
import { effectiveText } from "../../i18n/localized-text";
import { translationsOf } from "../../i18n/translations";
import { TERM_TEXT_FIELDS, type TermRecord } from "./term-record";
import type { TaxonomyConfig } from "./term-record";

type TermJson = Schemas["Category"] | Schemas["Tag"];

/** A category or tag as `/categories` and `/tags` return it (docs/compatibility.md §3.4.2). */
export function serializeTerm(
  term: TermRecord,
  config: TaxonomyConfig,
  ctx: RequestContext,
  options: { translations?: boolean } = {},
): TermJson {
  const text = effectiveText(term.texts, TERM_TEXT_FIELDS, {
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: term.sourceLanguage,
  });
  const slug = text.slug ?? "";
  const collection = `${ctx.apiBase}${config.collectionPath}`;
  const urls: Schemas["TermUrls"] = { self: `${collection}/${term.id}`, collection };
  if (config.hierarchical && term.parentId !== null) urls.up = `${collection}/${term.parentId}`;
  const common = {
    id: term.id,
    count: term.count,
    description: text.description ?? "",
    name: text.name ?? "",
    slug,
  };
  const url = `${ctx.siteUrl}${ctx.languagePrefix}/${config.archivePath}/${encodeURIComponent(slug)}/`;
  const translations = options.translations
    ? {
        translations: translationsOf(
          term.texts,
          TERM_TEXT_FIELDS,
          term.sourceLanguage,
          ctx,
          `${config.collectionPath}/${term.id}`,
        ),
      }
    : {};
  if (config.hierarchical) {
    return {
      ...common,
      taxonomy: "tribe_events_cat",
      parent: term.parentId ?? 0,
      meta: [],
      url,
      urls,
      ...translations,
    };
  }
  return { ...common, taxonomy: "post_tag", meta: [], url, urls, ...translations };
}
