import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { effectiveText } from "../../i18n/localized-text";
import { translationsOf } from "../../i18n/translations";
import { autop, excerptOf, plainSummary } from "../../text/html";
import { compact, globalIds, imageOf, permalinkOf, postHead, restUrlOf } from "../post-kernel/post-serializer";
import type { SerializeOptions } from "../venues/venue-serializer";
import { ORGANIZER_TEXT, type OrganizerRecord } from "./organizer-record";

/** An organizer as the API represents it (docs/compatibility.md §3.3 with the contract's departures). */
export function serializeOrganizer(
  organizer: OrganizerRecord,
  ctx: RequestContext,
  options: SerializeOptions,
): Schemas["Organizer"] {
  const text = effectiveText(organizer.texts, ORGANIZER_TEXT.fields, {
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: organizer.sourceLanguage,
  });
  const name = text.name ?? "";
  const description = text.description === null ? null : autop(text.description);
  const slug = text.slug ?? "";
  const url = permalinkOf(ctx, "organizer", slug);
  const json: Schemas["Organizer"] = {
    ...postHead(organizer, ctx),
    url,
    rest_url: restUrlOf(ctx, "organizer", organizer.id),
    organizer: name,
    description,
    excerpt: excerptOf(description),
    slug,
    image: imageOf(organizer.image, "organizer", organizer.id),
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    ...globalIds(organizer, "organizer", ctx),
  };
  if (options.jsonLd) {
    json.json_ld = {
      "@context": "http://schema.org",
      "@type": "Person",
      ...compact({
        name,
        description: plainSummary(description),
        url,
        image: organizer.image,
        telephone: organizer.phone,
        email: organizer.email,
        sameAs: organizer.website,
      }),
    };
  }
  if (options.translations) {
    json.translations = translationsOf(
      organizer.texts,
      ORGANIZER_TEXT.fields,
      organizer.sourceLanguage,
      ctx,
      `/organizers/${organizer.id}`,
    );
  }
  return json;
}
