import type { ImportSource } from "../../../generated/prisma/sqlite/client";
import { DateTime } from "luxon";
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
import { eventStatuses, lastEndOf, occurrenceIdAt, readCommittedEvent } from "../events/event-repository";
import { organizerIdByEmail } from "../organizers/organizer-repository";
import type { PostWriteContext } from "../post-kernel/post-fields";
import { globalIdSiteOf } from "../post-kernel/post-serializer";
import { existingTermIds } from "../terms/term-repository";
import type { FeedEvent, FeedProblem } from "./feed-event";
import { digestOf, eventWriteOf, type SourceDefaults } from "./import-mapping";
import {
  deleteImportedRow,
  saveImportedFields,
  saveImportedRow,
  saveLineage,
  writeImportRows,
  type ImportedRow,
} from "./import-repository";
import { takenByWindow, type ImportWindow } from "./import-window";
import { importedFieldsOf, withoutFieldsEditedHere } from "./imported-fields";
import { LinkedItems } from "./linked-items";
import type { Provenance } from "./provenance";
import type { RunBudget } from "./run-budget";
import type { SourceReading } from "./source-reader";

/**
 * Keeping a source's events in step with what a run read of it, the same for every kind of
 * source. Each VEVENT (or item of a REST list) is keyed by the source, its UID and its
 * RECURRENCE-ID; one whose write is what was last imported (the same digest) is not written at
 * all, so an unchanged source changes nothing: no `modified` date, no sync position, no webhook. A
 * changed one is written as the source says (the fields it gives; those it does not, such as
 * `featured` or an image set here, stay). One that left the source is moved to the trash (or kept,
 * as the source says); an override that left it gives its occurrence back to its series. An event
 * trashed or deleted here is left alone. Each write records what it imported in its own
 * transaction, so that a run that stops halfway is taken up by the next without making an event
 * twice. What this source may write at all is provenance.ts's to say: only what its site brought.
 */

/** The digest of a VEVENT whose event the run trashed because it left the feed. */
export const REMOVED = "removed";

export interface RunDependencies {
  db: Database;
  config: Config;
  logger: Logger;
  events: ImportedEventWriters;
  linked: ImportedLinkedItemWriters;
}

/** What a run did, as it counts it; its problems are the budget's (kept up to a bound, counted beyond). */
export class RunTally {
  created = 0;
  updated = 0;
  unchanged = 0;
  removed = 0;

  constructor(readonly budget: RunBudget) {}

  fail(problem: FeedProblem): void {
    this.budget.fail(problem);
  }

  get failed(): number {
    return this.budget.failed;
  }

  get errors(): FeedProblem[] {
    return this.budget.problems;
  }
}

const keyOf = (uid: string, recurrenceId: string | null) => JSON.stringify([uid, recurrenceId ?? ""]);

/** What a refused write says, in English (the run's log is the administrators'). */
export function messageOf(error: unknown): string {
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

const refused = (error: unknown) => error instanceof ApiError || error instanceof InvalidParamsError;

/** What a run knows as it keeps a source's events in step. */
interface Step {
  deps: RunDependencies;
  source: ImportSource;
  ctx: PostWriteContext;
  defaults: SourceDefaults;
  previous: Map<string, ImportedRow>;
  statuses: Map<number, string>;
  tally: RunTally;
  reading: SourceReading;
  /** Its events are another site's items (a REST source). */
  rest: boolean;
  provenance: Provenance;
  /** The site part of this site's global ids (`host/path`): an item made here does not come back. */
  ownSite: string | null;
  /** Of a REST source: the venues, organizers and terms its events show, as items (linked-items.ts). */
  linkedItems: LinkedItems | null;
}

/** What a run read of a source, and what it keeps it in step with. */
export interface RunOfSource {
  deps: RunDependencies;
  source: ImportSource;
  principal: Principal;
  /** What the source imported before. */
  rows: ImportedRow[];
  reading: SourceReading;
  tally: RunTally;
  provenance: Provenance;
  /** Its events are another site's items (a REST source). */
  rest: boolean;
}

/** Writes the events of a source that changed, and deals with those that left it. */
export async function keepInStep(run: RunOfSource): Promise<void> {
  const { source, reading, tally, rest } = run;
  const step = await stepOf(run);
  if (step.linkedItems) await keepLinkedItemsInStep(step, step.linkedItems);
  const { masters, overrides, cancelledOverrides } = arrange(withoutOwnItems(step, reading.events), tally);
  const seen = new Set([...masters.keys(), ...overrides.keys(), ...cancelledOverrides]);
  // Outside the source's window: neither written nor removed (import-window.ts).
  const ownEvents = [...masters.values(), ...[...overrides.values()].filter((event) => event.firstOfSeries)];
  const window = source.window === null ? null : (JSON.parse(source.window) as ImportWindow);
  const taken = await takenByWindow(window, ownEvents, step.ctx.now);
  for (const event of masters.values()) {
    if (!taken.has(event)) continue;
    await writeVevent(step, event, null);
    await between(step);
  }
  for (const event of overrides.values()) {
    await writeOverride(step, event, masters, taken);
    await between(step);
  }
  for (const [key, row] of step.previous) {
    if (seen.has(key) || row.digest === REMOVED) continue;
    if (rest && deletedOccurrence(row, masters)) {
      await removeOccurrence(step, row);
      await between(step);
      continue;
    }
    if (!reading.complete && !reading.deleted.has(row.uid)) continue;
    await removeVevent(step, row, masters);
    await between(step);
  }
}

/** Between two events: the event loop's turn, and the run stops here when its process stops. */
async function between(step: Step): Promise<void> {
  await yieldToEventLoop();
  step.tally.budget.stopIfStopping();
}

/** Whether this process said once that, without SITE_URL, its own items coming back cannot be told. */
let warnedOfLoops = false;

async function stepOf({ deps, source, principal, rows, reading, tally, provenance, rest }: RunOfSource): Promise<Step> {
  const { db, config } = deps;
  const ctx: PostWriteContext = {
    principal,
    type: "events",
    siteTimezone: config.siteTimezone,
    now: new Date(),
    language: source.language as Language,
    defaultLanguage: config.defaultLanguage,
  };
  const defaults: SourceDefaults = {
    postStatus: source.postStatus === "draft" ? "draft" : "publish",
    categoryIds: await existingTermIds(db, "category", JSON.parse(source.categories) as number[]),
    tagIds: await existingTermIds(db, "tag", JSON.parse(source.tags) as number[]),
  };
  // Without SITE_URL, the service's global ids are of the address it is served at (PUBLIC_URL).
  const ownUrl = config.siteUrl ?? config.publicUrl;
  if (rest && ownUrl === null && !warnedOfLoops) {
    warnedOfLoops = true;
    deps.logger.warn(
      "SITE_URL (or PUBLIC_URL) is not set: this site's own items that come back through a site that imported them cannot be told, and are brought again",
    );
  }
  return {
    deps,
    source,
    ctx,
    defaults,
    previous: new Map(rows.map((row) => [keyOf(row.uid, row.recurrenceId), row])),
    statuses: await eventStatuses(
      db,
      rows.flatMap((row) => (row.eventId === null ? [] : [row.eventId])),
    ),
    tally,
    reading,
    rest,
    provenance,
    ownSite: ownUrl === null ? null : globalIdSiteOf(ownUrl),
    linkedItems: rest ? new LinkedItems(db, deps.linked, ctx, provenance, defaults, config.imports.maxEvents) : null,
  };
}

/**
 * Whether this source writes the event of a row: an override's occurrence follows its series, an
 * event of its own is provenance.ts's to say.
 */
function writesRow(step: Step, row: ImportedRow): boolean {
  const seriesId = row.recurrenceId === "" ? row.eventId : step.previous.get(keyOf(row.uid, null))?.eventId;
  return seriesId === null || seriesId === undefined || step.provenance.writes(seriesId);
}

/** A REST source's venues and organizers changed there (its list of changes): those its site's sources made, written. */
async function keepLinkedItemsInStep(step: Step, linkedItems: LinkedItems): Promise<void> {
  for (const { kind, item } of step.reading.linked) {
    step.tally.budget.stopIfStopping();
    try {
      await linkedItems.changed(kind, item);
    } catch (error) {
      if (!refused(error)) throw error;
      step.tally.fail({ uid: null, recurrence_id: null, message: `${kind} ${item.lineage[0]}: ${messageOf(error)}` });
    }
  }
}

/** An override of one occurrence: written on its occurrence when its series is this source's to write. */
async function writeOverride(step: Step, event: FeedEvent, masters: Map<string, FeedEvent>, taken: Set<FeedEvent>) {
  const { tally } = step;
  // An override of a series' first occurrence is an event of its own (first-occurrences.ts).
  if (event.firstOfSeries) {
    if (taken.has(event)) await writeVevent(step, event, null);
    return;
  }
  const master = masters.get(keyOf(event.uid, null));
  if (master !== undefined && !taken.has(master)) return;
  // Of a pass through the changes, the series may be unchanged: the one an earlier run made.
  const seriesId = master || !step.reading.complete ? step.previous.get(keyOf(event.uid, null))?.eventId : null;
  // A series trashed here, or one another site brought: its occurrences are left alone too.
  if (seriesId && (step.statuses.get(seriesId) === "trash" || !step.provenance.writes(seriesId))) {
    tally.unchanged += 1;
    return;
  }
  if ((master && !master.recurrence) || !seriesId) {
    tally.fail({
      uid: event.uid,
      recurrence_id: event.recurrenceId,
      message: "an override of an occurrence whose recurring event is not in the feed",
    });
    return;
  }
  await writeVevent(step, event, { seriesId, zone: (master ?? event).timezone });
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
    if (!writesRow(step, row)) {
      await writeImportRows(step.deps.db, forget);
      return;
    }
    await step.deps.events.trash(step.deps.db, step.ctx.now, row.eventId!, forget);
    step.tally.removed += 1;
  } catch (error) {
    if (!refused(error)) throw error;
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

/** The site part of a global id (`host/path` of `host/path?id=…`). */
const siteOfGlobalId = (id: string) => id.split("?")[0];

/**
 * A REST source's events but those first made here (they come back through another site that
 * imported them), with their series' occurrences.
 */
function withoutOwnItems(step: Step, events: FeedEvent[]): FeedEvent[] {
  const own = step.ownSite;
  if (own === null || !step.rest) return events;
  const ownSeries = new Set(
    events
      .filter((event) => event.recurrenceId === null && event.rest?.lineage.some((id) => siteOfGlobalId(id) === own))
      .map((event) => event.uid),
  );
  if (ownSeries.size > 0) step.tally.unchanged += ownSeries.size;
  return events.filter((event) => !ownSeries.has(event.uid));
}

/** The global id a REST source's event was first made under (the last of its lineage). */
const originOf = (event: FeedEvent) => {
  const lineage = event.rest?.lineage;
  return lineage && lineage.length > 0 ? lineage[lineage.length - 1] : null;
};

/**
 * Of a REST source's event this source has not imported yet: the row linking it to the event that
 * is here already by its origin (provenance.ts: one its site's sources brought, in step with the
 * digest they last wrote in this language; or one another site brought, linked and never
 * written), or undefined when it is new here.
 */
async function arrivalOf(step: Step, event: FeedEvent): Promise<ImportedRow | undefined> {
  const origin = originOf(event);
  if (origin === null) return undefined;
  const arrival = await step.provenance.arrival("event", origin);
  if (arrival === null) return undefined;
  const row = { uid: event.uid, recurrenceId: "", eventId: arrival.itemId, digest: arrival.digest, origin };
  await writeImportRows(step.deps.db, (tx) => saveImportedRow(tx, step.source.id, row));
  for (const [id, status] of await eventStatuses(step.deps.db, [arrival.itemId])) step.statuses.set(id, status);
  step.previous.set(keyOf(event.uid, event.recurrenceId), row);
  return row;
}

/** Records a VEVENT as imported, in the transaction of its write; of a REST source's event, what its site wrote of it. */
function recording(step: Step, row: ImportedRow) {
  return async (tx: Tx, eventId: number) => {
    await saveImportedRow(tx, step.source.id, { ...row, eventId });
    await step.provenance.wrote(tx, "event", row.origin, row.digest);
  };
}

/** Records a new event of a REST source's item: its row, its lineage, and that its site made it. */
function recordingMade(step: Step, row: ImportedRow, lineage: string[] | null) {
  return async (tx: Tx, eventId: number) => {
    await saveImportedRow(tx, step.source.id, { ...row, eventId });
    if (lineage && row.origin && row.recurrenceId === "") {
      await saveLineage(tx, "Event", eventId, lineage);
      await step.provenance.placed(tx, "event", row.origin, eventId, true, row.digest);
    }
  };
}

/** What the source says of a VEVENT's event: its write, with a REST source's venue, organizers and terms as the items they are here. */
async function writeOf(step: Step, event: FeedEvent) {
  const said = eventWriteOf(event, step.defaults);
  const feedWrite = event.rest && step.linkedItems ? await step.linkedItems.linkedIn(event.rest, said) : said;
  // The digest is of what the feed says, before its organizer is matched here (the match may differ once the first run made it).
  return { feedWrite, digest: digestOf(feedWrite, step.ctx.language) };
}

/** Creates, updates or leaves the event of one VEVENT (of an occurrence's override: `series`). */
async function writeVevent(
  step: Step,
  event: FeedEvent,
  series: { seriesId: number; zone: string } | null,
): Promise<void> {
  const { db } = step.deps;
  const { tally } = step;
  const recurrenceId = event.recurrenceId ?? "";
  let before = step.previous.get(keyOf(event.uid, event.recurrenceId));
  try {
    const { feedWrite, digest } = await writeOf(step, event);
    if (before === undefined && series === null && step.rest) before = await arrivalOf(step, event);
    const row: ImportedRow = { uid: event.uid, recurrenceId, eventId: null, digest, origin: originOf(event) };
    if (before && before.digest === digest) {
      tally.unchanged += 1;
      return;
    }
    // An event another site brought, or one another source of this site writes: this source only links to it.
    if (before?.eventId && !writesRow(step, before)) {
      await writeImportRows(db, (tx) => saveImportedRow(tx, step.source.id, { ...before!, digest }));
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
    if (before?.eventId) return await updateVevent(step, before, write, row);
    if (series === null) return await createVevent(step, event, write, row);
    await updateOccurrence(step, series, write, row);
  } catch (error) {
    if (!refused(error)) throw error;
    tally.fail({ uid: event.uid, recurrence_id: event.recurrenceId, message: messageOf(error) });
  }
}

async function createVevent(step: Step, event: FeedEvent, write: Schemas["CreateEventRequest"], row: ImportedRow) {
  const { db, config, events } = step.deps;
  const lineage = event.rest?.lineage ?? null;
  const id = await events.create(db, step.ctx, write, config.recurrenceHorizonDays, recordingMade(step, row, lineage));
  step.previous.set(keyOf(row.uid, event.recurrenceId), { ...row, eventId: id });
  step.tally.created += 1;
  await rememberFields(step, row, id);
}

async function updateVevent(step: Step, before: ImportedRow, write: Schemas["CreateEventRequest"], row: ImportedRow) {
  const { db, config, events } = step.deps;
  const eventId = before.eventId!;
  // Brought back from the trash the import moved it to: as the feed says, whatever the authority.
  const authority = before.digest === REMOVED ? "overwrite" : step.source.updateAuthority;
  if (authority === "retain") {
    step.tally.unchanged += 1;
    return;
  }
  const current = authority === "preserve_changes" && before.fields ? await readCommittedEvent(db, eventId) : null;
  const kept = current ? withoutFieldsEditedHere(write, before.fields!, current, step.ctx.language) : write;
  const written = await events.update(db, step.ctx, eventId, kept, config.recurrenceHorizonDays, recording(step, row));
  if (!written) {
    step.tally.unchanged += 1;
    return;
  }
  step.tally.updated += 1;
  await rememberFields(step, row, eventId);
}

async function updateOccurrence(
  step: Step,
  series: { seriesId: number; zone: string },
  write: Schemas["CreateEventRequest"],
  row: ImportedRow,
) {
  const { db, config, events } = step.deps;
  const instant = DateTime.fromSQL(row.recurrenceId, { zone: series.zone }).toJSDate();
  const occurrence = await occurrenceIdAt(db, series.seriesId, instant);
  if (occurrence === null) {
    step.tally.fail({
      uid: row.uid,
      recurrence_id: row.recurrenceId,
      message: "its series has no occurrence at this RECURRENCE-ID (yet)",
    });
    return;
  }
  await events.update(db, step.ctx, occurrence, write, config.recurrenceHorizonDays, recording(step, row));
  step.tally.updated += 1;
  await rememberFields(step, row, occurrence);
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
 * An event this source does not write, or that another source of its site still lists, stays.
 */
async function removeVevent(step: Step, row: ImportedRow, masters: Map<string, FeedEvent>): Promise<void> {
  const { db } = step.deps;
  const forget = (tx: Tx) => deleteImportedRow(tx, step.source.id, row);
  try {
    if (row.eventId === null || !writesRow(step, row)) {
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
    if (row.recurrenceId === "" || ownFirst) return await removeEvent(step, row, ownFirst);
    if (!master) {
      await writeImportRows(db, forget);
      return;
    }
    await giveBackOccurrence(step, row, master);
  } catch (error) {
    if (!refused(error)) throw error;
    step.tally.fail({ uid: row.uid, recurrence_id: row.recurrenceId || null, message: messageOf(error) });
  }
}

/** An event (or a first occurrence made an event of its own) that left the source. */
async function removeEvent(step: Step, row: ImportedRow, ownFirst: boolean): Promise<void> {
  const { db, events } = step.deps;
  const { source } = step;
  const eventId = row.eventId!;
  // Another source of its site still lists it: it stays, and this source forgets it.
  if (!(await step.provenance.mayRemove(eventId))) {
    await writeImportRows(db, (tx) => deleteImportedRow(tx, source.id, row));
    return;
  }
  // Gone from a REST source's list because it is over (lists show what is to come): it ended, it stays.
  if (step.rest) {
    const lastEnd = await lastEndOf(db, eventId);
    if (lastEnd !== null && lastEnd < step.ctx.now) return;
  }
  // Still there, only hidden from the source's lists: it stays, hidden here too.
  const hidden = row.recurrenceId === "" ? await step.reading.stillHidden?.(row.uid) : null;
  if (hidden) {
    await writeVevent(step, hidden, null);
    return;
  }
  const removed = async (tx: Tx, id: number) => {
    await saveImportedRow(tx, source.id, { ...row, eventId: id, digest: REMOVED });
    await step.provenance.wrote(tx, "event", row.origin, REMOVED);
  };
  if (source.onRemoved !== "trash" && !ownFirst) {
    await writeImportRows(db, (tx) => removed(tx, eventId));
    return;
  }
  await events.trash(db, step.ctx.now, eventId, removed);
  step.tally.removed += 1;
}

/** An override that left the feed: its occurrence is its series' again (its own times and the series' text). */
async function giveBackOccurrence(step: Step, row: ImportedRow, master: FeedEvent): Promise<void> {
  const { db, config, events } = step.deps;
  const forget = (tx: Tx) => deleteImportedRow(tx, step.source.id, row);
  const occurrence = { ...master, recurrenceId: row.recurrenceId, recurrence: null };
  const feedWrite = eventWriteOf({ ...occurrence, ...occurrenceTimes(master, row.recurrenceId) }, step.defaults);
  // Given back, it has its series' image, the feed's or one set here.
  if (master.image === null) delete feedWrite.image;
  const write = await withMatchedOrganizer(db, master, feedWrite);
  const written = await events.update(db, step.ctx, row.eventId!, write, config.recurrenceHorizonDays, forget);
  if (!written) await writeImportRows(db, forget);
  else step.tally.updated += 1;
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
