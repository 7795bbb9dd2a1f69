import { Worker } from "node:worker_threads";

/**
 * Expands RRULEs off the event loop, with a deadline. rrule walks a rule period by period from the
 * series' start, and it keeps walking past UNTIL until a date matches: a contributor's rule that
 * matches rarely (the 29th of February on a Monday, from the year 1) or never (every 7th day on a
 * Monday, from a Tuesday) walks hundreds of thousands of periods, seconds of CPU that no count of
 * matches bounds. So the walk runs in a worker thread of this process, one rule at a time, and a rule
 * whose walk takes longer than EXPANSION_DEADLINE_MS is stopped (the thread is ended and another
 * started) and refused. Other requests never wait behind it: the event loop only posts the job.
 * The deadline counts from the moment the thread takes the job, not from when it was posted: a
 * thread starting (its first job, or the next after one was stopped) loads rrule first, which on a
 * busy machine took longer than the deadline and refused a weekly rule of three dates.
 */

/** How long a rule's walk may take, in the worker thread (a weekly rule over a century takes ~15 ms). */
export const EXPANSION_DEADLINE_MS = 250;

/** How long a thread may take to start and take its job (loading rrule): past it, the job fails as an error of ours. */
const WORKER_START_LIMIT_MS = 10_000;

/** The walk of a rule took longer than EXPANSION_DEADLINE_MS and was stopped. */
export class ExpansionTooCostly extends Error {
  constructor() {
    super(`The rule's expansion took longer than ${EXPANSION_DEADLINE_MS} ms.`);
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

// Plain CommonJS run by the worker thread (it is not compiled with the service).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { RRule } = require(workerData.rrulePath);
parentPort.on("message", ({ rule, dtstart, until, limit }) => {
  parentPort.postMessage({ started: true });
  try {
    const dates = [];
    const options = { ...RRule.parseString(rule), dtstart: new Date(dtstart), until: new Date(until) };
    new RRule(options).all((date, index) => {
      if (index >= limit) return false;
      dates.push(date.getTime());
      return true;
    });
    parentPort.postMessage({ dates });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
});
`;

interface Pending {
  job: ExpansionJob;
  resolve: (dates: Date[]) => void;
  reject: (error: Error) => void;
}

class RuleExpander {
  private worker: Worker | null = null;
  private readonly queue: Pending[] = [];
  private running: { pending: Pending; timer: NodeJS.Timeout } | null = null;

  expand(job: ExpansionJob): Promise<Date[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.running !== null) return;
    const pending = this.queue.shift();
    if (pending === undefined) return;
    const worker = this.startedWorker();
    const timer = setTimeout(
      () => this.stop(new Error("The rule expansion thread did not start.")),
      WORKER_START_LIMIT_MS,
    );
    this.running = { pending, timer };
    const { rule, dtstart, until, limit } = pending.job;
    worker.postMessage({ rule, dtstart: dtstart.getTime(), until: until.getTime(), limit });
  }

  private startedWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { rrulePath: require.resolve("rrule") } });
    worker.on("message", (answer: { started?: true; dates?: number[]; error?: string }) => {
      if (this.worker !== worker) return;
      if (answer.started) return this.startDeadline();
      this.finish((pending) =>
        answer.dates
          ? pending.resolve(answer.dates.map((time) => new Date(time)))
          : pending.reject(new Error(answer.error)),
      );
    });
    worker.on("error", (error) => {
      if (this.worker === worker) this.stop(error);
    });
    // An idle expander must not keep a process (or a test run) alive (after the listeners, which would ref it again).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The running job's walk has begun: from now, it has EXPANSION_DEADLINE_MS. */
  private startDeadline(): void {
    if (this.running === null) return;
    clearTimeout(this.running.timer);
    this.running.timer = setTimeout(() => this.stop(new ExpansionTooCostly()), EXPANSION_DEADLINE_MS);
  }

  /** Ends the running job (and the thread walking it), with `error`. */
  private stop(error: Error): void {
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
    this.finish((pending) => pending.reject(error));
  }

  private finish(settle: (pending: Pending) => void): void {
    const running = this.running;
    if (running === null) return;
    clearTimeout(running.timer);
    this.running = null;
    settle(running.pending);
    this.next();
  }
}

const expander = new RuleExpander();

/** The dates the rule gives from `dtstart` to `until`, at most `limit`; ExpansionTooCostly past the deadline. */
export function expandRule(job: ExpansionJob): Promise<Date[]> {
  return expander.expand(job);
}
