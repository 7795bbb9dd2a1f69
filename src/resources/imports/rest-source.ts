import type { WorkLimits } from "../../work/bounded-work";
import type { LinkedKind } from "../../services";
import type { FeedEvent, LinkedItemData } from "./feed-event";
import { fetchFeed, FeedFetchError, FeedTooLarge, type FetchOptions } from "./feed-fetch";
import { DateTime } from "luxon";
import type { RunBudget } from "./run-budget";
import type { SourceReader } from "./source-reader";
import {
  readLinkedItemBounded,
  readLinkedItemsBounded,
  readRestEventBounded,
  readRestIdsBounded,
  readRestPageBounded,
} from "./feed-reading";
import { UnreadableFeed } from "./ical-reader";

/**
 * A source that is another site's events REST API: The Events Calendar's (`…/wp-json/tribe/events/v1/events`,
 * as the original's aggregator reads "Other URL" sources) or this service's (`…/calendar/events/v1/events`).
 * Either API's root works too. The URL's own query parameters (categories, tags, dates, search...)
 * narrow what is taken; the run asks for pages of 50 itself.
 *
 * A run reads the list in full, page after page, unless the last run left a cursor. Of this
 * service, the `next_sync_token` of its events, venues and organizers: the run reads only the
 * changes since, and the tombstones. Of The Events Calendar, a modification window: WordPress's
 * own list of the site's events (`wp/v2/tribe_events`, ids and modification dates, 100 a page)
 * says which were modified since the last run, and which are gone; only those are read from the
 * events API (`include=`), with the URL's filters, and the venues and organizers WordPress lists
 * as modified since, one by one. A site without that list (the post type not in WordPress's REST
 * API) is read in full; every source in full at least once a day (a category renamed there
 * modifies none of its events). Every
 * page goes through the guard feeds go through (fetchFeed: addresses, redirects, encodings), and
 * the whole reading spends the run's one budget (run-budget.ts: time, bytes, requests, items,
 * dates, problems); each page is parsed in the work thread (feed-reading.ts).
 */

export type RestKind = "tribe" | "calendar";

export interface RestApi {
  kind: RestKind;
  /** The events list, with the source's own query parameters. */
  events: URL;
  /**
   * The site the API is of: its host and the path before the API's route (`tec.example/blog`),
   * without a language prefix. Every source of one site has the same, whatever its form
   * (`/wp-json` or `?rest_route=`), scheme or filters: it is the scope of what they bring.
   */
  site: string;
}

const PER_PAGE = 50;
/** Parameters the run sets itself, or that would change the answer's shape. */
const RUN_PARAMETERS = ["page", "per_page", "sync_token", "_fields", "_envelope", "_jsonp", "ical"];

const ROUTES: Array<{ kind: RestKind; pattern: RegExp; events: string }> = [
  {
    kind: "tribe",
    pattern: /^(.*?)\/wp-json(?:\/tribe\/events\/v1(?:\/events)?)?\/?$/,
    events: "/wp-json/tribe/events/v1/events",
  },
  { kind: "calendar", pattern: /^(.*?)\/calendar\/events\/v1(?:\/events)?\/?$/, events: "/calendar/events/v1/events" },
];
const REST_ROUTES: Array<{ kind: RestKind; pattern: RegExp; events: string }> = [
  { kind: "tribe", pattern: /^\/?tribe\/events\/v1(?:\/events)?\/?$/, events: "/tribe/events/v1/events" },
  { kind: "calendar", pattern: /^\/?calendar\/events\/v1(?:\/events)?\/?$/, events: "/calendar/events/v1/events" },
];

/** The REST API a source's URL names (null: an iCalendar feed). */
export function restApiOf(url: string): RestApi | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.searchParams.has("ical")) return null;
  const events = new URL(parsed);
  for (const name of RUN_PARAMETERS) events.searchParams.delete(name);
  const route = parsed.searchParams.get("rest_route");
  if (route !== null) {
    const known = REST_ROUTES.find(({ pattern }) => pattern.test(route));
    if (!known) return null;
    events.searchParams.set("rest_route", known.events);
    return { kind: known.kind, events, site: siteOf(parsed.host, parsed.pathname.replace(/index\.php$/, "")) };
  }
  for (const { kind, pattern, events: path } of ROUTES) {
    const match = pattern.exec(parsed.pathname);
    if (!match) continue;
    events.pathname = `${match[1]}${path}`;
    const base = kind === "calendar" ? match[1].replace(/\/(?:en|pt-br|es)$/i, "") : match[1];
    return { kind, events, site: siteOf(parsed.host, base) };
  }
  return null;
}

const siteOf = (host: string, path: string) => `${host}${decodeURIComponent(path).replace(/\/+$/, "")}`;

/** What reading a REST source gives a run (its problems went to the run's budget). */
export interface RestReading {
  events: FeedEvent[];
  /** A full pass: `events` is every event the source lists, and those it does not list left it. */
  complete: boolean;
  /** Of a pass through the changes: the ids (at the source) of the events deleted or no longer listed. */
  deleted: string[];
  /** Where the next run reads the changes from, or null (it reads the list in full). */
  cursor: string | null;
  /** Of this service's changes: the venues and organizers changed there (an event that shows one is not changed by it). */
  linked: Array<{ kind: LinkedKind; item: LinkedItemData }>;
}

/**
 * An imported event that left the source's lists, as the source shows it on its own: when it is
 * still there and only hidden from its lists (`hide_from_listings`: both APIs' lists leave such
 * events out), it stays, hidden; null when it is gone, or no longer one the source's URL selects.
 */
async function stillHidden(
  api: RestApi,
  pages: Pages,
  options: RestReadOptions,
  uid: string,
): Promise<FeedEvent | null> {
  pages.budget.spendItems(1);
  let text: string;
  try {
    text = await pages.get(bare(api, `/${uid}`));
  } catch (error) {
    if (clientError(error)) return null;
    throw error;
  }
  const event = await readRestEventBounded({ text, maxEvents: 1 }, options.source, options.read);
  return !("message" in event) && event.rest?.hideFromListings === true ? event : null;
}

/** This service's cursor: the `next_sync_token` of its events, and of its venues and organizers (null: not read). */
interface CalendarCursor {
  events: string;
  venues: string | null;
  organizers: string | null;
  /** When the list was last read in full. */
  full: number;
}

const LINKED_LISTS = [
  ["venue", "venues"],
  ["organizer", "organizers"],
] as const;

export interface RestReadOptions {
  fetch: Omit<FetchOptions, "timeoutMs" | "maxBytes">;
  maxEvents: number;
  read: WorkLimits;
  source: number;
  /** The events (their ids at the source) earlier runs imported. */
  imported: Set<string>;
}

/** The source answered 4xx: it has no such list (or not for us). */
const clientError = (error: unknown) =>
  error instanceof FeedFetchError && error.status !== null && error.status >= 400 && error.status < 500;

/** The pages of one reading: each fetched through the guard, within what is left of the run's budget. */
class Pages {
  constructor(
    readonly budget: RunBudget,
    private readonly options: RestReadOptions,
  ) {}

  async get(url: URL): Promise<string> {
    const timeoutMs = this.budget.requestTime();
    try {
      const answer = await fetchFeed(
        url.href,
        { etag: null, lastModified: null },
        { ...this.options.fetch, timeoutMs, maxBytes: this.budget.bytes, format: "json", signal: this.budget.stopping },
      );
      if (answer.notModified) throw new FeedFetchError("the source answered 304 to a request without validators");
      this.budget.spendBytes(Buffer.byteLength(answer.text));
      return answer.text;
    } catch (error) {
      if (error instanceof FeedTooLarge)
        throw new FeedFetchError("the source's pages are larger than IMPORT_MAX_BYTES together");
      throw error;
    }
  }
}

/** The Events Calendar's cursor: the latest modification the last run saw (null: the site has no list of ids), and its last full pass. */
interface TribeWindow {
  modified: string | null;
  full: number;
}

/** How long a REST source is read by its changes (tokens, modification window) before it is read in full again. */
const FULL_PASS_EVERY_MS = 86_400_000;

/** A source's cursor as the kind of source keeps it (null: none, or not of that kind: the next run reads in full). */
function cursorOf<C extends { full: number }>(cursor: string | null, valid: (parsed: C) => boolean): C | null {
  if (cursor === null) return null;
  try {
    const parsed = JSON.parse(cursor) as C;
    return typeof parsed.full === "number" && valid(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** A list of the namespace beside the events' (`venues`, `organizers`), without the source's filters. */
function siblingList(api: RestApi, name: string): URL {
  return inLanguage(
    api,
    routeUrl(api, (route) => route.replace(/\/events$/, `/${name}`)),
  );
}

/** Where the venues' and organizers' changes start (null: the source does not list them). */
async function linkedTokens(api: RestApi, budget: Pages, options: RestReadOptions) {
  const tokens: Pick<CalendarCursor, "venues" | "organizers"> = { venues: null, organizers: null };
  for (const [, list] of LINKED_LISTS) {
    const url = siblingList(api, list);
    url.searchParams.set("per_page", "1");
    try {
      const text = await budget.get(url);
      tokens[list] = (
        await readLinkedItemsBounded({ text, maxEvents: 1 }, list, options.source, options.read)
      ).nextSyncToken;
    } catch (error) {
      if (!clientError(error)) throw error;
    }
  }
  return tokens;
}

/** The latest of the modification dates (the site's wall clock: they compare as text). */
const latest = (dates: Array<string | null | undefined>) =>
  dates.reduce<string | null>((max, date) => (date && (max === null || date > max) ? date : max), null);

/** Reads a REST source: its changes since the last run where its cursor says, else its list in full. */
export async function readRestSource(
  api: RestApi,
  cursor: string | null,
  runBudget: RunBudget,
  options: RestReadOptions,
): Promise<RestReading> {
  const budget = new Pages(runBudget, options);
  if (api.kind === "calendar") {
    const tokens = cursorOf<CalendarCursor>(cursor, (parsed) => typeof parsed.events === "string");
    if (tokens !== null && Date.now() - tokens.full < FULL_PASS_EVERY_MS) {
      try {
        return await readChanges(api, tokens, budget, options);
      } catch (error) {
        // A token older than the source's log (or from before a restore): the list in full.
        if (!(error instanceof FeedFetchError && error.status === 410)) throw error;
      }
    }
    const full = Date.now();
    // The venues' and organizers' tokens first: a change made while the events are read is one after them.
    const linked = await linkedTokens(api, budget, options);
    const reading = await readList(api, budget, options);
    if (reading.cursor === null) return reading;
    return { ...reading, cursor: JSON.stringify({ events: reading.cursor, ...linked, full } satisfies CalendarCursor) };
  }
  const window = cursorOf<TribeWindow>(cursor, () => true);
  const now = Date.now();
  if (window !== null && window.modified !== null && now - window.full < FULL_PASS_EVERY_MS) {
    const listed = await listedPosts(api, "tribe_events", budget, options).catch((error: unknown) => {
      if (clientError(error) || error instanceof UnreadableFeed) return null;
      throw error;
    });
    if (listed !== null)
      return readModified(api, { modified: window.modified, full: window.full }, listed, budget, options);
    // WordPress does not list the site's events (the post type is not in its REST API): in full, until the day is over.
    const reading = await readList(api, budget, options);
    return { ...reading, cursor: JSON.stringify({ modified: null, full: window.full } satisfies TribeWindow) };
  }
  const reading = await readList(api, budget, options);
  const modified = latest(reading.events.map((event) => event.rest?.modified));
  return { ...reading, cursor: JSON.stringify({ modified, full: now } satisfies TribeWindow) };
}

/** WordPress's own list of the site's events, venues or organizers (`tribe_events`...: any date, published), beside the events API's. */
function postsUrl(api: RestApi, type: string, page: number, modifiedAfter?: string): URL {
  const url = routeUrl(api, (route) => route.replace(/\/tribe\/events\/v1\/events$/, `/wp/v2/${type}`));
  url.searchParams.set("_fields", "id,modified");
  if (modifiedAfter !== undefined) url.searchParams.set("modified_after", modifiedAfter);
  url.searchParams.set("per_page", String(IDS_PER_PAGE));
  url.searchParams.set("page", String(page));
  return url;
}

/** The ids and modification dates of WordPress's list, every page of it. */
async function listedPosts(
  api: RestApi,
  type: string,
  budget: Pages,
  options: RestReadOptions,
  modifiedAfter?: string,
) {
  const listed = new Map<string, string>();
  for (let number = 1; ; number++) {
    const text = await budget.get(postsUrl(api, type, number, modifiedAfter));
    const page = await readRestIdsBounded({ text, maxEvents: options.maxEvents }, options.source, options.read);
    for (const { id, modified } of page.items) listed.set(id, modified);
    if (listed.size > options.maxEvents)
      throw new UnreadableFeed(`the source lists more than ${options.maxEvents} events (IMPORT_MAX_EVENTS)`);
    if (page.count < IDS_PER_PAGE) return listed;
  }
}

const TRIBE_LINKED = [
  ["venue", "tribe_venue", "venues"],
  ["organizer", "tribe_organizer", "organizers"],
] as const;

const IDS_PER_PAGE = 100;

/**
 * The Events Calendar's changes since `window`: every published event's id and modification date
 * from WordPress's list (`listed`); those modified since (at the same second too) read through the events
 * API with the URL's filters, in pages of 50 ids; gone, those imported that WordPress no longer
 * lists (deleted, trashed, unpublished) and those modified that the filtered list leaves out.
 */
async function readModified(
  api: RestApi,
  window: { modified: string; full: number },
  listed: Map<string, string>,
  budget: Pages,
  options: RestReadOptions,
): Promise<RestReading> {
  const modified = [...listed].filter(([, date]) => date >= window.modified).map(([id]) => id);
  const reading: RestReading = { events: [], complete: false, deleted: [], cursor: null, linked: [] };
  for (let at = 0; at < modified.length; at += PER_PAGE) {
    const ids = modified.slice(at, at + PER_PAGE);
    const page = await readPage(pageUrl(api, { include: ids.join(","), per_page: String(PER_PAGE) }), budget, options);
    reading.events.push(...page.events);
  }
  const read = new Set(reading.events.map((event) => event.uid));
  reading.deleted = [
    ...[...options.imported].filter((uid) => !listed.has(uid)),
    ...modified.filter((uid) => !read.has(uid) && options.imported.has(uid)),
  ];
  // The venues and organizers modified since (an event that shows one is not modified by it), each read on its own.
  const since = DateTime.fromSQL(window.modified, { zone: "UTC" })
    .minus({ seconds: 1 })
    .toFormat("yyyy-MM-dd'T'HH:mm:ss");
  const dates = [...listed.values()];
  for (const [kind, type, list] of TRIBE_LINKED) {
    const changed = await listedPosts(api, type, budget, options, since).catch((error: unknown) => {
      // Not in WordPress's list: its changes come with the daily full pass.
      if (clientError(error)) return new Map<string, string>();
      throw error;
    });
    dates.push(...changed.values());
    for (const id of changed.keys()) {
      const text = await budget.get(siblingList(api, `${list}/${id}`));
      const item = await readLinkedItemBounded({ text, maxEvents: 1 }, kind, options.source, options.read);
      if (item !== null) reading.linked.push({ kind, item });
    }
  }
  reading.cursor = JSON.stringify({ modified: latest(dates) ?? window.modified, full: window.full });
  return reading;
}

/**
 * Another route of the source's site, without the source's filters: `rewrite` makes it of the
 * events list's route, in its path or in its `rest_route` (WordPress without pretty permalinks).
 */
function routeUrl(api: RestApi, rewrite: (route: string) => string): URL {
  const url = new URL(api.events);
  url.search = "";
  const route = api.events.searchParams.get("rest_route");
  if (route !== null) url.searchParams.set("rest_route", rewrite(route));
  else url.pathname = rewrite(url.pathname);
  return url;
}

/** The URL in the language the source's URL asks for. */
function inLanguage(api: RestApi, url: URL): URL {
  const language = api.events.searchParams.get("i18n_language");
  if (language !== null) url.searchParams.set("i18n_language", language);
  return url;
}

/** The list's URL (or an event's: `tail`) without the source's filters, in the language it asks for. */
function bare(api: RestApi, tail: string): URL {
  return inLanguage(
    api,
    routeUrl(api, (route) => `${route}${tail}`),
  );
}

/**
 * Where a list of the source ends, unless its URL says: both APIs' lists end 24 months ahead by
 * default, and an event later than that (or moved there) would never arrive, or leave this site
 * as if it were gone there.
 */
const LIST_END = "2999-12-31 23:59:59";

function pageUrl(api: RestApi, parameters: Record<string, string>): URL {
  const url = new URL(api.events);
  if (!url.searchParams.has("end_date")) url.searchParams.set("end_date", LIST_END);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url;
}

/**
 * One page of a list, its items counted against the run's budget: every event, and every item
 * that is none (occurrences of a series aside, which the series' rule makes here); its problems
 * into the run's record, the dates of its series into the run's count.
 */
async function readPage(url: URL, pages: Pages, options: RestReadOptions) {
  const text = await pages.get(url);
  const { budget } = pages;
  const page = await readRestPageBounded(
    { text, maxEvents: options.maxEvents, maxProblems: budget.problemRoom },
    options.source,
    options.read,
  );
  budget.spendItems(page.events.length + page.problemCount);
  budget.failMany(page.problems, page.problemCount);
  budget.spendDates(datesOf(page.events));
  return page;
}

const datesOf = (events: FeedEvent[]) =>
  events.reduce(
    (sum, event) => sum + (event.recurrence ? event.recurrence.rdate.length + event.recurrence.exdate.length : 0),
    0,
  );

/** Every page of the list; the first one's `next_sync_token` is where the next run reads from. */
async function readList(api: RestApi, budget: Pages, options: RestReadOptions): Promise<RestReading> {
  const reading: RestReading = { events: [], complete: true, deleted: [], cursor: null, linked: [] };
  const wanted = new Set<string>();
  for (let number = 1; ; number++) {
    const page = await readPage(pageUrl(api, { per_page: String(PER_PAGE), page: String(number) }), budget, options);
    if (number === 1) {
      if (page.total !== null && page.total > options.maxEvents)
        throw new UnreadableFeed(
          `the source lists ${page.total} events, more than ${options.maxEvents} (IMPORT_MAX_EVENTS)`,
        );
      reading.cursor = page.nextSyncToken;
    }
    reading.events.push(...page.events);
    for (const id of page.seriesWanted) wanted.add(id);
    if (page.count === 0 || number >= (page.totalPages ?? 1)) break;
  }
  await addSeries(api, reading, wanted, budget, options);
  return reading;
}

/** The changes since `syncToken`, page after page (each answer's token reads on from its last change). */
async function readChanges(
  api: RestApi,
  tokens: CalendarCursor,
  budget: Pages,
  options: RestReadOptions,
): Promise<RestReading> {
  const reading: RestReading = { events: [], complete: false, deleted: [], cursor: null, linked: [] };
  const wanted = new Set<string>();
  let events = tokens.events;
  for (;;) {
    // The token holds the list's filters: only it, and the page's size and language, are sent.
    const url = bare(api, "");
    url.searchParams.set("sync_token", events);
    url.searchParams.set("per_page", String(PER_PAGE));
    const page = await readPage(url, budget, options);
    reading.events.push(...page.events);
    reading.deleted.push(...page.deleted);
    for (const id of page.seriesWanted) wanted.add(id);
    if (page.nextSyncToken === null)
      throw new UnreadableFeed("the source's answer to a sync token has no next_sync_token");
    events = page.nextSyncToken;
    if ((page.totalPages ?? 1) <= 1) break;
  }
  const next: CalendarCursor = { ...tokens, events };
  for (const [kind, list] of LINKED_LISTS) {
    for (let token = tokens[list]; token !== null;) {
      const url = siblingList(api, list);
      url.searchParams.set("sync_token", token);
      url.searchParams.set("per_page", String(PER_PAGE));
      const text = await budget.get(url);
      const page = await readLinkedItemsBounded({ text, maxEvents: PER_PAGE }, list, options.source, options.read);
      reading.linked.push(...page.items.map((item) => ({ kind, item })));
      next[list] = page.nextSyncToken;
      token = (page.totalPages ?? 1) > 1 ? page.nextSyncToken : null;
    }
  }
  reading.cursor = JSON.stringify(next);
  for (const uid of [...wanted]) if (options.imported.has(uid)) wanted.delete(uid);
  await addSeries(api, reading, wanted, budget, options);
  return reading;
}

/**
 * The series of listed occurrences that the reading lacks (a weekly class that began last month:
 * the list's window holds its later occurrences, not the series itself), each read on its own.
 */
async function addSeries(
  api: RestApi,
  reading: RestReading,
  wanted: Set<string>,
  budget: Pages,
  options: RestReadOptions,
): Promise<void> {
  for (const event of reading.events) if (event.recurrenceId === null) wanted.delete(event.uid);
  for (const id of wanted) {
    budget.budget.spendItems(1);
    const text = await budget.get(bare(api, `/${id}`));
    const series = await readRestEventBounded({ text, maxEvents: 1 }, options.source, options.read);
    if ("message" in series) budget.budget.fail(series);
    else {
      budget.budget.spendDates(datesOf([series]));
      reading.events.push(series);
    }
  }
}

/** Another site's REST API as a source (source-reader.ts): its changes since the last run where it can, else its list. */
export function restReader(api: RestApi): SourceReader {
  return {
    site: api.site,
    rest: true,
    itemsPerRequest: PER_PAGE,
    async read({ config, source, budget, imported }) {
      const options: RestReadOptions = {
        fetch: { allowPrivate: config.imports.allowPrivateSources },
        maxEvents: config.imports.maxEvents,
        read: { deadlineMs: config.imports.readDeadlineMs, memoryMb: config.imports.readMemoryMb },
        source: source.id,
        imported,
      };
      const reading = await readRestSource(api, source.cursor, budget, options);
      return {
        stillHidden: (uid) => stillHidden(api, new Pages(budget, options), options, uid),
        fetched: "fetched",
        events: reading.events,
        complete: reading.complete,
        deleted: new Set(reading.deleted),
        linked: reading.linked,
        // Some events failed: the next run reads the list in full, and tries them again.
        resume: (allTaken) => ({ cursor: allTaken ? reading.cursor : null }),
      };
    },
  };
}
