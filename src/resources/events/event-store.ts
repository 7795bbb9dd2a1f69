import type { Database } from "../../db/database";
import { inTransaction, type Tx } from "../../db/transaction";
import { canEditItem } from "../../auth/post-permissions";
import { canReadItem } from "../../auth/visibility";
import { ApiError, invalidParam, ParamProblems } from "../../http/errors";
import type { Schemas, WriteTarget } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { noneIfEmpty } from "../../i18n/localized-rows";
import { markupFilterOf, type MarkupFilter } from "../../text/kses";
import { changedColumns } from "../post-kernel/item-columns";
import { lockItem, lockTarget } from "../post-kernel/post-repository";
import { nameForNewSlug, textRowsToWrite } from "../post-kernel/item-texts";
import { resolvePostFields, type PostWriteContext } from "../post-kernel/post-fields";
import { freeSlug, givenSlug, retryOnSlugClash, slugBase } from "../post-kernel/unique-slug";
import { flagOf } from "../post-kernel/write-flags";
import { storedCost } from "./event-cost";
import type { AlsoInTransaction, LinkedItemWriters } from "../../services";
import { checkItemLinks, checkTermLinks, linkChanges, linkIdsOf } from "./event-links";
import { resolveEventTimes, type EventTimes } from "./event-dates";
import { EVENT_TEXT, type EventRecord, type EventTextField } from "./event-record";
import {
  deleteEvents,
  insertEvent,
  type EventColumns,
  readEvent,
  removeOccurrencesOf,
  replaceLinks,
  resolveEvent,
  saveEvent,
  saveEventTexts,
  saveSeriesColumns,
  storedRecurrenceOf,
  takenEventSlugs,
  writeSearchDocuments,
} from "./event-repository";
import { parseStoredRecurrence, recurrenceOf, withGivenStart } from "./event-recurrence";
import { givesExdates, type SeriesStart } from "./recurrence-forms";
import { plainWallClock, zoneAbbreviation } from "../../dates/date-input";
import {
  exdateOf,
  horizonOf,
  keepOwnTexts,
  keepPastTexts,
  moveExceptions,
  seriesChangesOf,
  syncSeries,
  walkBeforeWrite,
  wallShift,
  withExdate,
  withoutExcludedStart,
} from "./event-series";

/** What a write body of an event may hold (the spec's fields; a create's has the required ones). */
export type EventWrite = Schemas["EventFields"];

/**
 * The id of the event a filter of another resource names (`event` of venues and organizers,
 * `post`/`event` of terms): an event the caller may read, and, when it is password-protected,
 * may edit (its list entry hides what it links to, so these filters do too); else `400` naming the
 * parameter, as for an unknown id.
 */
export async function eventFilterOf(db: Database, id: number, param: string, ctx: RequestContext): Promise<number> {
  const event = await resolveEvent(db, { id }, ctx);
  const shown =
    event !== null &&
    canReadItem(ctx.principal, "events", event) &&
    (event.passwordHash === null || (ctx.principal !== null && canEditItem(ctx.principal, "events", event)));
  if (!shown) throw invalidParam(param, "rest_event_not_found", "notFound");
  return id;
}

/** The columns of the event itself (shared by every language) that the input gives. */
function eventColumns(input: EventWrite, passwordHash: PasswordWrite): EventColumns {
  const data: EventColumns = {};
  if (passwordHash !== undefined) data.passwordHash = passwordHash;
  if (input.image !== undefined) data.image = noneIfEmpty(input.image);
  if (input.website !== undefined) data.website = noneIfEmpty(input.website);
  if (input.cost !== undefined) data.cost = storedCost(input.cost);
  const flags = {
    showMap: input.show_map,
    showMapLink: input.show_map_link,
    hideFromListings: input.hide_from_listings,
    sticky: input.sticky,
    featured: input.featured,
    ticketed: input.ticketed,
  };
  for (const [column, flag] of Object.entries(flags)) {
    if (flag !== undefined) data[column as keyof typeof flags] = flagOf(flag);
  }
  if (input.post_parent !== undefined) data.parentId = input.post_parent || null;
  return data;
}

/** The text a write gives, its markup filtered as the writer's role requires. */
function textChange(input: EventWrite, markup: MarkupFilter): Partial<Record<EventTextField, string | null>> {
  const change: Partial<Record<EventTextField, string | null>> = {};
  if (input.title !== undefined) change.title = markup.title(input.title).trim();
  if (input.description !== undefined)
    change.description = noneIfEmpty(input.description && markup.html(input.description));
  if (input.excerpt !== undefined) change.excerpt = noneIfEmpty(input.excerpt && markup.html(input.excerpt));
  return change;
}

/**
 * The text change of a write in the context's language, with its slug: the one given (made
 * unique), or, for a language that has no slug of its own yet, one made from the title.
 */
async function textChangeWithSlug(
  db: Database,
  tx: Tx,
  ctx: PostWriteContext,
  input: EventWrite,
  event: EventRecord | null,
  id: number,
) {
  const change = textChange(input, markupFilterOf(ctx.principal));
  const wanted = givenSlug(input.slug) ?? nameForNewSlug(EVENT_TEXT, event?.texts ?? [], ctx.language, change, id);
  if (wanted !== undefined) {
    change.slug = await freeSlug(db, tx, `event:${ctx.language}`, slugBase(wanted, "event"), (candidates) =>
      takenEventSlugs(tx, ctx.language, candidates, event?.id ?? null),
    );
  }
  return change;
}

/** Writes the text rows that change, and the search document when what search finds changes. */
async function writeTexts(
  db: Database,
  tx: Tx,
  eventId: number,
  sourceLanguage: string,
  current: EventRecord["texts"],
  ctx: PostWriteContext,
  change: Partial<Record<EventTextField, string | null>>,
): Promise<void> {
  const { rows, all, searchChanged } = textRowsToWrite(EVENT_TEXT, current, ctx.language, change, {
    defaultLanguage: ctx.defaultLanguage,
    sourceLanguage,
  });
  const stored = rows.map((row) => ({
    language: row.language,
    ...row.own,
    searchText: row.searchText,
    sortKey: row.sortKey,
  }));
  await saveEventTexts(tx, eventId, stored);
  if (searchChanged) await writeSearchDocuments(db.provider, tx, [{ eventId, texts: all }]);
}

/**
 * The stored password of a write (see auth/event-passwords.ts): undefined, unchanged; null,
 * removed. Hashed before the transaction opens: a password hash takes tens of milliseconds.
 */
export type PasswordWrite = string | null | undefined;

/** How far ahead a series' occurrences are made (see event-series.ts), in days. */
export interface SeriesHorizon {
  horizonDays: number;
}

/** The stored rule of a write's `recurrence`: undefined, unchanged; null, none; refused on an occurrence. */
function recurrenceWrite(
  input: EventWrite,
  current: EventRecord | null,
  times: SeriesStart | null,
  problems: ParamProblems,
): string | null | undefined {
  if (input.recurrence === undefined) return undefined;
  if (current !== null && current.recurrenceId !== null) {
    problems.add("recurrence", "rest_invalid_recurrence");
    return undefined;
  }
  // Dates that cannot be read are a problem of their own already.
  if (times === null) return undefined;
  const recurrence = recurrenceOf(input.recurrence, times, problems);
  return recurrence === "none" ? null : recurrence === null ? undefined : JSON.stringify(recurrence);
}

/**
 * The times and rule of a series whose own start is among its exceptions, begun at its first
 * occurrence left (withoutExcludedStart); as they are otherwise.
 */
async function trimmedToFirstLeft(
  rule: string | null,
  times: EventTimes,
  ctx: PostWriteContext,
  series: SeriesHorizon,
  client?: string,
): Promise<{ rule: string | null; times: EventTimes }> {
  const trimmed = await withoutExcludedStart(rule, times, ctx.now, series.horizonDays, client);
  if (trimmed === null) return { rule, times };
  const timezoneAbbr = zoneAbbreviation(times.timezone, trimmed.times.startsAt);
  return { rule: trimmed.recurrence, times: { ...times, ...trimmed.times, timezoneAbbr } };
}

/**
 * The rule a write leaves its event with, walked before the write's transaction opens (see
 * rule-expansion.ts); what the write gets wrong otherwise is reported by the write itself.
 */
async function walkRuleAhead(
  input: EventWrite,
  current: EventRecord | null,
  ctx: PostWriteContext,
  series: SeriesHorizon,
): Promise<void> {
  if (input.recurrence === undefined && (current?.recurrence ?? null) === null) return;
  const unreported = new ParamProblems();
  const times = resolveEventTimes(input, current, ctx.siteTimezone, ctx.now, unreported);
  if (times === null) return;
  const written = recurrenceWrite(input, current, times, unreported);
  const rule = written === undefined ? (current?.recurrence ?? null) : written;
  if (rule === null) return;
  const given =
    input.start_date !== undefined
      ? plainWallClock(input.start_date)
      : (parseStoredRecurrence(current?.recurrence ?? null)?.start ?? null);
  const client = `user:${ctx.principal.userId}`;
  const stored = withGivenStart(rule, given, times);
  await walkBeforeWrite(stored, times, ctx.now, series.horizonDays, client);
  const trimmed = await trimmedToFirstLeft(stored, times, ctx, series, client);
  if (trimmed.rule !== stored) await walkBeforeWrite(trimmed.rule, trimmed.times, ctx.now, series.horizonDays, client);
}

export async function createEvent(
  db: Database,
  ctx: PostWriteContext,
  input: Schemas["CreateEventRequest"],
  passwordHash: PasswordWrite,
  series: SeriesHorizon,
  linked: LinkedItemWriters,
  also?: AlsoInTransaction,
): Promise<EventRecord> {
  await walkRuleAhead(input, null, ctx, series);
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const problems = new ParamProblems();
      const links = linkChanges(await linkIdsOf(db, tx, ctx, input, problems, linked), null);
      const fields = await resolvePostFields(tx, input, ctx, problems);
      const given = resolveEventTimes(input, null, ctx.siteTimezone, ctx.now, problems);
      const rule = recurrenceWrite(input, null, given, problems);
      await checkItemLinks(db, tx, ctx, links, null, input.post_parent, problems);
      problems.throwIfAny();
      const { rule: recurrence, times } = rule
        ? await trimmedToFirstLeft(withGivenStart(rule, plainWallClock(input.start_date), given!), given!, ctx, series)
        : { rule, times: given! };
      const id = await insertEvent(tx, {
        ...eventColumns(input, passwordHash),
        ...fields,
        ...times,
        recurrence,
        sourceLanguage: ctx.language,
        createdAt: ctx.now,
        modifiedAt: ctx.now,
      });
      const change = await textChangeWithSlug(db, tx, ctx, input, null, id);
      await writeTexts(db, tx, id, ctx.language, [], ctx, change);
      await checkTermLinks(db, tx, links, null, problems);
      problems.throwIfAny();
      await replaceLinks(tx, id, links, { made: true });
      if (recurrence) await syncSeries(db, tx, id, "create", ctx.now, horizonOf(ctx.now, series.horizonDays));
      await also?.(tx, id);
      return (await readEvent(db.provider, tx, id))!;
    }),
  );
}

/**
 * An occurrence's writes take its series' lock first, as the series' own writes do, so that an
 * edit of the series and one of its occurrences go one after the other (see event-series.ts).
 */
async function lockSeriesOf(db: Database, tx: Tx, event: EventRecord): Promise<void> {
  if (event.recurrenceId !== null && event.parentId !== null) await lockItem(db, tx, "Event", event.parentId);
}

/**
 * Changes what the input gives, and only that, under the event's lock: concurrent updates of
 * different fields all take effect, one after the other. Only the columns and text rows whose
 * values change are written, so the day counts and the search index are rewritten only when
 * what they hold changes.
 */
export async function updateEvent(
  db: Database,
  ctx: PostWriteContext,
  target: WriteTarget<EventRecord>,
  input: EventWrite,
  passwordHash: PasswordWrite,
  series: SeriesHorizon,
  linked: LinkedItemWriters,
  also?: AlsoInTransaction,
): Promise<EventRecord> {
  const id = target.record.id;
  await walkRuleAhead(input, target.record, ctx, series);
  return retryOnSlugClash(() =>
    inTransaction(db, async (tx) => {
      const problems = new ParamProblems();
      const wantedLinks = await linkIdsOf(db, tx, ctx, input, problems, linked);
      await lockSeriesOf(db, tx, target.record);
      const current = await lockTarget(db, tx, "Event", target, () => readEvent(db.provider, tx, id));
      const fields = await resolvePostFields(tx, input, ctx, problems, current);
      const times = resolveEventTimes(input, current, ctx.siteTimezone, ctx.now, problems);
      let recurrence = recurrenceWrite(input, current, times, problems);
      const links = linkChanges(wantedLinks, current);
      await checkItemLinks(db, tx, ctx, links, current, input.post_parent, problems);
      problems.throwIfAny();
      // A series whose start moves on the wall clock takes its exceptions along.
      const shift = current.recurrence !== null ? wallShift(current.startLocal, times!.startLocal) : 0;
      if (shift !== 0) {
        const rule =
          recurrence === undefined ? parseStoredRecurrence(current.recurrence) : parseStoredRecurrence(recurrence);
        const moved = await moveExceptions(tx, current, shift, rule, givesExdates(input.recurrence));
        recurrence = moved === null ? recurrence : JSON.stringify(moved);
      }
      // A series' rule keeps the start it was given when a DST change skips it.
      const rule = recurrence === undefined ? current.recurrence : recurrence;
      if (rule !== null && (input.start_date !== undefined || recurrence !== undefined)) {
        const given =
          input.start_date !== undefined
            ? plainWallClock(input.start_date)
            : (parseStoredRecurrence(current.recurrence)?.start ?? null);
        recurrence = withGivenStart(rule, given, times!);
      }
      const left = rule === null ? null : await trimmedToFirstLeft(recurrence ?? rule, times!, ctx, series);
      if (left !== null && left.rule !== (recurrence ?? rule)) recurrence = left.rule;
      // An occurrence edited on its own leaves its series' edits behind.
      const detached = current.recurrenceId !== null ? { detached: true } : {};
      const columns = changedColumns(current, {
        ...eventColumns(input, passwordHash),
        ...fields,
        ...(left?.times ?? times!),
        ...(recurrence !== undefined ? { recurrence } : {}),
        ...detached,
      });
      await keepOwnTexts(db, tx, current);
      if (current.recurrence !== null) await keepPastTexts(db, tx, id, ctx.now);
      await saveEvent(tx, id, { ...columns, modifiedAt: ctx.now });
      await writeTexts(
        db,
        tx,
        id,
        current.sourceLanguage,
        current.texts,
        ctx,
        await textChangeWithSlug(db, tx, ctx, input, current, id),
      );
      await checkTermLinks(db, tx, links, current, problems);
      problems.throwIfAny();
      await replaceLinks(tx, id, links);
      if (current.recurrence !== null || recurrence)
        await syncSeries(
          db,
          tx,
          id,
          "update",
          ctx.now,
          horizonOf(ctx.now, series.horizonDays),
          seriesChangesOf(columns, links),
        );
      await also?.(tx, id);
      return (await readEvent(db.provider, tx, id))!;
    }),
  );
}

/**
 * Moves the event to the trash; one already there is `410`, or, when `destroys`, is deleted for
 * good. Answers with the event as it is now, or as it was when deleted (`deleted`).
 */
export function removeEvent(
  db: Database,
  now: Date,
  target: WriteTarget<EventRecord>,
  destroys: boolean,
  also?: AlsoInTransaction,
): Promise<{ event: EventRecord; deleted: boolean }> {
  const id = target.record.id;
  return inTransaction(db, async (tx) => {
    await lockSeriesOf(db, tx, target.record);
    const current = await lockTarget(db, tx, "Event", target, () => readEvent(db.provider, tx, id));
    if (current.status === "trash") {
      if (!destroys) throw new ApiError("event-is-in-trash");
      // A series goes with its occurrences.
      if (current.recurrence !== null) await removeOccurrencesOf(tx, id, true, now);
      await deleteEvents(tx, [id]);
      return { event: current, deleted: true };
    }
    if (current.recurrence !== null) await removeOccurrencesOf(tx, id, false, now);
    if (current.recurrenceId !== null && current.parentId !== null)
      await excludeFromSeries(tx, current, current.parentId);
    await keepOwnTexts(db, tx, current);
    await saveEvent(tx, id, {
      status: "trash",
      modifiedAt: now,
      ...(current.recurrenceId !== null ? { detached: true } : {}),
    });
    await also?.(tx, id);
    return { event: (await readEvent(db.provider, tx, id))!, deleted: false };
  });
}

/** An occurrence deleted on its own becomes an EXDATE of its series (and stays one: see syncSeries). */
async function excludeFromSeries(tx: Tx, occurrence: EventRecord, seriesId: number): Promise<void> {
  const recurrence = parseStoredRecurrence(await storedRecurrenceOf(tx, seriesId));
  if (recurrence === null) return;
  await saveSeriesColumns(tx, seriesId, { recurrence: JSON.stringify(withExdate(recurrence, exdateOf(occurrence))) });
}
