// The differences from the original that are deliberate, each with where the docs say so: the
// differential harness (compare-with-original.ts) reports any other as undocumented.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Departure {
  /** Which difference it is: the request's name, the field's path, the two values. */
  matches(testCase: string, path: string, original: Json | undefined, ours: Json | undefined): boolean;
  /** Why, and where the docs say it. */
  reason: string;
}

const field = (pattern: RegExp) => (path: string) => pattern.test(path.replace(/\[\d+\]/g, ""));

export const DEPARTURES: Departure[] = [
  {
    matches: (_, path, original, ours) => path === "(status)" && original === 400 && ours === 404,
    reason: "an unknown id on an item's own route is 404 (README: Where this API departs)",
  },
  {
    matches: (_, path) => field(/^(events\.)?(venue|organizer)\b.*\.(author|rest_url|global_id)$/)(path),
    reason: "venues and organizers carry an integer author and a rest_url (README)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)cost$/)(path) &&
      typeof original === "string" &&
      typeof ours === "string" &&
      (original === `$${ours}` || (original === "" && ours === "Free")),
    reason: "a cost without a symbol is shown as written, 0 as Free (README, Event schema)",
  },
  {
    matches: (_, path) => field(/(^|\.)cost_details\.(currency_symbol|currency_position|values)$/)(path),
    reason: "no site currency is added to a cost written without one (README, Event schema)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)(show_map|show_map_link)$/)(path) && original === false && ours === true,
    reason: "show_map and show_map_link are on unless a write turns them off (README, Event schema)",
  },
  {
    matches: (_, path, original) => field(/(^|\.)excerpt$/)(path) && original === "",
    reason: "an excerpt is made from the description when there is none (README, Event schema)",
  },
  {
    matches: (_, path) => field(/(^|\.)json_ld\.description$/)(path),
    reason: "json_ld.description is plain text (README, Event schema)",
  },
  {
    matches: (_, path, original, ours) => field(/(^|\.)timezone$/)(path) && original === "UTC+0" && ours === "UTC",
    reason: "timezone is the IANA name on UTC sites (README, Event schema)",
  },
  {
    matches: (_, path, original, ours) => field(/(^|\.)timezone_abbr$/)(path) && original === "UTC+0" && ours === "UTC",
    reason: "the zone's abbreviation is UTC on UTC sites (README, Event schema)",
  },
  {
    matches: (testCase, path, original, ours) =>
      (field(
        /(^|\.)(venue|organizer)\.(description|excerpt|image|province|phone|website|state|zip|country|address|city|email|stateprovince)$/,
      )(path) ||
        (/venue|organizer/.test(testCase) &&
          field(
            /^((venues|organizers)\.)?(description|excerpt|image|province|phone|website|state|zip|country|address|city|email|stateprovince)$/,
          )(path))) &&
      original === undefined &&
      ours === null,
    reason: "venues and organizers always carry every field, null when empty (README: Where this API departs)",
  },
  {
    matches: (_, path) => field(/(^|\.)json_ld(\.|$)/)(path),
    reason:
      "schema.org data as this service makes it: dates in UTC with Z, no empty properties, an @context on nested items, e-mails not entity-encoded, no currency guessed, an offer for free events (README: Where this API departs)",
  },
  {
    matches: (_, path, original, ours) =>
      path === "code" &&
      original === "rest_invalid_param" &&
      typeof ours === "string" &&
      /^rest-(event|venue|organizer|category|tag)-not-found$/.test(ours),
    reason: "an unknown id on an item's own route is 404 rest-<type>-not-found (README: Where this API departs)",
  },
  {
    matches: (testCase, path, original, ours) =>
      testCase === "namespace index" &&
      path === "namespace" &&
      original === "tribe/events/v1" &&
      ours === "calendar/events/v1",
    reason: "this service's namespace (README)",
  },
  {
    matches: (testCase, path, original, ours) =>
      /categor|tag/.test(testCase) &&
      field(/^((categories|tags)\.)?_links$/)(path) &&
      ours === undefined &&
      original !== undefined,
    reason:
      "terms carry no links to WordPress's own wp/v2 routes, which do not exist here (README: Where this API departs)",
  },
  {
    matches: (testCase, path) =>
      testCase === "an update" &&
      field(/^(cost|website|featured|organizer|sticky|show_map|show_map_link|hide_from_listings)$/)(path),
    reason:
      "updates change only the fields given; the original resets flags, website and organizers left out (README: Where this API departs)",
  },
  {
    matches: (testCase, path, original) =>
      testCase === "a delete" &&
      path === "website" &&
      typeof original === "string" &&
      original.includes("?post_type=tribe_events&p="),
    reason:
      "a trashed event keeps its address (WordPress gives trashed posts a plain ?p= link) (README: Where this API departs)",
  },
  {
    matches: (_, path) => field(/^next_sync_token$/)(path),
    reason: "lists end with a sync token (README: Keeping a copy in sync)",
  },
  {
    matches: (_, path) => field(/(^|\.)custom_fields$/)(path),
    reason: "there are no custom fields (README)",
  },
  {
    matches: (_, path) =>
      field(
        /(^|\.)(translations|recurrence|recurrence_id|detached|sticky|hide_from_listings|ticketed|post_parent|geo_lat|geo_lng)$/,
      )(path),
    reason: "fields past the original's: translations, recurrence, flags as plain fields (README, Event schema)",
  },
  {
    matches: (testCase, path) =>
      testCase === "namespace index" && (path === "(body)" || field(/^(routes|_links)\b/)(path)),
    reason: "the namespace index lists this service's routes and its own links (README)",
  },
  {
    matches: (_, path) => field(/(^|\.)(message|data)\b/)(path),
    reason: "error messages and data say more than the original's (README: Where this API departs)",
  },
];

export function departureOf(
  testCase: string,
  path: string,
  original: Json | undefined,
  ours: Json | undefined,
): Departure | undefined {
  return DEPARTURES.find((departure) => departure.matches(testCase, path, original, ours));
}
