import type { Database } from "../../db/database";
import { inTransaction, type Tx } from "../../db/transaction";
import { lockItem } from "../post-kernel/post-repository";
import { formatWallClock, instantOfWallClock, zoneAbbreviation } from "../../dates/date-input";
import { invalidParam, InvalidParamsError } from "../../http/errors";
import type { EventRecord } from "./event-record";
import {
  deleteEvents,
  deleteLinksOf,
  detachedOccurrencesOf,
  eventTextRows,
  followSeriesColumns,
  insertEventTexts,
  insertLinkRows,
  insertOccurrences,
  keepTextLanguages,
  occurrencesOfSeries,
  readEvent,
  saveSeriesColumns,
  seriesShortOf,
  shareSeriesTexts,
  startsOf,
  takenEventSlugs,
  takeOwnTexts,
  textSharersBefore,
  type StoredEventText,
} from "./event-repository";
import {
  occurrencesOf,
  parseStoredRecurrence,
  type Occurrence,
  type Recurrence,
  type SeriesTimes,
} from "./event-recurrence";
import { floating, ruleParts, wallOf } from "../../dates/floating";
import { ExpansionTooCostly } from "./rule-expansion";
import { yieldToEventLoop } from "../../event-loop";
import { firstFreeSlugs } from "../../text/slug";

/**
 * The occurrences of a series as events (see event-recurrence.ts for the rule): made, kept in step
 * with the series, and cut when its rule changes, always in the series' write transaction, under
 * the series' row lock (an occurrence's own writes take it too). The rules, as Google Calendar's
 * "all events" / "this event":
 * - an edit of the series changes its occurrences still to come that were not edited on their
 *   own: their fields, texts and links become the series'; those the rule no longer gives (or gives
 *   at another time) are deleted, and those it newly gives are made;
 * - an occurrence edited on its own is detached: the series' edits and rule changes leave it as it
 *   is; one deleted on its own is detached and its start becomes an EXDATE of the series;
 * - past occurrences are history: an edit of the series does not touch them.
 */

const DAY_MS = 86_400_000;

/** How far ahead of `now` occurrences exist. */
export function horizonOf(now: Date, horizonDays: number): Date {
  return new Date(now.getTime() + horizonDays * DAY_MS);
}

/** Series extended per run of `extendSeries`: the rest wait for the next run. */
const EXTEND_BATCH = 50;

/**
 * Moves the horizon of the series whose occurrences end more than a day short of it: their
 * occurrences up to `now` + `horizonDays` are made (nothing else changes). Run hourly by each
 * instance (safe at once: each series under its lock). Answers the series extended, and those
 * whose rule gives too many occurrences over the longer stretch (left as they are).
 */
export async function extendSeries(
  db: Database,
  now: Date,
  horizonDays: number,
): Promise<{ extended: number; refused: number[] }> {
  const until = horizonOf(now, horizonDays);
  const due = await seriesShortOf(db, new Date(until.getTime() - DAY_MS), EXTEND_BATCH);
  const refused: number[] = [];
  for (const id of due) {
    try {
      await inTransaction(db, async (tx) => {
        await lockItem(db, tx, "Event", id);
        await syncSeries(db, tx, id, "extend", now, until);
      });
    } catch (error) {
      if (!(error instanceof InvalidParamsError)) throw error;
      refused.push(id);
    }
  }
  return { extended: due.length - refused.length, refused };
}

/** What a sync of a series is for: its first occurrences (`create`), a write of the series (`update`: the occurrences to come follow it), or a horizon that moved (`extend`: only new ones are made). */
export type SeriesSync = "create" | "update" | "extend";

/**
 * What a write of a series changed of what its occurrences take from it: its columns (those of
 * copiedColumns), its links. The occurrences to come hold what the series held before (each made
 * or brought in step with it since), so what did not change needs no writing.
 */
export interface SeriesChanges {
  columns: boolean;
  links: boolean;
}

const EVERYTHING_CHANGED: SeriesChanges = { columns: true, links: true };

/** The SeriesChanges of a write that changed `columns` of the series' row and `links` (by kind). */
export function seriesChangesOf(columns: object, links: object): SeriesChanges {
  return {
    columns: Object.keys(columns).some((name) => COPIED_COLUMN_NAMES.has(name)),
    links: Object.keys(links).length > 0,
  };
}

/** The columns an occurrence takes from its series. */
function copiedColumns(series: EventRecord) {
  return {
    authorId: series.authorId,
    status: series.status,
    passwordHash: series.passwordHash,
    sourceLanguage: series.sourceLanguage,
    postDate: series.postDate,
    timezone: series.timezone,
    allDay: series.allDay,
    cost: series.cost,
    website: series.website,
    image: series.image,
    showMap: series.showMap,
    showMapLink: series.showMapLink,
    hideFromListings: series.hideFromListings,
    sticky: series.sticky,
    featured: series.featured,
    ticketed: series.ticketed,
  };
}

/** The names of copiedColumns' columns (the function read on a record of nothing, once). */
const COPIED_COLUMN_NAMES = new Set(Object.keys(copiedColumns({} as EventRecord)));

/**
 * Walks a write's rule before the write's transaction opens (the sync inside it then finds the
 * walk done: see rule-expansion.ts), in `client`'s turn; a rule too costly to walk, or giving too
 * many occurrences, is refused here, before the write holds anything.
 */
export async function walkBeforeWrite(
  stored: string | null,
  series: SeriesTimes,
  now: Date,
  horizonDays: number,
  client: string,
): Promise<void> {
  const recurrence = parseStoredRecurrence(stored);
  if (recurrence === null) return;
  const { tooMany } = await expandedOccurrences(recurrence, series, horizonOf(now, horizonDays), client);
  if (tooMany) throw invalidParam("recurrence", "rest_too_many_occurrences");
}

/** The series' times once its first occurrence is the first one its exceptions leave (see withoutExcludedStart). */
export interface TrimmedSeries {
  recurrence: string;
  times: { startLocal: string; endLocal: string; startsAt: Date; endsAt: Date };
}

/**
 * A series whose own start is among its EXDATEs begins at its first occurrence left: RFC 5545's
 * EXDATE removes the instance of DTSTART as it removes any other, and the JSON must name the
 * instants the feed does (this service's feed writes the EXDATE, and calendars leave the date
 * out). COUNT loses the instances passed over (it counted them), and the exceptions before the new
 * start go. Null when the start is not excluded; `400` when every date is, or when the first date
 * left is an extra one (RDATE) rather than one of the rule's, which would change what the rule
 * gives from there.
 */
export async function withoutExcludedStart(
  stored: string | null,
  series: SeriesTimes,
  now: Date,
  horizonDays: number,
  client?: string,
): Promise<TrimmedSeries | null> {
  const recurrence = parseStoredRecurrence(stored);
  if (recurrence === null || !recurrence.exdate.includes(series.startLocal)) return null;
  const { occurrences, ruleStarts } = await expandedOccurrences(
    recurrence,
    series,
    horizonOf(now, horizonDays),
    client,
  );
  const first = occurrences[0];
  if (first === undefined || !ruleStarts.includes(first.startLocal))
    throw invalidParam("recurrence", "rest_invalid_recurrence");
  const parts = ruleParts(recurrence.rrule)!;
  const count = parts.get("COUNT");
  if (count !== undefined) {
    const passed = 1 + ruleStarts.filter((wall) => wall < first.startLocal).length;
    parts.set("COUNT", String(Number(count) - passed));
  }
  const { start: _given, ...rule } = recurrence;
  const trimmed: Recurrence = {
    ...rule,
    rrule: [...parts].map(([name, value]) => `${name}=${value}`).join(";"),
    rdate: recurrence.rdate.filter((wall) => wall > first.startLocal),
    exdate: recurrence.exdate.filter((wall) => wall > first.startLocal),
  };
  const { startLocal, endLocal, startsAt, endsAt } = first;
  return { recurrence: JSON.stringify(trimmed), times: { startLocal, endLocal, startsAt, endsAt } };
}

function expandedOccurrences(recurrence: Recurrence, series: SeriesTimes, until: Date, client?: string) {
  return occurrencesOf(recurrence, series, until, client).catch((error: unknown) => {
    throw error instanceof ExpansionTooCostly ? invalidParam("recurrence", "rest_recurrence_too_costly") : error;
  });
}

/**
 * Brings the occurrences of the series `seriesId` in step with it, up to `until`, as `mode` says;
 * `now` is where "to come" starts. A rule giving too many occurrences is a `400`.
 */
export async function syncSeries(
  db: Database,
  tx: Tx,
  seriesId: number,
  mode: SeriesSync,
  now: Date,
  until: Date,
  changes: SeriesChanges = EVERYTHING_CHANGED,
): Promise<void> {
  const series = (await readEvent(db.provider, tx, seriesId))!;
  const existing = await occurrencesOfSeries(tx, seriesId);
  // Occurrences deleted one by one stay EXDATEs, whatever rule a write of the series gives.
  const deleted = existing
    .filter((row) => row.detached && row.status === "trash")
    .map((row) => formatWallClock(row.recurrenceId!, series.timezone));
  let recurrence = parseStoredRecurrence(series.recurrence);
  if (recurrence !== null && deleted.some((wall) => !recurrence!.exdate.includes(wall))) {
    recurrence = deleted.reduce(withExdate, recurrence);
    await saveSeriesColumns(tx, seriesId, { recurrence: JSON.stringify(recurrence) });
  }
  // Past occurrences are history; a new series makes all its own.
  const from = mode === "create" ? new Date(-8.64e15) : now;
  const wanted: Occurrence[] = [];
  if (recurrence !== null) {
    const { occurrences, tooMany } = await expandedOccurrences(recurrence, series, until);
    if (tooMany) throw invalidParam("recurrence", "rest_too_many_occurrences");
    wanted.push(...occurrences.filter((occurrence) => occurrence.startsAt >= from));
  }
  const wantedById = new Map(wanted.map((occurrence) => [occurrence.recurrenceId.getTime(), occurrence]));
  const existingIds = new Set(existing.map((row) => row.recurrenceId!.getTime()));
  // Occurrences to come, not detached, that the rule no longer gives as they are.
  const outOfStep = existing.filter((row) => {
    if (row.detached || row.startsAt < from) return false;
    const occurrence = wantedById.get(row.recurrenceId!.getTime());
    return occurrence === undefined || occurrence.startLocal !== row.startLocal || occurrence.endLocal !== row.endLocal;
  });
  if (mode !== "extend" && outOfStep.length > 0) {
    await deleteEvents(
      tx,
      outOfStep.map((row) => row.id),
    );
    for (const row of outOfStep) existingIds.delete(row.recurrenceId!.getTime());
  }
  const outOfStepIds = new Set(outOfStep.map((row) => row.id));
  const kept = existing
    .filter((row) => !row.detached && row.startsAt >= from && !outOfStepIds.has(row.id))
    .map((row) => row.id);
  // A few hundred occurrences at a time (those made, fifty: each writes rows of its own), the
  // event loop free in between: a daily series is hundreds.
  const missing = wanted.filter((occurrence) => !existingIds.has(occurrence.recurrenceId.getTime()));
  const following = mode === "update" ? kept : [];
  const texts = following.length + missing.length > 0 ? await eventTextRows(tx, series.id) : [];
  for (const part of parts(following, OCCURRENCES_FOLLOWING_PER_WRITE))
    await followSeries(db, tx, { series, texts }, part, now, changes).then(yieldToEventLoop);
  for (const part of parts(missing, OCCURRENCES_PER_WRITE))
    await makeOccurrences(tx, { series, texts }, part, now).then(yieldToEventLoop);
  await saveSeriesColumns(tx, seriesId, { recurrenceUntil: recurrence === null ? null : until });
}

async function copyLinks(tx: Tx, series: EventRecord, ids: number[]): Promise<void> {
  const venues = ids.flatMap((eventId) =>
    series.venues.map(({ venue }, position) => ({ eventId, venueId: venue.id, position })),
  );
  const organizers = ids.flatMap((eventId) =>
    series.organizers.map(({ organizer }, position) => ({ eventId, organizerId: organizer.id, position })),
  );
  const terms = ids.flatMap((eventId) =>
    series.terms.map(({ term }, position) => ({ eventId, termId: term.id, position })),
  );
  await insertLinkRows(tx, { venues, organizers, terms });
}

const OCCURRENCES_PER_WRITE = 50;
const OCCURRENCES_FOLLOWING_PER_WRITE = 300;

function parts<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/**
 * Occurrences to come take the series' fields and links, and show its texts (they hold none but
 * their slugs, one for each language the series has): what an edit of the series' texts costs
 * does not grow with its occurrences, nor with its texts' length.
 */
async function followSeries(
  db: Database,
  tx: Tx,
  { series, texts }: { series: EventRecord; texts: StoredEventText[] },
  ids: number[],
  now: Date,
  changes: SeriesChanges,
): Promise<void> {
  // Their representations change with the series' texts: each counts a new version.
  await followSeriesColumns(tx, ids, { ...(changes.columns ? copiedColumns(series) : {}), modifiedAt: now });
  await shareSeriesTexts(db.provider, tx, series.id, ids);
  const present = await keepTextLanguages(
    tx,
    ids,
    texts.map((text) => text.language),
  );
  const has = new Set(present.map((row) => `${row.eventId}:${row.language}`));
  const lackingIds = ids.filter((id) => texts.some((text) => !has.has(`${id}:${text.language}`)));
  if (lackingIds.length > 0) await writeOccurrenceTexts(tx, texts, await startsOf(tx, lackingIds), has);
  if (!changes.links) return;
  await deleteLinksOf(tx, ids);
  await copyLinks(tx, series, ids);
}

/** Makes the `missing` occurrences of the series, showing its texts (each with its own slugs), with its links. */
async function makeOccurrences(
  tx: Tx,
  { series, texts }: { series: EventRecord; texts: StoredEventText[] },
  missing: Occurrence[],
  now: Date,
): Promise<void> {
  const columns = copiedColumns(series);
  const made = await insertOccurrences(
    tx,
    missing.map((occurrence) => ({
      ...columns,
      parentId: series.id,
      createdAt: now,
      modifiedAt: now,
      startLocal: occurrence.startLocal,
      endLocal: occurrence.endLocal,
      startsAt: occurrence.startsAt,
      endsAt: occurrence.endsAt,
      // The zone's abbreviation at the occurrence: EST in winter, EDT in summer.
      timezoneAbbr: zoneAbbreviation(series.timezone, occurrence.startsAt),
      recurrenceId: occurrence.recurrenceId,
      textOwnerId: series.id,
    })),
  );
  await writeOccurrenceTexts(tx, texts, made, new Set());
  await copyLinks(
    tx,
    series,
    made.map((row) => row.id),
  );
}

/**
 * The text rows of occurrences (those of `texts`' languages each lacks, per `has`), which hold
 * only a slug of their own where the series has one: the series' with the occurrence's date (and
 * time, when the series has two that day), numbered when another event has it already. The rest
 * of their texts are the series' (see followSeries).
 */
async function writeOccurrenceTexts(
  tx: Tx,
  texts: StoredEventText[],
  occurrences: Array<{ id: number; startLocal: string }>,
  has: Set<string>,
): Promise<void> {
  const days = new Map<string, number>();
  for (const occurrence of occurrences)
    days.set(occurrence.startLocal.slice(0, 10), (days.get(occurrence.startLocal.slice(0, 10)) ?? 0) + 1);
  const rows = [];
  for (const text of texts) {
    const wanted = occurrences
      .filter((occurrence) => !has.has(`${occurrence.id}:${text.language}`))
      .map((occurrence) => {
        const day = occurrence.startLocal.slice(0, 10);
        const when = days.get(day)! > 1 ? `${day}-${occurrence.startLocal.slice(11, 16).replace(":", "")}` : day;
        return { occurrence, base: `${text.slug}-${when}` };
      });
    // A language whose row has no slug of its own (the series' slug is another language's) has none either.
    const slugs =
      text.slug === null
        ? wanted.map(() => null)
        : await firstFreeSlugs(
            wanted.map((item) => item.base),
            (candidates) => takenEventSlugs(tx, text.language, candidates),
          );
    rows.push(
      ...wanted.map(({ occurrence }, index) => ({
        eventId: occurrence.id,
        language: text.language,
        slug: slugs[index],
        searchText: "",
        sortKey: "",
      })),
    );
  }
  await insertEventTexts(tx, rows);
}

/**
 * Before a write of the series `seriesId`: its occurrences past `now` that show its texts take a
 * copy of them, as they are, since an edit of the series leaves its past as it was.
 */
export async function keepPastTexts(db: Database, tx: Tx, seriesId: number, now: Date): Promise<void> {
  await takeOwnTexts(db.provider, tx, seriesId, await textSharersBefore(tx, seriesId, now));
}

/** Before an occurrence's own write (it leaves its series): it takes a copy of the texts it showed. */
export async function keepOwnTexts(db: Database, tx: Tx, occurrence: Pick<EventRecord, "id" | "textOwnerId">) {
  if (occurrence.textOwnerId !== null) await takeOwnTexts(db.provider, tx, occurrence.textOwnerId, [occurrence.id]);
}

/** How far the wall clock moves from `from` to `to`, in milliseconds (as if there were no time zones). */
export function wallShift(from: string, to: string): number {
  return floating(to).getTime() - floating(from).getTime();
}

function shiftedWall(wall: string, shift: number): string {
  return wallOf(new Date(floating(wall).getTime() + shift));
}

/**
 * When a series' start moves on the wall clock (19:00 to 19:15), its instances move with it, and
 * so do its exceptions: each detached occurrence's RECURRENCE-ID, and the EXDATEs (`exdate`,
 * unless the write gives its own). Answers the rule with its EXDATEs moved.
 */
export async function moveExceptions(
  tx: Tx,
  series: Pick<EventRecord, "id" | "timezone">,
  shift: number,
  recurrence: Recurrence | null,
  givenExdates: boolean,
): Promise<Recurrence | null> {
  const detached = await detachedOccurrencesOf(tx, series.id);
  for (const row of detached) {
    const moved = instantOfWallClock(
      shiftedWall(formatWallClock(row.recurrenceId!, series.timezone), shift),
      series.timezone,
    ).toJSDate();
    await saveSeriesColumns(tx, row.id, { recurrenceId: moved });
  }
  if (recurrence === null || givenExdates) return recurrence;
  return { ...recurrence, exdate: recurrence.exdate.map((wall) => shiftedWall(wall, shift)) };
}

/** The wall clock of an occurrence's RECURRENCE-ID in its zone: what an EXDATE of it says. */
export function exdateOf(occurrence: Pick<EventRecord, "recurrenceId" | "timezone">): string {
  return formatWallClock(occurrence.recurrenceId!, occurrence.timezone);
}

/** The series' rule with `wall` among its EXDATEs. */
export function withExdate(recurrence: Recurrence, wall: string): Recurrence {
  return { ...recurrence, exdate: [...new Set([...recurrence.exdate, wall])].sort() };
}
