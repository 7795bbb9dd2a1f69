import type { ImportConfig } from "../../config";
import { MAX_EXDATES, MAX_RDATES } from "../../dates/recurrence-limits";
import type { FeedProblem } from "./feed-event";
import { FeedFetchError } from "./feed-fetch";
import { UnreadableFeed } from "./ical-reader";

/**
 * One budget for everything a run takes from a remote site, whichever kind of source and however
 * many pages: time (its requests' and their answers', together: IMPORT_TIMEOUT_MS), bytes
 * (IMPORT_MAX_BYTES), requests, items (every item its lists hold, an event or not:
 * IMPORT_MAX_EVENTS), dates (the extra and excluded dates of its series) and problems (the first
 * MAX_KEPT_PROBLEMS kept for the run's record, the others counted). Spending past a bound fails
 * the run with a message naming the setting. The count of items is work, not time: a source's
 * junk pages (thousands of items that are no events) end its run as a list of thousands of
 * events would, and no list of problems grows without bound in the process.
 */

/** The most problems a run keeps for its record (the count goes on). */
export const MAX_KEPT_PROBLEMS = 100;

/** The most dates (RDATE and EXDATE values) a run reads, every event's together, per event it may take. */
const DATES_PER_EVENT = 20;

export class RunBudget {
  private readonly deadline: number;
  private bytesLeft: number;
  private itemsLeft: number;
  private datesLeft: number;
  private requestsLeft: number;
  /** The problems kept, and how many there were. */
  readonly problems: FeedProblem[] = [];
  failed = 0;

  constructor(
    private readonly limits: Pick<ImportConfig, "timeoutMs" | "maxBytes" | "maxEvents">,
    /** How many items one request may bring (a page's size); the requests a run may make follow from it. */
    itemsPerRequest: number,
    /** Aborted when the process stops: the run stops at its next request, or its next event. */
    readonly stopping: AbortSignal = new AbortController().signal,
  ) {
    this.deadline = performance.now() + limits.timeoutMs;
    this.bytesLeft = limits.maxBytes;
    this.itemsLeft = limits.maxEvents;
    this.datesLeft = Math.max(MAX_RDATES + MAX_EXDATES, limits.maxEvents * DATES_PER_EVENT);
    // Enough for every item twice (a list of ids, then the items; or the series of a list's
    // occurrences, one by one), a list in full besides, and pages that say a list ended.
    this.requestsLeft = 3 * Math.ceil(limits.maxEvents / itemsPerRequest) + 4;
  }

  /** How long the run's next request may take (its share of the time left); past the deadline, the run fails. */
  requestTime(): number {
    this.stopIfStopping();
    const left = Math.floor(this.deadline - performance.now());
    if (left <= 0)
      throw new FeedFetchError(`the source's answers took longer than ${this.limits.timeoutMs} ms (IMPORT_TIMEOUT_MS)`);
    if (this.requestsLeft-- <= 0) throw new FeedFetchError("the source's pages do not end");
    return left;
  }

  /** Throws when the process stops (the run is recorded as interrupted: import-run.ts). */
  stopIfStopping(): void {
    if (this.stopping.aborted) throw new Error("the process stops");
  }

  /** The bytes the next answer may have. */
  get bytes(): number {
    return this.bytesLeft;
  }

  spendBytes(bytes: number): void {
    this.bytesLeft -= bytes;
  }

  /** What the next page may hold, at most. */
  get items(): number {
    return this.itemsLeft;
  }

  /** Counts `count` items a source listed (events, and what is not one); past IMPORT_MAX_EVENTS the run fails. */
  spendItems(count: number): void {
    this.itemsLeft -= count;
    if (this.itemsLeft < 0)
      throw new UnreadableFeed(`the source lists more than ${this.limits.maxEvents} events (IMPORT_MAX_EVENTS)`);
  }

  /** Counts the extra and excluded dates of a series read. */
  spendDates(count: number): void {
    this.datesLeft -= count;
    if (this.datesLeft < 0)
      throw new UnreadableFeed(
        `the source's series list more than ${this.limits.maxEvents * DATES_PER_EVENT} extra and excluded dates (${DATES_PER_EVENT} per event of IMPORT_MAX_EVENTS)`,
      );
  }

  /** Records a problem of the run: kept while there is room, counted always. */
  fail(problem: FeedProblem): void {
    this.failed += 1;
    if (this.problems.length < MAX_KEPT_PROBLEMS) this.problems.push(problem);
  }

  /** Records the problems of a page read elsewhere (`count` of them, the first ones given). */
  failMany(given: FeedProblem[], count: number): void {
    for (const problem of given) this.fail(problem);
    this.failed += Math.max(0, count - given.length);
  }

  /** How many more problems a page's reading should bother to keep. */
  get problemRoom(): number {
    return MAX_KEPT_PROBLEMS - this.problems.length;
  }
}
