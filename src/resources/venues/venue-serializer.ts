import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { effectiveText } from "../../i18n/localized-text";
import { translationsOf } from "../../i18n/translations";
import { autop, excerptOf, plainSummary } from "../../text/html";
import { compact, globalIds, imageOf, permalinkOf, postHead, restUrlOf } from "../post-kernel/post-serializer";
import { VENUE_TEXT, type VenueRecord } from "./venue-record";

export interface SerializeOptions {
  /** Single-item GETs carry the schema.org description. */
  jsonLd: boolean;
  /** Single-item responses list the item's languages. */
  translations?: boolean;
}

function placeJsonLd(venue: VenueRecord, name: string, description: string | null, url: string): Schemas["JsonLd"] {
  const address = compact({
    "@type": "PostalAddress",
    streetAddress: venue.address,
    addressLocality: venue.city,
    addressRegion: venue.state ?? venue.province ?? venue.stateprovince,
    postalCode: venue.zip,
    addressCountry: venue.country,
  });
  return {
    "@context": "http://schema.org",
    "@type": "Place",
    ...compact({
      name,
      description: plainSummary(description),
      url,
      image: venue.image,
      telephone: venue.phone,
      sameAs: venue.website,
      address: Object.keys(address).length > 1 ? address : undefined,
      geo:
        venue.geoLat !== null && venue.geoLng !== null
          ? { "@type": "GeoCoordinates", latitude: venue.geoLat, longitude: venue.geoLng }
          : undefined,
    }),
  };
}

/** A venue as the API represents it (docs/compatibility.md §3.2 with the contract's departures). */
export function serializeVenue(venue: VenueRecord, ctx: RequestContext, options: SerializeOptions): Schemas["Venue"] {
  const text = effectiveText(venue.texts, VENUE_TEXT.fields, {
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage: venue.sourceLanguage,
  });
  const name = text.name ?? "";
  const description = text.description === null ? null : autop(text.description);
  const slug = text.slug ?? "";
  const url = permalinkOf(ctx, "venue", slug);
  const json: Schemas["Venue"] = {
    ...postHead(venue, ctx),
    url,
    rest_url: restUrlOf(ctx, "venue", venue.id),
    venue: name,
    description,
    excerpt: excerptOf(description),
    slug,
    image: imageOf(venue.image, "venue", venue.id),
    address: venue.address,
    city: venue.city,
    country: venue.country,
    province: venue.province,
    state: venue.state,
    zip: venue.zip,
    phone: venue.phone,
    website: venue.website,
    // As the original derives it when only one of them is written: the state, else the province.
    stateprovince: venue.stateprovince ?? venue.state ?? venue.province,
    geo_lat: venue.geoLat,
    geo_lng: venue.geoLng,
    show_map: venue.showMap,
    show_map_link: venue.showMapLink,
    ...globalIds(venue, "venue", ctx),
  };
  if (options.jsonLd) json.json_ld = placeJsonLd(venue, name, description, url);
  if (options.translations)
    json.translations = translationsOf(
      venue.texts,
      VENUE_TEXT.fields,
      venue.sourceLanguage,
      ctx,
      `/venues/${venue.id}`,
    );
  return json;
}
