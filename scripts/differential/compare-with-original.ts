// npm run differential -- [--report file.md]: the same requests to the original (WordPress + The
// Events Calendar, `tribe/events/v1`, assembled by ../shared/tools/original/) and to this service,
// statuses, shapes and values compared. A development tool, not part of the tests: CI cannot
// assemble the original.
//
// Both sides are given the same small data set through their own REST APIs first (venues,
// organizers, categories and tags made by name, events), and ids are mapped through it: a request
// names items by their role in the data set (`{event:jazz}`), each side gets its own id. Every
// difference is either one of the departures written down in DEPARTURES (each with where the docs
// say it) or reported as undocumented; the run fails while any is.
//
// Environment: ORIGINAL_URL (default http://127.0.0.1:18600/wp-json/tribe/events/v1),
// ORIGINAL_AUTH (`admin:<application password>`, default from ORIGINAL_ROOT/app-password.txt),
// OURS_URL (default http://127.0.0.1:8080/calendar/events/v1), OURS_TOKEN (CALENDAR_ADMIN_TOKEN).
import { readFileSync, writeFileSync } from "node:fs";
import { DEPARTURES, departureOf } from "./departures";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Side {
  name: "original" | "ours";
  base: string;
  headers: Record<string, string>;
  ids: Map<string, number>;
  slugs: Map<string, string>;
  /** The namespace as a route of the site (`?rest_route=` takes it). */
  namespaceRoute: string;
}

const originalRoot = process.env.ORIGINAL_ROOT ?? "/tmp/orig-root";
const original: Side = {
  name: "original",
  base: process.env.ORIGINAL_URL ?? "http://127.0.0.1:18600/wp-json/tribe/events/v1",
  headers: {
    Authorization: `Basic ${Buffer.from(process.env.ORIGINAL_AUTH ?? `admin:${readFileSync(`${originalRoot}/app-password.txt`, "utf8").trim()}`).toString("base64")}`,
  },
  ids: new Map(),
  slugs: new Map(),
  namespaceRoute: "/tribe/events/v1",
};
const ours: Side = {
  name: "ours",
  base: process.env.OURS_URL ?? "http://127.0.0.1:8080/calendar/events/v1",
  headers: { Authorization: `Bearer ${process.env.OURS_TOKEN ?? ""}` },
  ids: new Map(),
  slugs: new Map(),
  namespaceRoute: "/calendar/events/v1",
};

interface Answer {
  status: number;
  body: Json;
  /** The headers both send that say something of the answer: its totals, its methods, its media type. */
  headers: Json;
}

/** The headers compared, by name. */
const COMPARED_HEADERS = ["X-TEC-Total", "X-TEC-TotalPages", "Allow"];

/** A JSONP script's call (`/**\/cb({...})`), read as the callback and its JSON value. */
function scriptCall(text: string): Json | undefined {
  const call = /^\/\*\*\/([\w.]+)\(([\s\S]*)\)$/.exec(text);
  if (!call) return undefined;
  try {
    return { callback: call[1], value: JSON.parse(call[2]) as Json };
  } catch {
    return undefined;
  }
}

/** `{run}`, and `{event:jazz}` (the side's id of that item) or `{slug:event:jazz}` (its slug), in any text. */
function mapNames(side: Side, text: string): string {
  return text
    .split("{run}")
    .join(RUN)
    .replace(/\{slug:(\w+):([\w-]+)\}/g, (_, kind: string, name: string) => side.slugs.get(`${kind}:${name}`) ?? "none")
    .replace(/\{(\w+):([\w-]+)\}/g, (_, kind: string, name: string) => String(side.ids.get(`${kind}:${name}`) ?? 0));
}

/** PHP's http_build_query, as `wp_remote_post` encodes an array body. */
function phpForm(value: Json, key = "", pairs: string[] = []): string[] {
  if (value === null) return pairs;
  if (typeof value === "object")
    for (const [name, item] of Object.entries(value)) phpForm(item, key === "" ? name : `${key}[${name}]`, pairs);
  else
    pairs.push(
      `${encodeURIComponent(key)}=${encodeURIComponent(value === true ? "1" : value === false ? "0" : String(value))}`,
    );
  return pairs;
}

async function call(
  side: Side,
  method: string,
  path: string,
  body?: Json,
  form = false,
  site = false,
): Promise<Answer> {
  const mapped = body === undefined ? undefined : mapIds(side, body);
  // A request to the site's root names the namespace's route itself (`{ns}/events`).
  const address = site
    ? `${new URL(side.base).origin}${mapNames(side, path).replace("{ns}", side.namespaceRoute)}`
    : `${side.base}${mapNames(side, path)}`;
  const response = await fetch(address, {
    method,
    headers: {
      ...side.headers,
      ...(mapped === undefined
        ? {}
        : { "Content-Type": form ? "application/x-www-form-urlencoded" : "application/json" }),
    },
    body: mapped === undefined ? undefined : form ? phpForm(mapped).join("&") : JSON.stringify(mapped),
  });
  const text = await response.text();
  let parsed: Json = scriptCall(text) ?? text;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // Not JSON: a script's call, or compared as text.
  }
  const headers: Json = Object.fromEntries(
    [
      ...COMPARED_HEADERS.map((name): [string, string | null] => [name, response.headers.get(name)]),
      ["Content-Type", response.headers.get("Content-Type")?.split(";")[0].toLowerCase() ?? null],
    ].filter(([, value]) => value !== null),
  );
  return { status: response.status, body: parsed, headers };
}

/** `"{venue:hall}"` strings in a body become the side's id of that item; `{run}` and slugs in text are filled in. */
function mapIds(side: Side, value: Json): Json {
  if (typeof value === "string") {
    if (value === "{name:music}") return `Differential music ${RUN}`;
    const match = /^\{(\w+):([\w-]+)\}$/.exec(value);
    return match ? (side.ids.get(`${match[1]}:${match[2]}`) ?? 0) : mapNames(side, value);
  }
  if (Array.isArray(value)) return value.map((item) => mapIds(side, item));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapIds(side, item)]));
  return value;
}

// Tomorrow and the day after, at 10:00, on both sides (their site time zones are UTC).
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Names both sides' items share in this run (the original keeps what earlier runs made). */
const RUN = Date.now().toString(36);

/** The data set both sides get: what each request below names. */
async function seed(side: Side): Promise<void> {
  const made = async (kind: string, name: string, path: string, body: Json) => {
    const answer = await call(side, "POST", path, body);
    if (answer.status >= 300)
      throw new Error(
        `${side.name}: seeding ${kind} ${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    const item = answer.body as { id: number; slug?: string };
    side.ids.set(`${kind}:${name}`, item.id);
    if (item.slug) side.slugs.set(`${kind}:${name}`, item.slug);
  };
  const unique = RUN;
  await made("venue", "hall", "/venues", {
    venue: `Differential hall ${unique}`,
    address: "1 Main St",
    city: "Springfield",
    state: "IL",
    country: "United States",
    zip: "62701",
  });
  // A second apart, so that a page of venues or organizers holds the same one on both sides.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await made("venue", "club", "/venues", {
    venue: `Differential club ${unique}`,
    address: "Rua Augusta 1",
    city: "Lisboa",
    country: "Portugal",
    phone: "555-0199",
    website: "https://club.example.test/",
  });
  await made("organizer", "society", "/organizers", {
    organizer: `Differential society ${unique}`,
    email: "society@example.test",
    phone: "555-0100",
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await made("organizer", "band", "/organizers", {
    organizer: `Differential band ${unique}`,
    website: "https://band.example.test/",
  });
  await made("category", "music", "/categories", { name: `Differential music ${unique}` });
  await made("category", "talks", "/categories", { name: `Differential talks ${unique}`, description: "Talks" });
  await made("tag", "jazz", "/tags", { name: `differential-jazz-${unique}` });
  await made("event", "jazz", "/events", {
    title: `Differential jazz night ${unique}`,
    description: "<p>An evening of jazz.</p>",
    start_date: `${day(1)} 10:00:00`,
    end_date: `${day(1)} 12:00:00`,
    venue: "{venue:hall}",
    organizer: ["{organizer:society}"],
    categories: ["{category:music}"],
    tags: ["{tag:jazz}"],
    cost: "10",
    featured: true,
  });
  await made("event", "free", "/events", {
    title: `Differential free talk ${unique}`,
    start_date: `${day(2)} 10:00:00`,
    end_date: `${day(2)} 11:00:00`,
    cost: "0",
  });
  await made("event", "festival", "/events", {
    title: `Differential festival ${unique}`,
    description: "<p>Three days.</p>",
    start_date: `${day(3)} 00:00:00`,
    end_date: `${day(5)} 23:59:59`,
    all_day: true,
    venue: "{venue:club}",
    organizer: ["{organizer:society}", "{organizer:band}"],
    categories: ["{category:music}", "{category:talks}"],
    cost: "$5",
  });
  // Items the writes below change or delete, so that the reads above see the data set as made.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await made("event", "doomed", "/events", {
    title: `Differential doomed ${unique}`,
    start_date: `${day(4)} 10:00:00`,
    end_date: `${day(4)} 11:00:00`,
  });
  await made("venue", "doomed", "/venues", { venue: `Differential doomed hall ${unique}` });
  await made("organizer", "doomed", "/organizers", { organizer: `Differential doomed society ${unique}` });
  await made("category", "doomed", "/categories", { name: `Differential doomed category ${unique}` });
  await made("tag", "doomed", "/tags", { name: `differential-doomed-tag-${unique}` });
}

interface Case {
  name: string;
  method: string;
  path: string;
  body?: Json;
  /** Sent form-encoded, as PHP's wp_remote_post sends an array. */
  form?: boolean;
  /** Sent to the site's root, not the namespace (`{ns}`: the namespace's route, `/tribe/events/v1`). */
  site?: boolean;
  /** Only the status and headers compared (the body is each side's own description of itself). */
  headersOnly?: boolean;
}

const event = (title: string, offset: number, more: Record<string, Json> = {}): Json => ({
  title: `Differential ${title} {run}`,
  start_date: `${day(offset)} 10:00:00`,
  end_date: `${day(offset)} 11:00:00`,
  ...more,
});

/** Every route, the filters, the date forms, flag words, paging edges, the write forms and the errors. */
const CASES: Case[] = [
  { name: "namespace index", method: "GET", path: "/" },
  // Reads of one item, by id and by slug.
  { name: "an event", method: "GET", path: "/events/{event:jazz}" },
  { name: "an event free of cost", method: "GET", path: "/events/{event:free}" },
  { name: "an all-day event of two organizers", method: "GET", path: "/events/{event:festival}" },
  { name: "an event by slug", method: "GET", path: "/events/by-slug/{slug:event:jazz}" },
  { name: "an unknown event", method: "GET", path: "/events/999999" },
  { name: "an event by an unknown slug", method: "GET", path: "/events/by-slug/no-such-event-anywhere" },
  { name: "a venue", method: "GET", path: "/venues/{venue:hall}" },
  { name: "a venue with a phone and a website", method: "GET", path: "/venues/{venue:club}" },
  { name: "a venue by slug", method: "GET", path: "/venues/by-slug/{slug:venue:hall}" },
  { name: "an unknown venue", method: "GET", path: "/venues/999999" },
  { name: "an organizer", method: "GET", path: "/organizers/{organizer:society}" },
  { name: "an organizer by slug", method: "GET", path: "/organizers/by-slug/{slug:organizer:society}" },
  { name: "an unknown organizer", method: "GET", path: "/organizers/999999" },
  { name: "a category", method: "GET", path: "/categories/{category:music}" },
  { name: "a category with a description", method: "GET", path: "/categories/{category:talks}" },
  { name: "an unknown category", method: "GET", path: "/categories/999999" },
  { name: "a tag", method: "GET", path: "/tags/{tag:jazz}" },
  // The filters of events.
  { name: "events by search", method: "GET", path: "/events?search={run}" },
  { name: "events of a category", method: "GET", path: "/events?categories={category:music}" },
  {
    name: "events of two categories",
    method: "GET",
    path: "/events?categories[]={category:music}&categories[]={category:talks}",
  },
  { name: "events of a category by slug", method: "GET", path: "/events?categories={slug:category:talks}" },
  { name: "events of an unknown category", method: "GET", path: "/events?categories=999999" },
  { name: "events of a tag", method: "GET", path: "/events?tags={tag:jazz}" },
  { name: "events of a venue", method: "GET", path: "/events?venue={venue:hall}" },
  { name: "events of an organizer", method: "GET", path: "/events?organizer={organizer:band}" },
  { name: "featured events of this run", method: "GET", path: "/events?featured=true&search={run}" },
  { name: "featured events, 1", method: "GET", path: "/events?featured=1&search={run}" },
  { name: "events not featured", method: "GET", path: "/events?featured=false&search={run}" },
  { name: "events included by id", method: "GET", path: "/events?include={event:jazz},{event:festival}" },
  { name: "published events", method: "GET", path: "/events?status=publish&search={run}" },
  { name: "draft events", method: "GET", path: "/events?status=draft&search={run}" },
  // Date windows, in each form the original reads.
  {
    name: "events starting after tomorrow",
    method: "GET",
    path: `/events?starts_after=${day(1)} 12:00:00&search={run}`,
  },
  { name: "events starting before", method: "GET", path: `/events?starts_before=${day(2)} 12:00:00&search={run}` },
  { name: "events ending after", method: "GET", path: `/events?ends_after=${day(2)} 10:30:00&search={run}` },
  { name: "events ending before", method: "GET", path: `/events?ends_before=${day(2)} 23:00:00&search={run}` },
  {
    name: "events in a window",
    method: "GET",
    path: `/events?start_date=${day(2)} 00:00:00&end_date=${day(2)} 23:59:59&search={run}`,
  },
  { name: "events from a day", method: "GET", path: `/events?start_date=${day(2)}&search={run}` },
  { name: "events from an ISO time", method: "GET", path: `/events?start_date=${day(2)}T00:00:00&search={run}` },
  { name: "events from a relative date", method: "GET", path: "/events?start_date=tomorrow&search={run}" },
  {
    name: "events from a Unix time",
    method: "GET",
    path: `/events?start_date=${Math.floor(Date.parse(`${day(2)}T00:00:00Z`) / 1000)}&search={run}`,
  },
  { name: "events from a date that is none", method: "GET", path: "/events?start_date=not-a-date&search={run}" },
  {
    name: "events in a window, strictly",
    method: "GET",
    path: `/events?start_date=${day(3)} 12:00:00&end_date=${day(6)} 00:00:00&strict_dates=1&search={run}`,
  },
  {
    name: "events in a window, not strictly",
    method: "GET",
    path: `/events?start_date=${day(3)} 12:00:00&end_date=${day(6)} 00:00:00&strict_dates=0&search={run}`,
  },
  {
    name: "events in a window, strict_dates=yes",
    method: "GET",
    path: `/events?start_date=${day(3)} 12:00:00&end_date=${day(6)} 00:00:00&strict_dates=yes&search={run}`,
  },
  // Paging and its edges.
  { name: "a page of events", method: "GET", path: "/events?per_page=1&page=2&search={run}" },
  { name: "the last page", method: "GET", path: "/events?per_page=2&page=2&search={run}" },
  { name: "a page past the last", method: "GET", path: "/events?per_page=10&page=9&search={run}" },
  { name: "per_page of 0", method: "GET", path: "/events?per_page=0&search={run}" },
  { name: "per_page over the most", method: "GET", path: "/events?per_page=51&search={run}" },
  { name: "page 0", method: "GET", path: "/events?page=0&search={run}" },
  { name: "a bad per_page", method: "GET", path: "/events?per_page=abc" },
  // The other collections and their filters.
  { name: "venues", method: "GET", path: "/venues?search={run}" },
  { name: "venues with upcoming events", method: "GET", path: "/venues?only_with_upcoming=1&search={run}" },
  { name: "venues with events", method: "GET", path: "/venues?has_events=true&search={run}" },
  { name: "a page of venues", method: "GET", path: "/venues?per_page=1&page=2&search={run}" },
  { name: "organizers", method: "GET", path: "/organizers?search={run}" },
  { name: "organizers with events", method: "GET", path: "/organizers?has_events=1&search={run}" },
  { name: "categories", method: "GET", path: "/categories?search={run}" },
  { name: "categories, empty ones too", method: "GET", path: "/categories?hide_empty=false&search={run}" },
  { name: "categories of an event", method: "GET", path: "/categories?event={event:festival}" },
  { name: "categories by name", method: "GET", path: "/categories?orderby=name&order=desc&search={run}" },
  { name: "tags", method: "GET", path: "/tags?search={run}" },
  { name: "tags of an event", method: "GET", path: "/tags?event={event:jazz}" },
  // WordPress's request forms and global parameters.
  {
    name: "an event through index.php?rest_route=",
    method: "GET",
    path: "/index.php?rest_route={ns}/events/{event:jazz}",
    site: true,
  },
  { name: "events through ?rest_route=", method: "GET", path: "/?rest_route={ns}/events&search={run}", site: true },
  { name: "an event as JSONP", method: "GET", path: "/events/{event:jazz}?_jsonp=show" },
  { name: "an unknown event as JSONP", method: "GET", path: "/events/999999?_jsonp=show" },
  { name: "a JSONP callback that is no name", method: "GET", path: "/events?_jsonp=alert(1)" },
  { name: "events with _fields", method: "GET", path: "/events?_fields=id,title&search={run}" },
  { name: "the methods of events", method: "OPTIONS", path: "/events", headersOnly: true },
  { name: "the methods of an event", method: "OPTIONS", path: "/events/{event:jazz}", headersOnly: true },
  // Writes, in each form.
  {
    name: "an update",
    method: "POST",
    path: "/events/{event:jazz}",
    body: { title: "Differential jazz night, renamed" },
  },
  {
    name: "an update of the start only",
    method: "POST",
    path: "/events/{event:doomed}",
    body: { start_date: `${day(4)} 09:00:00` },
  },
  { name: "an event without dates", method: "POST", path: "/events", body: { title: "No dates" } },
  {
    name: "an event ending before it starts",
    method: "POST",
    path: "/events",
    body: event("backwards", 3, { end_date: `${day(3)} 09:00:00` }),
  },
  {
    name: "an event with an unknown venue",
    method: "POST",
    path: "/events",
    body: event("lost", 3, { venue: 999999 }),
  },
  {
    name: "an event with an inline venue",
    method: "POST",
    path: "/events",
    body: event("inline", 3, { venue: { venue: "Differential inline hall {run}", state: "IL" } }),
  },
  {
    name: "an event in the original's loose forms",
    method: "POST",
    path: "/events",
    body: event("loose", 3, {
      venue: "{venue:club}",
      organizer: ["{organizer:society}", "{organizer:band}"],
      categories: ["{name:music}"],
      featured: "1",
      description: "<p>Loose.</p>  \n",
      cost: "5, 10",
    }),
  },
  {
    name: "an event with organizers as a comma list",
    method: "POST",
    path: "/events",
    body: event("comma organizers", 3, { organizer: "{organizer:society},{organizer:band}" }),
  },
  {
    name: "an event, form-encoded, with a cost range",
    method: "POST",
    path: "/events",
    form: true,
    body: event("form", 3, {
      venue: "{venue:hall}",
      organizer: ["{organizer:society}", "{organizer:band}"],
      tags: ["{tag:jazz}"],
      featured: true,
      all_day: false,
      cost: "$5 – $10",
    }),
  },
  {
    name: "an event in its own time zone",
    method: "POST",
    path: "/events",
    body: event("zoned", 3, { timezone: "America/New_York", website: "https://zoned.example.test/" }),
  },
  {
    name: "a draft event",
    method: "POST",
    path: "/events",
    body: event("draft", 3, { status: "draft" }),
  },
  { name: "a delete", method: "DELETE", path: "/events/{event:free}" },
  { name: "a delete of an unknown event", method: "DELETE", path: "/events/999999" },
  // Venues, organizers and terms: create, update, delete.
  {
    name: "a venue created",
    method: "POST",
    path: "/venues",
    body: { venue: "Differential new hall {run}", city: "Porto", country: "Portugal", phone: "555-0111" },
  },
  {
    name: "a venue created, form-encoded",
    method: "POST",
    path: "/venues",
    form: true,
    body: { venue: "Differential form hall {run}", zip: "4000", show_map: "1" },
  },
  { name: "a venue without a name", method: "POST", path: "/venues", body: { city: "Nowhere" } },
  { name: "a venue updated", method: "POST", path: "/venues/{venue:doomed}", body: { city: "Braga" } },
  { name: "a venue deleted", method: "DELETE", path: "/venues/{venue:doomed}" },
  {
    name: "an organizer created",
    method: "POST",
    path: "/organizers",
    body: { organizer: "Differential new society {run}", email: "Info <info@example.test>", phone: "555-0122" },
  },
  {
    name: "an organizer with an e-mail that is none",
    method: "POST",
    path: "/organizers",
    body: { organizer: "Differential odd society {run}", email: "not-an-email" },
  },
  { name: "an organizer without a name", method: "POST", path: "/organizers", body: { phone: "1" } },
  {
    name: "an organizer updated",
    method: "POST",
    path: "/organizers/{organizer:doomed}",
    body: { website: "https://doomed.example.test/" },
  },
  { name: "an organizer deleted", method: "DELETE", path: "/organizers/{organizer:doomed}" },
  { name: "a category of a name taken", method: "POST", path: "/categories", body: { name: "{name:music}" } },
  {
    name: "a category created",
    method: "POST",
    path: "/categories",
    body: { name: "Differential new category {run}", description: "New" },
  },
  { name: "a category without a name", method: "POST", path: "/categories", body: { description: "None" } },
  {
    name: "a category updated",
    method: "POST",
    path: "/categories/{category:doomed}",
    body: { description: "Changed" },
  },
  { name: "a category deleted", method: "DELETE", path: "/categories/{category:doomed}" },
  { name: "a tag created", method: "POST", path: "/tags", body: { name: "differential-new-tag-{run}" } },
  { name: "a tag updated", method: "POST", path: "/tags/{tag:doomed}", body: { description: "Changed" } },
  { name: "a tag deleted", method: "DELETE", path: "/tags/{tag:doomed}" },
];

/** What an item's id names, by the key it is under (`venue`, `organizers`...) or the route asked. */
const KIND_OF_KEY: Record<string, string> = {
  event: "event",
  events: "event",
  venue: "venue",
  venues: "venue",
  organizer: "organizer",
  organizers: "organizer",
  category: "category",
  categories: "category",
  tag: "tag",
  tags: "tag",
  include: "event",
};
const KIND_OF_ROUTE: Record<string, string> = {
  events: "event",
  venues: "venue",
  organizers: "organizer",
  categories: "category",
  tags: "tag",
};
/** When this run began: a time at or after it is one of the run's writes, on either side. */
const RUN_STARTED = Date.now() - 60_000;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function roleOf(side: Side, kind: string, id: number): string {
  for (const [role, known] of side.ids) if (known === id && role.startsWith(`${kind}:`)) return `{${role}}`;
  return `{new ${kind}}`;
}

/**
 * A side's answer in terms both share, so that everything else is compared at any depth: its
 * origin and host as `<site>`, `<api>`, `<host>`; an id of the data set (in `id`, `post_parent`,
 * `term_taxonomy_id`, a REST address or a global id) as its role (`{venue:hall}`), one the request
 * itself made as `{new event}`; a time of this run's writes (`date`, `modified`...) as `<this run>`.
 * Slugs, authors, addresses and every other time are compared as they are.
 */
function inSharedTerms(side: Side, value: Json, kind: string, key = ""): Json {
  if (typeof value === "number" && /^(id|post_parent|term_taxonomy_id)$/.test(key) && value > 0)
    return roleOf(side, key === "post_parent" ? "event" : kind, value);
  if (typeof value === "string") {
    const text = value
      .split(side.base)
      .join("<api>")
      .split(new URL(side.base).origin)
      .join("<site>")
      .split(new URL(side.base).host)
      .join("<host>")
      // WordPress's global ids name the host without its port.
      .replace(new RegExp(`^${new URL(side.base).hostname.replace(/\./g, "\\.")}(?=\\?id=)`), "<host>")
      .replace(
        /<api>\/(events|venues|organizers|categories|tags)\/(\d+)/g,
        (_, route: string, id: string) => `<api>/${route}/${roleOf(side, KIND_OF_ROUTE[route], Number(id))}`,
      )
      .replace(
        /([?&](venue|organizer|categories|tags|include|event)=)([\d,]+)/g,
        (_, name: string, parameter: string, ids: string) =>
          name +
          ids
            .split(",")
            .map((id) => roleOf(side, KIND_OF_KEY[parameter] ?? "event", Number(id)))
            .join(","),
      )
      .replace(/^<host>\?id=(\d+)(?=$|&type=)/, (_, id: string) => `<host>?id=${roleOf(side, kind, Number(id))}`);
    const ofThisRun =
      /^(date|date_utc|modified|modified_utc)$/.test(key) &&
      WALL_CLOCK.test(text) &&
      Date.parse(`${text.replace(" ", "T")}Z`) >= RUN_STARTED;
    return ofThisRun ? "<this run>" : text;
  }
  if (Array.isArray(value)) return value.map((item) => inSharedTerms(side, item, kind, key));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, inSharedTerms(side, item, KIND_OF_KEY[name] ?? kind, name)]),
    );
  return value;
}

/**
 * A list of venues or organizers, newest first, with the items made in the same second in the
 * order they were made: the original leaves such ties to MySQL (which gives the oldest first), we
 * give the newest id first (docs/compatibility.md). A list not newest first is left as it is, so
 * that any other difference of order shows.
 */
function tiesOldestFirst(body: Json): Json {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const key = ["venues", "organizers"].find((name) => Array.isArray(body[name]));
  if (!key) return body;
  const items = body[key] as Array<{ date?: string; id?: number }>;
  if (items.some((item, index) => index > 0 && String(items[index - 1].date) < String(item.date))) return body;
  const sorted = [...items].sort((a, b) =>
    a.date === b.date ? Number(a.id) - Number(b.id) : String(b.date).localeCompare(String(a.date)),
  );
  return { ...body, [key]: sorted as Json };
}

interface Difference {
  path: string;
  original: Json | undefined;
  ours: Json | undefined;
}

function differences(a: Json | undefined, b: Json | undefined, path = ""): Difference[] {
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) =>
      differences(a[key], b[key], `${path}.${key}`),
    );
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, index) => differences(item, b[index], `${path}[${index}]`));
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [{ path: path.replace(/^\./, "") || "(body)", original: a, ours: b }];
}

async function main(): Promise<void> {
  const reportFile = process.argv.includes("--report") ? process.argv[process.argv.indexOf("--report") + 1] : null;
  await seed(original);
  await seed(ours);
  const lines: string[] = [
    "# Differential run against the original",
    "",
    `${new Date().toISOString()}: ${CASES.length} requests to both.`,
    "",
  ];
  let undocumented = 0;
  for (const testCase of CASES) {
    const [theirsRaw, mineRaw] = [
      await call(original, testCase.method, testCase.path, testCase.body, testCase.form, testCase.site),
      await call(ours, testCase.method, testCase.path, testCase.body, testCase.form, testCase.site),
    ];
    const routeKind = KIND_OF_ROUTE[/^\/(\w+)/.exec(testCase.path)?.[1] ?? ""] ?? "event";
    const theirs = { ...theirsRaw, body: inSharedTerms(original, tiesOldestFirst(theirsRaw.body), routeKind) };
    const mine = { ...mineRaw, body: inSharedTerms(ours, tiesOldestFirst(mineRaw.body), routeKind) };
    const found: Difference[] =
      theirs.status === mine.status ? [] : [{ path: "(status)", original: theirs.status, ours: mine.status }];
    // An error is compared by its code; a success by its fields (but where a case says its status
    // and headers are what it is about) and its headers.
    if (theirs.status < 300 && mine.status < 300)
      found.push(
        ...(testCase.headersOnly ? [] : differences(theirs.body, mine.body)),
        ...differences(theirs.headers, mine.headers, "(headers)"),
      );
    else if (theirs.status >= 300 && mine.status >= 300)
      found.push(
        ...differences(
          (theirs.body as { code?: Json }).code ?? null,
          (mine.body as { code?: Json }).code ?? null,
          "code",
        ),
      );
    lines.push(`## ${testCase.name}: ${testCase.method} ${testCase.path} → ${theirs.status} / ${mine.status}`);
    for (const difference of found) {
      const departure = departureOf(testCase.name, difference.path, difference.original, difference.ours);
      if (!departure) undocumented += 1;
      lines.push(
        `- ${departure ? "departure" : "**UNDOCUMENTED**"} \`${difference.path}\`: original ${JSON.stringify(difference.original)?.slice(0, 120)}, ours ${JSON.stringify(difference.ours)?.slice(0, 120)}${departure ? ` (${departure.reason})` : ""}`,
      );
    }
    if (found.length === 0) lines.push("- same");
    lines.push("");
  }
  lines.push(`${undocumented} undocumented differences; ${DEPARTURES.length} departures written down.`);
  const report = lines.join("\n");
  if (reportFile) writeFileSync(reportFile, report);
  console.log(report);
  process.exitCode = undocumented > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
