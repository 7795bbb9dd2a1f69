import type { ImportSource } from "../../../generated/prisma/sqlite/client";
import { DateTime } from "luxon";
import { can, isRole } from "../../auth/roles";
import type { Principal } from "../../auth/principal";
import type { Config } from "../../config";
import type { Database } from "../../db/database";
import type { Tx } from "../../db/transaction";
import { yieldToEventLoop } from "../../event-loop";
import { ApiError, InvalidParamsError } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import type { Logger } from "../../logging/logger";
import type { ImportedEventWriters, ImportedLinkedItemWriters } from "../../services";
import { LinkedItems } from "./linked-items";
import type { PostWriteContext } from "../post-kernel/post-fields";
import { eventStatuses, lastEndOf, occurrenceIdAt, readCommittedEvent } from "../events/event-repository";
import { organizerIdByEmail } from "../organizers/organizer-repository";
import { existingTermIds } from "../terms/term-repository";
import { fetchFeed, FeedFetchError, type FetchOptions } from "./feed-fetch";
import type { FeedEvent, FeedProblem } from "./feed-event";
import { UnreadableFeed } from "./ical-reader";
import { readFeedBounded } from "./feed-reading";
import { digestOf, eventWriteOf, type SourceDefaults } from "./import-mapping";
import { takenByWindow, type ImportWindow } from "./import-window";
import { importedFieldsOf, withoutFieldsEditedHere } from "./imported-fields";
import { readRestSource, restApiOf, type RestApi, type RestReading } from "./rest-source";
import { globalIdSiteOf } from "../post-kernel/post-serializer";
import {
  deleteImportedRow,
  eventImportedAs,
  finishRun,
  importedRows,
  insertRun,
  ownerOf,
  saveImportedFields,
  saveImportedRow,
  saveLineage,
  writeImportRows,
  type ImportedRow,
} from "./import-repository";

/**
 * One run of a source: fetch its feed, read it, and keep its events in step. Each VEVENT is keyed
 * by the source, its UID and its RECURRENCE-ID; a VEVENT whose write is what was last imported
 * (the same digest) is not written at all, so an unchanged feed changes nothing: no `modified`
 * date, no sync position, no webhook. A changed one is written as the feed says (the fields the
 * feed gives; those it does not, such as `featured` or an image set here, stay). One that left
 * the feed is moved to the trash (or kept, as the source says); an override that left it gives
 * its occurrence back to its series. An event trashed or deleted here is left alone. Each write
 * records what it imported in its own transaction, so that a run that stops halfway is taken up
 * by the next without making an event twice.
 *
 * A REST source (rest-source.ts) is read the same way, an item of its list for a VEVENT (keyed by
 * its id there); its reading may be its changes only, and then only the items it says are gone
 * leave it. Its events keep their lineage, and one another source already brought (by its origin)
 * is linked, not made again; its venues and organizers are items too (linked-items.ts).
 */

/** The digest of a VEVENT whose event the run trashed because it left the feed. */
const REMOVED = "removed";
/** The most problems a run records (the counts go on). */
const MAX_ERRORS = 100;
/** How long a run may hold its source beyond the fetch's time limit (reading and writing the feed). */
export const RUN_LEASE_MARGIN_MS = 15 * 60_000;

const FREQUENCY_MS: Record<string, number | null> = {
  manual: null,
  every30mins: 1_800_000,
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
  monthly: 30 * 86_400_000,
};
/** The wait after a first failure; it doubles with each failure in a row, up to the source's frequency. */
const FIRST_BACKOFF_MS = 5 * 60_000;

export interface RunDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  events: ImportedEventWriters;
  linked: ImportedLinkedItemWriters;
}

/** What a run did, as it counts it. */
export class RunTally {
  created = 0;
  updated = 0;
  unchanged = 0;
  removed = 0;
  failed = 0;
  readonly errors: FeedProblem[] = [];

  fail(problem: FeedProblem): void {
    this.failed += 1;
    if (this.errors.length < MAX_ERRORS) this.errors.push(problem);
  }
}

class RunFailure extends Error {}

const keyOf = (uid: string, recurrenceId: string | null) => JSON.stringify([uid, recurrenceId ?? ""]);

/** When a source is next due after a run that went well (null: only when asked). */
export function nextRunAfterSuccess(frequency: string, now: number): number | null {
  const every = FREQUENCY_MS[frequency] ?? null;
  return every === null ? null : now + every;
}

/** When a source is next due after `failures` failures in a row. */
function nextRunAfterFailure(frequency: string, failures: number, now: number): number | null {
  const every = FREQUENCY_MS[frequency] ?? null;
  if (every === null) return null;
  return now + Math.min(every, FIRST_BACKOFF_MS * 2 ** Math.min(failures - 1, 20));
}

/** What a refused write says, in English (the run's log is the administrators'). */
function messageOf(error: unknown): string {
  if (error instanceof InvalidParamsError)
    return Object.entries(error.problems)
      .map(
        ([param, { detail, detailCode }]) =>
          `${param}: ${typeof detail === "string" ? detail : detail.en} (${detailCode})`,
      )
      .join("; ");
  if (error instanceof ApiError) return error.localizedMessage("en");
  return (error as Error).message;
}

/** The writer of a source's events: its owner, who must still manage imports. */
async function principalOf(db: Database, source: ImportSource): Promise<Principal> {
  const owner = await ownerOf(db, source.ownerId);
  if (owner === null || !isRole(owner.role) || !can(owner.role, "manage_imports"))
    throw new RunFailure(`its owner (user ${source.ownerId}) is gone or may no longer manage imports`);
  return { userId: source.ownerId, login: owner.login, role: owner.role };
}

/** How a run ended. */
export type RunStatus = "succeeded" | "failed";

/**
 * Opens a run of a claimed source: its id at once, and the run, which goes on to its end, is
 * recorded, and tells how it ended (it never rejects for the feed's sake).
 */
export async function startRun(
  deps: RunDependencies,
  source: ImportSource,
  trigger: "manual" | "scheduled",
): Promise<{ runId: number; finished: Promise<RunStatus> }> {
  const runId = await insertRun(deps.db, source.id, trigger, Date.now());
  const finished = runSource(deps, source, { id: runId, sourceId: source.id }).catch((err: unknown): RunStatus => {
    deps.logger.error({ err, source: source.id }, "recording an import run failed");
    return "failed";
  });
  return { runId, finished };
}

/** Runs a claimed source to the end and records how it went. */
async function runSource(
  deps: RunDependencies,
  source: ImportSource,
  run: { id: number; sourceId: number },
): Promise<RunStatus> {
  const { db, config } = deps;
  const tally = new RunTally();
  let fetched: "fetched" | "not_modified" | null = null;
  try {
    const principal = await principalOf(db, source);
    const api = restApiOf(source.url);
    const kept = api
      ? await runRestSource(deps, source, api, principal, tally)
      : await runFeed(deps, source, principal, tally);
    fetched = kept.fetched;
    const now = Date.now();
    await finishRun(
      db,
      run,
      { status: "succeeded", fetch: fetched, finishedAt: now, ...countsOf(tally) },
      {
        ...kept.resume,
        consecutiveFailures: 0,
        // A paused source run by hand stays paused, for the reason it was.
        ...(source.active ? { pausedReason: null } : {}),
        nextRunAt: source.active ? nextRunAfterSuccess(source.frequency, now) : null,
        leaseUntil: null,
      },
    );
    return "succeeded";
  } catch (error) {
    const known = error instanceof RunFailure || error instanceof FeedFetchError || error instanceof UnreadableFeed;
    if (!known) deps.logger.error({ err: error, source: source.id }, "an import run failed");
    const now = Date.now();
    const failures = source.consecutiveFailures + 1;
    const paused = failures >= config.imports.maxFailures;
    await finishRun(
      db,
      run,
      {
        status: "failed",
        fetch: fetched,
        finishedAt: now,
        ...countsOf(tally),
        error: (known ? (error as Error).message : "the run failed (see the service's log)").slice(0, 1000),
      },
      {
        consecutiveFailures: failures,
        leaseUntil: null,
        ...(paused
          ? { active: false, pausedReason: "failing", nextRunAt: null }
          : { nextRunAt: source.active ? nextRunAfterFailure(source.frequency, failures, now) : null }),
      },
    );
    if (paused) deps.logger.warn({ source: source.id, failures }, "import source failed too often in a row: paused");
    return "failed";
  }
}

/** How a run read its source, and where the next one takes up from (validators, a sync token). */
interface SourceRead {
  fetched: "fetched" | "not_modified";
  resume: { etag?: string | null; lastModified?: string | null; cursor?: string | null };
}

function fetchOptionsOf(config: Config): FetchOptions {
  return {
    timeoutMs: config.imports.timeoutMs,
    maxBytes: config.imports.maxBytes,
    allowPrivate: config.imports.allowPrivateSources,
  };
}

const readLimitsOf = (config: Config) => ({
  deadlineMs: config.imports.readDeadlineMs,
  memoryMb: config.imports.readMemoryMb,
});

/** Reads an iCalendar feed (conditionally: the last one's validators sent back) and keeps its events in step. */
async function runFeed(
  deps: RunDependencies,
  source: ImportSource,
  principal: Principal,
  tally: RunTally,
): Promise<SourceRead> {
  const { db, config } = deps;
  const answer = await fetchFeed(
    source.url,
    { etag: source.etag, lastModified: source.lastModified },
    fetchOptionsOf(config),
  );
  if (answer.notModified) return { fetched: "not_modified", resume: {} };
  const reading = await readFeedBounded(
    { text: answer.text, siteZone: config.siteTimezone, maxEvents: config.imports.maxEvents },
    source.id,
    readLimitsOf(config),
  );
  for (const problem of reading.problems) tally.fail(problem);
  await keepInStep(deps, source, principal, await importedRows(db, source.id), reading.events, tally, FULL_PASS);
  // A feed some of whose events failed is read again in full next time: they are tried again.
  return {
    fetched: "fetched",
    resume:
      tally.failed === 0
        ? { etag: answer.etag, lastModified: answer.lastModified }
        : { etag: null, lastModified: null },
  };
}

/** Reads another site's REST API (rest-source.ts): its changes since the last run where it can, else its list. */
async function runRestSource(
  deps: RunDependencies,
  source: ImportSource,
  api: RestApi,
  principal: Principal,
  tally: RunTally,
): Promise<SourceRead> {
  const { db, config } = deps;
  const rows = await importedRows(db, source.id);
  const imported = new Set(
    rows.filter((row) => row.recurrenceId === "" && row.digest !== REMOVED).map((row) => row.uid),
  );
  const reading = await readRestSource(api, source.cursor, {
    fetch: fetchOptionsOf(config),
    maxEvents: config.imports.maxEvents,
    read: readLimitsOf(config),
    source: source.id,
    imported,
  });
  for (const problem of reading.problems) tally.fail(problem);
  const pass: Pass = {
    complete: reading.complete,
    deleted: new Set(reading.deleted),
    rest: true,
    linked: reading.linked,
  };
  await keepInStep(deps, source, principal, rows, reading.events, tally, pass);
  // Some events failed: the next run reads the list in full, and tries them again.
  return { fetched: "fetched", resume: { cursor: tally.failed === 0 ? reading.cursor : null } };
}

function countsOf(tally: RunTally) {
  const { created, updated, unchanged, removed, failed } = tally;
  return { created, updated, unchanged, removed, failed, errors: JSON.stringify(tally.errors) };
}

/**
 * What a run read: every event of the source (`complete`: those it did not give left it), or the
 * changes since the last run (then only those in `deleted` left it). A REST source's events that
 * are over when they leave its list ended, and stay.
 */
interface Pass {
  complete: boolean;
  deleted: Set<string>;
  rest: boolean;
  /** Of a REST source's changes: its venues and organizers changed there. */
  linked: RestReading["linked"];
}

const FULL_PASS: Pass = { complete: true, deleted: new Set(), rest: false, linked: [] };

/** What a run knows as it keeps a source's events in step. */
interface Step {
  deps: RunDependencies;
  source: ImportSource;
  ctx: PostWriteContext;
  defaults: SourceDefaults;
  previous: Map<string, ImportedRow>;
  statuses: Map<number, string>;
  tally: RunTally;
  pass: Pass;
  /** The site part of this site's global ids (`host/path`), when SITE_URL says it: an item made here does not come back. */
  ownSite: string | null;
  /** Of a REST source: the venues and organizers its events show, as items (linked-items.ts). */
  linkedItems: LinkedItems | null;
}

/** Writes the events of a feed's VEVENTs that changed, and deals with those that left it. */
async function keepInStep(
  deps: RunDependencies,
  source: ImportSource,
  principal: Principal,
  rows: ImportedRow[],
  events: FeedEvent[],
  tally: RunTally,
  pass: Pass,
): Promise<void> {
  const { db, config } = deps;
  const step: Step = {
    deps,
    source,
    ctx: {
      principal,
      type: "events",
      siteTimezone: config.siteTimezone,
      now: new Date(),
      language: source.language as Language,
      defaultLanguage: config.defaultLanguage,
    },
    defaults: {
      postStatus: source.postStatus === "draft" ? "draft" : "publish",
      categoryIds: await existingTermIds(db, "category", JSON.parse(source.categories) as number[]),
      tagIds: await existingTermIds(db, "tag", JSON.parse(source.tags) as number[]),
    },
    previous: new Map(rows.map((row) => [keyOf(row.uid, row.recurrenceId), row])),
    statuses: await eventStatuses(
      db,
      rows.flatMap((row) => (row.eventId === null ? [] : [row.eventId])),
    ),
    tally,
    pass,
    ownSite: config.siteUrl === null ? null : globalIdSiteOf(config.siteUrl),
    linkedItems: null,
  };
  if (pass.rest) {
    const linkedItems = new LinkedItems(db, deps.linked, step.ctx, config.imports.maxEvents);
    step.linkedItems = linkedItems;
    for (const { kind, item } of pass.linked) {
      try {
        await linkedItems.changed(kind, item);
      } catch (error) {
        if (!(error instanceof ApiError || error instanceof InvalidParamsError)) throw error;
        tally.fail({ uid: null, recurrence_id: null, message: `${kind} ${item.lineage[0]}: ${messageOf(error)}` });
      }
    }
  }
  const { masters, overrides, cancelledOverrides } = arrange(withoutOwnItems(step, events), tally);
  const seen = new Set([...masters.keys(), ...overrides.keys(), ...cancelledOverrides]);
  // Outside the source's window: neither written nor removed (import-window.ts).
  const ownEvents = [...masters.values(), ...[...overrides.values()].filter((event) => event.firstOfSeries)];
  const window = source.window === null ? null : (JSON.parse(source.window) as ImportWindow);
  const taken = takenByWindow(window, ownEvents, step.ctx.now);
  for (const event of masters.values()) {
    if (!taken.has(event)) continue;
    await writeVevent(step, event, null);
    await yieldToEventLoop();
  }
  for (const event of overrides.values()) {
    // An override of a series' first occurrence is an event of its own (first-occurrences.ts).
    if (event.firstOfSeries) {
      if (taken.has(event)) await writeVevent(step, event, null);
      continue;
    }
    const master = masters.get(keyOf(event.uid, null));
    if (master !== undefined && !taken.has(master)) continue;
    // Of a pass through the changes, the series may be unchanged: the one an earlier run made.
    const seriesId = master || !pass.complete ? step.previous.get(keyOf(event.uid, null))?.eventId : null;
    // A series trashed here: its occurrences are left alone too.
    if (seriesId && step.statuses.get(seriesId) === "trash") {
      tally.unchanged += 1;
      continue;
    }
    if ((master && !master.recurrence) || !seriesId) {
      tally.fail({
        uid: event.uid,
        recurrence_id: event.recurrenceId,
        message: "an override of an occurrence whose recurring event is not in the feed",
      });
      continue;
    }
    await writeVevent(step, event, { seriesId, zone: (master ?? event).timezone });
    await yieldToEventLoop();
  }
  for (const [key, row] of step.previous) {
    if (seen.has(key) || row.digest === REMOVED) continue;
    if (pass.rest && deletedOccurrence(row, masters)) {
      await removeOccurrence(step, row);
      await yieldToEventLoop();
      continue;
    }
    if (!pass.complete && !pass.deleted.has(row.uid)) continue;
    await removeVevent(step, row, masters);
    await yieldToEventLoop();
  }
}

/**
 * Of a REST source: an occurrence edited on its own there, then deleted there (its series now
 * excludes its date, as a deletion of one occurrence does), rather than given back to its series.
 */
function deletedOccurrence(row: ImportedRow, masters: Map<string, FeedEvent>): boolean {
  if (row.recurrenceId === "" || row.eventId === null) return false;
  return masters.get(keyOf(row.uid, null))?.recurrence?.exdate.includes(row.recurrenceId) ?? false;
}

/** Deletes an occurrence as a deletion of one occurrence here does (to the trash, its date excluded), and forgets it. */
async function removeOccurrence(step: Step, row: ImportedRow): Promise<void> {
  const forget = (tx: Tx) => deleteImportedRow(tx, step.source.id, row);
  try {
    await step.deps.events.trash(step.deps.db, step.ctx.now, row.eventId!, forget);
    step.tally.removed += 1;
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof InvalidParamsError)) throw error;
    step.tally.fail({ uid: row.uid, recurrence_id: row.recurrenceId, message: messageOf(error) });
  }
}

/**
 * The feed's VEVENTs by key: the events and series, the overrides of occurrences, and the
 * cancelled overrides, which become EXDATEs of their series. A key given twice is a problem.
 */
function arrange(events: FeedEvent[], tally: RunTally) {
  const masters = new Map<string, FeedEvent>();
  const overrides = new Map<string, FeedEvent>();
  const cancelledOverrides = new Set<string>();
  for (const event of events) {
    const key = keyOf(event.uid, event.recurrenceId);
    if (masters.has(key) || overrides.has(key) || cancelledOverrides.has(key)) {
      tally.fail({ uid: event.uid, recurrence_id: event.recurrenceId, message: "a second VEVENT with this UID" });
      continue;
    }
    if (event.recurrenceId === null) masters.set(key, event);
    else if (event.cancelled) cancelledOverrides.add(key);
    else overrides.set(key, event);
  }
  // Each series' cancelled occurrences gathered first, then its EXDATEs made once (per override, it was quadratic).
  const cancelledOf = new Map<string, string[]>();
  for (const key of cancelledOverrides) {
    const [uid, recurrenceId] = JSON.parse(key) as [string, string];
    const masterKey = keyOf(uid, null);
    const list = cancelledOf.get(masterKey);
    if (list) list.push(recurrenceId);
    else cancelledOf.set(masterKey, [recurrenceId]);
  }
  for (const [masterKey, cancelled] of cancelledOf) {
    const recurrence = masters.get(masterKey)?.recurrence;
    if (recurrence) recurrence.exdate = [...new Set([...recurrence.exdate, ...cancelled])].sort();
  }
  return { masters, overrides, cancelledOverrides };
}

/** The write of a VEVENT as it is made: its ORGANIZER the organizer with its e-mail address, when there is one. */
async function withMatchedOrganizer(
  db: Database,
  event: FeedEvent,
  write: Schemas["CreateEventRequest"],
): Promise<Schemas["CreateEventRequest"]> {
  const email = event.organizer?.email ?? null;
  const matched = email === null ? null : await organizerIdByEmail(db, email);
  return matched === null ? write : { ...write, organizer: [matched] };
}

/** Records a VEVENT as imported, in the transaction of its write (a REST source's new event, with its lineage). */
function recording(step: Step, row: ImportedRow, lineage: string[] | null) {
  return async (tx: Tx, eventId: number) => {
    await saveImportedRow(tx, step.source.id, { ...row, eventId });
    if (lineage) await saveLineage(tx, "Event", eventId, lineage);
  };
}

/** The site part of a global id (`host/path` of `host/path?id=…`). */
const siteOfGlobalId = (id: string) => id.split("?")[0];

/**
 * A REST source's events but those first made here (they come back through another site that
 * imported them), with their series' occurrences.
 */
function withoutOwnItems(step: Step, events: FeedEvent[]): FeedEvent[] {
  const own = step.ownSite;
  if (own === null || !step.pass.rest) return events;
  const ownSeries = new Set(
    events
      .filter((event) => event.recurrenceId === null && event.rest?.lineage.some((id) => siteOfGlobalId(id) === own))
      .map((event) => event.uid),
  );
  if (ownSeries.size > 0) step.tally.unchanged += ownSeries.size;
  return events.filter((event) => !ownSeries.has(event.uid));
}

/**
 * Of a REST source's event not imported by this source yet: the row linking it to the event
 * another source made of the same item (it reached this site by two paths: its origin, and a
 * site that imported it), or undefined.
 */
async function arrivalOf(step: Step, event: FeedEvent): Promise<ImportedRow | undefined> {
  const lineage = event.rest?.lineage;
  if (!lineage || lineage.length === 0) return undefined;
  const origin = lineage[lineage.length - 1];
  const eventId = await eventImportedAs(step.deps.db, origin);
  if (eventId === null) return undefined;
  const row = { uid: event.uid, recurrenceId: event.recurrenceId ?? "", eventId, digest: "", origin };
  await writeImportRows(step.deps.db, (tx) => saveImportedRow(tx, step.source.id, row));
  for (const [id, status] of await eventStatuses(step.deps.db, [eventId])) step.statuses.set(id, status);
  step.previous.set(keyOf(event.uid, event.recurrenceId), row);
  return row;
}

/** Creates, updates or leaves the event of one VEVENT (of an occurrence's override: `series`). */
async function writeVevent(
  step: Step,
  event: FeedEvent,
  series: { seriesId: number; zone: string } | null,
): Promise<void> {
  const { db, config, events } = step.deps;
  const { tally } = step;
  const recurrenceId = event.recurrenceId ?? "";
  let before = step.previous.get(keyOf(event.uid, event.recurrenceId));
  const horizon = config.recurrenceHorizonDays;
  const lineage = event.rest?.lineage ?? null;
  const origin = lineage && lineage.length > 0 ? lineage[lineage.length - 1] : null;
  try {
    // What the feed says, before its organizer is matched here (the match may differ once the first
    // run made it); a REST source's venue and organizers, as the items they are here.
    const said = eventWriteOf(event, step.defaults);
    const feedWrite = event.rest && step.linkedItems ? await step.linkedItems.linkedIn(event.rest, said) : said;
    const digest = digestOf(feedWrite, step.ctx.language);
    if (before === undefined && series === null) {
      before = await arrivalOf(step, event);
    }
    if (before && before.digest === digest) {
      tally.unchanged += 1;
      return;
    }
    const write = await withMatchedOrganizer(db, event, feedWrite);
    // Deleted here, or moved to the trash here: left alone.
    const status = before?.eventId ? step.statuses.get(before.eventId) : undefined;
    if (
      before &&
      (before.eventId === null || status === undefined || (status === "trash" && before.digest !== REMOVED))
    ) {
      tally.unchanged += 1;
      return;
    }
    const record = recording(step, { uid: event.uid, recurrenceId, eventId: null, digest, origin }, null);
    const row = { uid: event.uid, recurrenceId };
    if (before?.eventId) {
      // Brought back from the trash the import moved it to: as the feed says, whatever the authority.
      const authority = before.digest === REMOVED ? "overwrite" : step.source.updateAuthority;
      if (authority === "retain") {
        tally.unchanged += 1;
        return;
      }
      const current =
        authority === "preserve_changes" && before.fields ? await readCommittedEvent(db, before.eventId) : null;
      const kept = current ? withoutFieldsEditedHere(write, before.fields!, current, step.ctx.language) : write;
      const written = await events.update(db, step.ctx, before.eventId, kept, horizon, record);
      if (written) tally.updated += 1;
      else tally.unchanged += 1;
      if (written) await rememberFields(step, row, before.eventId);
      return;
    }
    if (series === null) {
      const id = await events.create(
        db,
        step.ctx,
        write,
        horizon,
        recording(step, { uid: event.uid, recurrenceId, eventId: null, digest, origin }, lineage),
      );
      step.previous.set(keyOf(event.uid, event.recurrenceId), { uid: event.uid, recurrenceId, eventId: id, digest });
      tally.created += 1;
      await rememberFields(step, row, id);
      return;
    }
    const instant = DateTime.fromSQL(recurrenceId, { zone: series.zone }).toJSDate();
    const occurrence = await occurrenceIdAt(db, series.seriesId, instant);
    if (occurrence === null) {
      tally.fail({
        uid: event.uid,
        recurrence_id: recurrenceId,
        message: "its series has no occurrence at this RECURRENCE-ID (yet)",
      });
      return;
    }
    await events.update(db, step.ctx, occurrence, write, horizon, record);
    tally.updated += 1;
    await rememberFields(step, row, occurrence);
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof InvalidParamsError)) throw error;
    tally.fail({ uid: event.uid, recurrence_id: event.recurrenceId, message: messageOf(error) });
  }
}

/** Keeps the fields the write left the event with, for `preserve_changes` (imported-fields.ts). */
async function rememberFields(step: Step, row: Pick<ImportedRow, "uid" | "recurrenceId">, eventId: number) {
  const written = await readCommittedEvent(step.deps.db, eventId);
  if (written !== null)
    await saveImportedFields(step.deps.db, step.source.id, row, importedFieldsOf(written, step.ctx.language));
}

/**
 * A VEVENT that left the feed: its event trashed (or kept, as the source says); an override's
 * occurrence given back to its series (its own times and the series' text), when the series stays.
 */
async function removeVevent(step: Step, row: ImportedRow, masters: Map<string, FeedEvent>): Promise<void> {
  const { db, config, events } = step.deps;
  const { tally, source } = step;
  const forget = (tx: Tx) => deleteImportedRow(tx, source.id, row);
  try {
    if (row.eventId === null) {
      await writeImportRows(db, forget);
      return;
    }
    const master = masters.get(keyOf(row.uid, null));
    // The first occurrence made an event of its own (first-occurrences.ts), now the series' again or cancelled.
    const ownFirst = master !== undefined && row.recurrenceId !== "" && row.recurrenceId <= master.startLocal;
    // Trashed here already: left so; deleted here: forgotten.
    const status = step.statuses.get(row.eventId);
    if (ownFirst && status === "trash") return;
    if (ownFirst && status === undefined) {
      await writeImportRows(db, forget);
      return;
    }
    if (row.recurrenceId === "" || ownFirst) {
      // Gone from a REST source's list because it is over (lists show what is to come): it ended, it stays.
      if (step.pass.rest) {
        const lastEnd = await lastEndOf(db, row.eventId);
        if (lastEnd !== null && lastEnd < step.ctx.now) return;
      }
      if (source.onRemoved !== "trash" && !ownFirst) {
        await writeImportRows(db, (tx) => saveImportedRow(tx, source.id, { ...row, digest: REMOVED }));
        return;
      }
      await events.trash(db, step.ctx.now, row.eventId, (tx, id) =>
        saveImportedRow(tx, source.id, { ...row, eventId: id, digest: REMOVED }),
      );
      tally.removed += 1;
      return;
    }
    if (!master) {
      await writeImportRows(db, forget);
      return;
    }
    const occurrence = { ...master, recurrenceId: row.recurrenceId, recurrence: null };
    const feedWrite = eventWriteOf({ ...occurrence, ...occurrenceTimes(master, row.recurrenceId) }, step.defaults);
    // Given back, it has its series' image, the feed's or one set here.
    if (master.image === null) delete feedWrite.image;
    const write = await withMatchedOrganizer(db, master, feedWrite);
    const written = await events.update(db, step.ctx, row.eventId, write, config.recurrenceHorizonDays, forget);
    if (!written) await writeImportRows(db, forget);
    else tally.updated += 1;
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof InvalidParamsError)) throw error;
    tally.fail({ uid: row.uid, recurrence_id: row.recurrenceId || null, message: messageOf(error) });
  }
}

/** An occurrence's own times: it starts at its RECURRENCE-ID and lasts as long as its series' first. */
function occurrenceTimes(master: FeedEvent, recurrenceId: string) {
  const start = DateTime.fromSQL(master.startLocal, { zone: "UTC" });
  const end = DateTime.fromSQL(master.endLocal, { zone: "UTC" });
  const startLocal = DateTime.fromSQL(recurrenceId, { zone: "UTC" });
  return {
    startLocal: recurrenceId,
    endLocal: startLocal.plus(end.diff(start)).toFormat("yyyy-MM-dd HH:mm:ss"),
  };
}
