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

/** A page link's query, as pairs: `+` read as a space, the original's defaulted `status=any` left out. */
function pageQuery(link: string): string[] {
  const [path, query = ""] = link.split("?");
  const pairs = [...new URLSearchParams(query)]
    .filter(([name, value]) => !(name === "status" && value === "any"))
    .map(([name, value]) => `${name}=${value}`);
  return [path.replace(/\/$/, ""), ...pairs.sort()];
}

/**
 * Every pair of the original's link in ours, at the same address (a flag's 1 as `true`): the
 * original's `status=any` aside, and the default dates it adds to a list of `include`d events,
 * which ignores them here.
 */
function queryHeldIn(original: string, ours: string): boolean {
  const [theirPath, ...theirs] = pageQuery(original);
  const [myPath, ...mine] = pageQuery(ours);
  const included = theirs.some((pair) => pair.startsWith("include="));
  return (
    theirPath === myPath &&
    theirs.every(
      (pair) =>
        mine.includes(
          pair.replace(/^(featured|has_events|only_with_upcoming|strict_dates|hide_empty)=1$/, "$1=true"),
        ) ||
        (included && /^(start|end)_date=/.test(pair)),
    )
  );
}

/**
 * The same page of the same query: WordPress leaves page=1 out of a link to the first page, and the
 * original's links to pages of venues and organizers leave the search out.
 */
function samePageQuery(original: string, ours: string): boolean {
  const theirs = pageQuery(original);
  const mine = pageQuery(ours).filter(
    (pair) =>
      !(pair === "page=1" && !theirs.includes(pair)) &&
      !(/^<api>\/(venues|organizers)$/.test(theirs[0]) && pair.startsWith("search=") && !theirs.includes(pair)),
  );
  return JSON.stringify(theirs) === JSON.stringify(mine);
}

export const DEPARTURES: Departure[] = [
  {
    matches: (_, path, original, ours) => path === "(status)" && original === 400 && ours === 404,
    reason: "an unknown id on an item's own route is 404 (README: Where this API departs)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)(venues?|organizers?)\.rest_url$|^rest_url$/)(path) &&
      original === undefined &&
      typeof ours === "string" &&
      /^<api>\/(venues\/\{(new )?venue|organizers\/\{(new )?organizer)(:[\w-]+)?\}$/.test(ours),
    reason: "venues and organizers carry their rest_url (README: Where this API departs)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)global_id(_lineage)?$/)(path) &&
      typeof original === "string" &&
      typeof ours === "string" &&
      /^<host>\?id=\{(new )?(event|venue|organizer)(:[\w-]+)?\}$/.test(original) &&
      ours === `${original}&type=${/\{(?:new )?(\w+)/.exec(original)![1]}`,
    reason: "a global id names the item's type, and its host's port (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/(^|\.)json_ld(\.location|\.organizer)?\.url$/)(path) &&
      typeof original === "string" &&
      (original === "" || /^https?:\/\/[\w.-]+\.test\//.test(original)) &&
      typeof ours === "string" &&
      /^<site>\/(venue|organizer)\/[\w%-]+\/$/.test(ours),
    reason:
      "a venue's or organizer's json_ld url is its page here (the original's is its website, empty without one) (docs/compatibility.md)",
  },
  {
    matches: (testCase, path, original, ours) =>
      /^(an update|an event|a draft)/.test(testCase) &&
      field(/^(venue|organizer)\.json_ld$/)(path) &&
      original === undefined &&
      ["Place", "Person"].includes(String((ours as { "@type"?: Json } | null)?.["@type"])),
    reason:
      "a write's answer embeds venues and organizers as reads do, json_ld included (the original leaves it out there) (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      path === "rest_url" &&
      typeof original === "string" &&
      typeof ours === "string" &&
      /^<api>\/\w+\/?(\?|$)/.test(original) &&
      queryHeldIn(original, ours),
    reason:
      "a list's rest_url repeats the query as it was read, every filter, flags as true/false (the original's leaves several out, terms' all, and writes flags as 1) (docs/compatibility.md)",
  },
  {
    matches: (_, path, original, ours) =>
      field(/^(next_|previous_)?rest_url$/)(path) &&
      typeof original === "string" &&
      typeof ours === "string" &&
      original.includes("?") &&
      samePageQuery(original, ours),
    reason:
      "a page's links hold the query as given, page=1 and a venue or organizer search included (the original adds status=any for a signed-in caller, leaves page=1 out, and a search from the links of venues and organizers) (docs/compatibility.md)",
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
    matches: (testCase, path, original) =>
      testCase.startsWith("an update") &&
      field(
        /^(cost|cost_details\.values|website|featured|organizer|sticky|show_map|show_map_link|hide_from_listings)$/,
      )(path) &&
      (original === "" || original === false || (Array.isArray(original) && original.length === 0)),
    reason:
      "updates change only the fields given; the original resets flags, website and organizers left out (README: Where this API departs)",
  },
  {
    matches: (testCase, path, original, ours) =>
      testCase === "an update of the start only" &&
      field(/^(utc_)?start_date(_details\.\w+)?$/)(path) &&
      // The original keeps the start as made (10:00); ours has the one written (09:00).
      ((/start_date$/.test(path) && String(original).endsWith(" 10:00:00") && String(ours).endsWith(" 09:00:00")) ||
        (original === "10" && ours === "09")),
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
    matches: (testCase, path, original, ours) =>
      testCase === "a draft event" &&
      ((/^(website|url)$/.test(path) &&
        typeof original === "string" &&
        original.includes("?post_type=tribe_events&p=") &&
        /^<site>\/event\/differential-draft-\w+\/$/.test(String(ours))) ||
        (path === "slug" && original === "" && /^differential-draft-\w+$/.test(String(ours))) ||
        (/^(date_utc|modified_utc)$/.test(path) && original === "0000-00-00 00:00:00" && ours === "<this run>")),
    reason:
      "a draft has a slug made from its title, its address with it, and UTC dates (WordPress gives drafts no slug until they are published, and 0000-00-00 as their UTC dates) (docs/compatibility.md)",
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
    matches: (testCase, path, original, ours) =>
      /^(a delete|an? \w+ deleted)$/.test(testCase) &&
      ((/^(website|url)$/.test(path) &&
        typeof original === "string" &&
        /\?post_type=tribe_(events|venue|organizer)&p=\d+$/.test(original) &&
        /^<site>\/(event|venue|organizer)\/[\w-]+\/$/.test(String(ours))) ||
        (path === "slug" && original === `${String(ours)}__trashed`)),
    reason:
      "a trashed event, venue or organizer keeps its slug and address (WordPress adds __trashed to the slug and gives a plain ?p= link) (README: Where this API departs)",
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
];

export function departureOf(
  testCase: string,
  path: string,
  original: Json | undefined,
  ours: Json | undefined,
): Departure | undefined {
  return DEPARTURES.find((departure) => departure.matches(testCase, path, original, ours));
}
