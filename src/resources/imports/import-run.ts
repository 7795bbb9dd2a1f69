import type { ImportSource } from "../../../generated/prisma/sqlite/client";
import { can, isRole } from "../../auth/roles";
import type { Principal } from "../../auth/principal";
import type { Database } from "../../db/database";
import { FeedFetchError } from "./feed-fetch";
import { feedReader } from "./feed-source";
import { UnreadableFeed } from "./ical-reader";
import { finishRun, importedRows, insertRun, ownerOf, renewLease } from "./import-repository";
import { keepInStep, REMOVED, RunTally, type RunDependencies } from "./in-step";
import { Provenance } from "./provenance";
import { restApiOf, restReader } from "./rest-source";
import { RunBudget } from "./run-budget";
import type { SourceReader } from "./source-reader";

export { RunTally, type RunDependencies } from "./in-step";

/**
 * One run of a claimed source, whatever its kind: its reader (source-reader.ts: an iCalendar feed,
 * or another site's REST API) reads it within the run's one budget (run-budget.ts), the run keeps
 * its events in step (in-step.ts) by the one rule of what a source may write (provenance.ts), and
 * records how it went: its counts, its problems, where the next run takes up from, when it is due.
 */

/*
 * A run holds its source for IMPORT_RUN_LEASE_MS without a sign of life: the process running it
 * writes the lease again every third of it (a heartbeat), so a run whose process is gone (killed,
 * its machine lost) is seen as interrupted by any instance within it, and its source may run again.
 */

type Underway = Map<number, { stop: AbortController; finished: Promise<RunStatus> }>;

/** The runs this process has under way, per database (a process serves one; tests serve several), each with what stops it. */
const underwayOf = new WeakMap<Database, Underway>();

function runsOf(db: Database): Underway {
  let runs = underwayOf.get(db);
  if (!runs) underwayOf.set(db, (runs = new Map()));
  return runs;
}

/**
 * Stops this process's runs of `db` between two events (or two requests), records each as
 * interrupted (the next run takes it up: every event written so far was recorded with its write),
 * and waits for them.
 */
export async function stopRuns(db: Database): Promise<void> {
  const runs = runsOf(db);
  for (const run of runs.values()) run.stop.abort();
  await Promise.all([...runs.values()].map((run) => run.finished));
}

/** A run stopped because its process stops. */
export class RunInterrupted extends Error {
  constructor() {
    super("interrupted: the process running it stopped; the next run takes it up");
  }
}

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

class RunFailure extends Error {}

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
  const leaseMs = deps.config.imports.runLeaseMs;
  const runId = await insertRun(deps.db, source.id, trigger, Date.now(), leaseMs);
  const stop = new AbortController();
  const heartbeat = setInterval(() => {
    renewLease(deps.db, { id: runId, sourceId: source.id }, Date.now() + leaseMs).catch((err: unknown) =>
      deps.logger.warn({ err, source: source.id }, "an import run's lease could not be renewed"),
    );
  }, leaseMs / 3);
  heartbeat.unref();
  const finished = runSource(deps, source, { id: runId, sourceId: source.id }, stop.signal)
    .catch((err: unknown): RunStatus => {
      deps.logger.error({ err, source: source.id }, "recording an import run failed");
      return "failed";
    })
    .finally(() => {
      clearInterval(heartbeat);
      runsOf(deps.db).delete(runId);
    });
  runsOf(deps.db).set(runId, { stop, finished });
  return { runId, finished };
}

/** Runs a claimed source to the end and records how it went. */
async function runSource(
  deps: RunDependencies,
  source: ImportSource,
  run: { id: number; sourceId: number },
  stopping: AbortSignal,
): Promise<RunStatus> {
  const { db, config } = deps;
  const reader = readerOf(source.url);
  const tally = new RunTally(new RunBudget(config.imports, reader.itemsPerRequest, stopping));
  let fetched: "fetched" | "not_modified" | null = null;
  try {
    const principal = await principalOf(db, source);
    const rows = await importedRows(db, source.id);
    const imported = new Set(
      rows.filter((row) => row.recurrenceId === "" && row.digest !== REMOVED).map((row) => row.uid),
    );
    const reading = await reader.read({ config, source, budget: tally.budget, imported });
    fetched = reading.fetched;
    if (reading.fetched === "fetched") {
      const provenance = await Provenance.of(db, source, (url) => readerOf(url).site);
      await keepInStep({ deps, source, principal, rows, reading, tally, provenance, rest: reader.rest });
    }
    const now = Date.now();
    await finishRun(
      db,
      run,
      { status: "succeeded", fetch: fetched, finishedAt: now, ...countsOf(tally) },
      {
        ...reading.resume(tally.failed === 0),
        consecutiveFailures: 0,
        // A paused source run by hand stays paused, for the reason it was.
        ...(source.active ? { pausedReason: null } : {}),
        nextRunAt: source.active ? nextRunAfterSuccess(source.frequency, now) : null,
        leaseUntil: null,
      },
    );
    return "succeeded";
  } catch (error) {
    if (stopping.aborted) return interrupted(deps, source, run, fetched, tally);
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

/**
 * Records a run its process stopped: not a failure of the source (its count of failures stays),
 * and due again at once (another instance, or this one once it starts again, takes it up, reading
 * the source in full: what was written so far is recorded, and writes nothing again).
 */
async function interrupted(
  deps: RunDependencies,
  source: ImportSource,
  run: { id: number; sourceId: number },
  fetched: "fetched" | "not_modified" | null,
  tally: RunTally,
): Promise<RunStatus> {
  const now = Date.now();
  await finishRun(
    deps.db,
    run,
    { status: "failed", fetch: fetched, finishedAt: now, ...countsOf(tally), error: new RunInterrupted().message },
    { leaseUntil: null, cursor: null, etag: null, lastModified: null, nextRunAt: source.active ? now : null },
  );
  return "failed";
}

/** The reader of a source's URL: another site's REST API, or an iCalendar feed. */
function readerOf(url: string): SourceReader {
  const api = restApiOf(url);
  return api ? restReader(api) : feedReader(url);
}

function countsOf(tally: RunTally) {
  const { created, updated, unchanged, removed, failed } = tally;
  return { created, updated, unchanged, removed, failed, errors: JSON.stringify(tally.errors) };
}
