import { RecentValues } from "../../text/text-memo";
import { BoundedWork, WorkFailed, WorkTooCostly } from "../../work/bounded-work";
import { MAX_WALK_STEPS } from "../../dates/recurrence-limits";

/**
 * Expands RRULEs off the event loop (src/work/bounded-work.ts). rrule walks a rule period by
 * period from the series' start, and it keeps walking past UNTIL until a date matches: a
 * contributor's rule that matches rarely (the 29th of February on a Monday, from the year 1) or
 * never (every 7th day on a Monday, from a Tuesday) walks hundreds of thousands of periods, which
 * no count of matches bounds. The walk counts its steps (rule-walk.ts): past MAX_WALK_STEPS it is
 * refused. A count, not a clock: a busy machine walks slower, and refuses nothing more. The
 * thread's deadline is only the last guard against what the count cannot see, far above any walk
 * within it; its heap is bounded too. Clients take turns in the queue.
 *
 * A write expands its rule before its transaction opens (`expandRule` with the caller as the
 * client), and the series' sync inside the transaction finds the same walk done: a costly rule
 * never holds a transaction (on SQLite, every other write) while it waits or walks.
 */

/**
 * The thread's deadline for one walk: a walk of MAX_WALK_STEPS takes 0.3–0.4 s on a quiet machine
 * of ours; this is 25 times that, for a machine that is very busy.
 */
const EXPANSION_DEADLINE_MS = 10_000;

/** The heap of the expansion thread: a walk keeps at most a few thousand dates. */
const EXPANSION_MEMORY_MB = 48;

/** The walk of a rule took more than MAX_WALK_STEPS steps (or more than the thread's time or memory) and was stopped. */
export class ExpansionTooCostly extends Error {
  constructor() {
    super(`The rule's expansion takes more than ${MAX_WALK_STEPS} steps.`);
  }
}

export interface ExpansionJob {
  /** RRULE parts rrule reads (without UNTIL or COUNT: the caller bounds the walk with `until` and `limit`). */
  rule: string;
  /** The series' start and the walk's end, as floating wall clocks (UTC fields are the wall clock's). */
  dtstart: Date;
  until: Date;
  /** Most dates to give; the walk stops at the last. */
  limit: number;
}

const expansions = new BoundedWork("expand-rule", () => ({
  deadlineMs: EXPANSION_DEADLINE_MS,
  memoryMb: EXPANSION_MEMORY_MB,
}));

/** Walks done lately (a write's, before its transaction), by job: the sync in the transaction takes them from here. */
const recentWalks = new RecentValues<Promise<number[]>>(256);

/** The client of walks asked for by the service itself (a series extended to its horizon). */
const SERVICE = "";

/**
 * The dates the rule gives from `dtstart` to `until`, at most `limit`; ExpansionTooCostly past the
 * deadline. `client` is who asked, for the queue's turns.
 */
export async function expandRule(job: ExpansionJob, client = SERVICE): Promise<Date[]> {
  const walk = { rule: job.rule, dtstart: job.dtstart.getTime(), until: job.until.getTime(), limit: job.limit };
  const key = JSON.stringify(walk);
  const dates = recentWalks.valueOf(key, () =>
    expansions.run(walk, client).catch((error: unknown) => {
      recentWalks.forget(key);
      const tooLong = error instanceof WorkFailed && error.kind === "WalkTooLong";
      throw error instanceof WorkTooCostly || tooLong ? new ExpansionTooCostly() : error;
    }),
  );
  return (await dates).map((time) => new Date(time));
}
