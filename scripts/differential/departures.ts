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

const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b);

/** The same methods, in any order. */
const sameMethods = (a: string, b: string) => a.split(/,\s*/).sort().join(",") === b.split(/,\s*/).sort().join(",");

const withoutHead = (methods: string) =>
  methods
    .split(/,\s*/)
    .filter((method) => method !== "HEAD")
    .join(", ");

const isEmptyObject = (value: Json | undefined) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;

/** WordPress's antispambot: each character may be a decimal or hex entity. */
const decodeEntities = (text: string) =>
  text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)));

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
    matches: (_, path, original) =>
      field(/(^|\.)cost_details\.(currency_symbol|currency_position)$/)(path) &&
      (original === "$" || original === "prefix"),
    reason: "no site currency is added to a cost written without one (docs/compatibility.md, Event schema)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)cost_details\.values$/)(path) &&
      Array.isArray(original) &&
      original.length === 0 &&
      JSON.stringify(ours) === '["0"]',
    reason: 'a cost of "0" has the value "0" (docs/compatibility.md, Event schema)',
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
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\.(startDate|endDate|offers\.validFrom)$/)(path) &&
      typeof original === "string" &&
      typeof ours === "string" &&
      ours.endsWith("Z") &&
      sameInstant(original, ours),
    reason: "json_ld dates are in UTC with Z (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\..+$/)(path) && (original === "" || original === false) && ours === undefined,
    reason: "json_ld has no empty properties (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld(\..+)?\.@context$/)(path) && original === undefined && ours === "http://schema.org",
    reason: "every json_ld carries an @context, a venue's and an organizer's too (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\.(.+\.)?email$/)(path) && typeof original === "string" && decodeEntities(original) === ours,
    reason: "json_ld e-mail addresses are not entity-encoded (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\.offers\.priceCurrency$/)(path) && original === "USD" && ours === undefined,
    reason: "json_ld guesses no currency for a cost without a symbol (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\.offers$/)(path) &&
      original === undefined &&
      (ours as { price?: Json } | null)?.price === "0",
    reason: "json_ld has an offer for free events too (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld\.organizer$/)(path) &&
      original !== null &&
      typeof original === "object" &&
      !Array.isArray(original) &&
      Array.isArray(ours) &&
      (ours[0] as { name?: Json } | undefined)?.name === (original as { name?: Json }).name,
    reason: "json_ld.organizer lists every organizer (the original gives the first alone) (docs/compatibility.md)",
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
      testCase.startsWith("an update") &&
      field(
        /^(cost|cost_details\.values|website|featured|organizer|sticky|show_map|show_map_link|hide_from_listings)$/,
      )(path),
    reason:
      "updates change only the fields given; the original resets flags, website and organizers left out (README: Where this API departs)",
  },
  {
    matches: (testCase, path) =>
      testCase === "an update of the start only" && field(/^(utc_)?start_date(_details\.\w+)?$/)(path),
    reason:
      "a write with start_date alone (or end_date alone) moves that end, the length changing; the original ignores it (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      path === "(headers).Allow" &&
      typeof original === "string" &&
      typeof ours === "string" &&
      sameMethods(original, withoutHead(ours)),
    reason: "Allow lists HEAD too, answered wherever GET is (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, _, ours) =>
      testCase.includes("JSONP") && path === "(headers).Allow" && ours === "GET, HEAD",
    reason:
      "a JSONP request is answered as to an anonymous caller, whatever credential it sends (docs/compatibility.md)",
  },
  {
    matches: (testCase, path) =>
      testCase.includes("with upcoming") &&
      /^(venues|organizers|total|total_pages|\(headers\)\.X-TEC-Total|\(headers\)\.X-TEC-TotalPages)$/.test(
        path.replace(/\[\d+\].*$/, ""),
      ),
    reason:
      "only_with_upcoming looks at every upcoming event (the original's at its first 10 only) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original) =>
      testCase.includes("_fields") && path === "(body)" && (Array.isArray(original) || isEmptyObject(original)),
    reason:
      "_fields on a collection selects its items' fields (WordPress selects among the collection's own keys, and gives nothing) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original, ours) =>
      testCase === "an event with organizers as a comma list" &&
      path === "(status)" &&
      original === 400 &&
      ours === 201,
    reason:
      "organizers given as a comma list of ids in one string are read as that list (the original refuses it in a JSON body) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original, ours) =>
      testCase === "an event ending before it starts" && path === "(status)" && original === 201 && ours === 400,
    reason:
      "an end before the start is 400 (the original clamps it and answers 201; its lists never show such an event) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original, ours) =>
      /strict_dates=0|not strictly/.test(testCase) && path === "(status)" && original === 400 && ours === 200,
    reason: "strict_dates=0 is no, as false is (the original answers 400 to 0 alone) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original) =>
      testCase === "a draft event" &&
      path === "website" &&
      typeof original === "string" &&
      original.includes("?post_type=tribe_events&p="),
    reason:
      "a draft has a slug made from its title, and its address with it (WordPress gives drafts no slug until they are published) (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      (field(/(^|\.)cost$/)(path) && typeof ours === "string" && /\d\s*,\s*\d/.test(ours)) ||
      (field(/(^|\.)cost_details\.values$/)(path) &&
        typeof original === "string" &&
        original.endsWith(".") &&
        ours === original.slice(0, -1)),
    reason:
      'a comma list of costs ("5, 10") is shown as written, its values 5 and 10 (the original reads the comma as a decimal point) (docs/compatibility.md)',
  },
  {
    matches: (testCase, path, original, ours) =>
      testCase.includes("cost range") &&
      field(/(^|\.)cost_details\.(currency_symbol|currency_position)$/)(path) &&
      original === "" &&
      (ours === "$" || ours === "prefix"),
    reason:
      "a range with a symbol and an en dash ($5 – $10) keeps its symbol in cost_details (the original loses it) (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)email$/)(path) &&
      typeof original === "string" &&
      typeof ours === "string" &&
      ours.replace(/\s*<[^>]*>/g, "") === original,
    reason:
      "an organizer's e-mail is kept as written (the original strips <info@example.test> from Info <info@example.test> as if it were markup) (docs/compatibility.md)",
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
    matches: (_, path, original) =>
      original === undefined &&
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
