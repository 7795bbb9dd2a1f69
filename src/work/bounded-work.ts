import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { TaskInput, TaskName, TaskOutput } from "./work-thread";

/**
 * The one way this service does costly work on data a caller or a feed chose: expanding a
 * contributor's RRULE, reading a feed (its VTIMEZONEs expanded by ical.js, its date lists, its
 * thousands of VEVENTs). Such work can be made to take minutes or gigabytes by a few hundred
 * bytes, and no check of the input can know every way. So it runs in a worker thread of this
 * process, never on the event loop, under two bounds it cannot pass: a deadline (the thread is
 * ended when its job takes longer) and a heap (the thread is ended when it needs more). Either
 * way the job fails with WorkTooCostly, and the next job gets a new thread.
 *
 * Each kind of work has its thread and its queue, and the queue is fair: jobs wait per client
 * and are taken in turn, one client's each, so that one client's burst of costly jobs delays
 * another client's job by at most one job's deadline.
 */

export interface WorkLimits {
  /** How long one job may take once its thread has taken it, in milliseconds. */
  deadlineMs: number;
  /** The thread's heap (V8's old generation), in megabytes. */
  memoryMb: number;
}

/** A job passed its deadline or its heap, and was stopped. */
export class WorkTooCostly extends Error {
  constructor(readonly bound: "deadline" | "memory") {
    super(bound === "deadline" ? "the work took longer than its deadline" : "the work needed more memory than allowed");
  }
}

/** A job failed inside its thread; `kind` is the name of the error it threw (the caller maps its own). */
export class WorkFailed extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
  }
}

/** How long a new thread may take to load its modules and take its job: past it, the job fails as an error of ours. */
const THREAD_START_LIMIT_MS = 20_000;

/**
 * The thread's entry: work-thread.js beside the bundle (dist/), or work-thread.ts when the
 * service runs from its sources (tests, `npm run cli`), loaded through tsx.
 */
const THREAD_SOURCE = `
const { workerData } = require("node:worker_threads");
if (workerData.typescriptLoader) require(workerData.typescriptLoader);
require(workerData.entry);
`;

function threadData(): { entry: string; typescriptLoader: string | null } {
  const fromSources = __filename.endsWith(".ts");
  return fromSources
    ? { entry: join(__dirname, "work-thread.ts"), typescriptLoader: require.resolve("tsx/cjs") }
    : { entry: join(__dirname, "work-thread.js"), typescriptLoader: null };
}

interface Pending<T extends TaskName> {
  input: TaskInput<T>;
  resolve: (output: TaskOutput<T>) => void;
  reject: (error: Error) => void;
}

type Answer =
  | { started: true }
  | { part: { key: string; items: unknown[] } }
  | { output: Record<string, unknown> }
  | { error: string; kind: string };

export class BoundedWork<T extends TaskName> {
  private worker: Worker | null = null;
  /** Waiting jobs by client, and the clients in the order they are served. */
  private readonly waiting = new Map<string, Array<Pending<T>>>();
  private running: { pending: Pending<T>; timer: NodeJS.Timeout; parts: Map<string, unknown[][]> } | null = null;

  /**
   * `threadPerJob`: each job gets a new thread, ended when the job is (work that is rare and needs
   * a large heap, such as a feed's reading, gives its memory back at once).
   */
  constructor(
    private readonly task: T,
    private readonly limits: () => WorkLimits,
    private readonly options: { threadPerJob?: boolean } = {},
  ) {}

  /** Runs the job for `client` when its turn comes; WorkTooCostly past the bounds. */
  run(input: TaskInput<T>, client: string): Promise<TaskOutput<T>> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(client);
      if (queue) queue.push({ input, resolve, reject });
      else this.waiting.set(client, [{ input, resolve, reject }]);
      this.next();
    });
  }

  /** The first job of the client whose turn it is; that client goes to the end of the line. */
  private takeNext(): Pending<T> | undefined {
    const first = this.waiting.entries().next();
    if (first.done) return undefined;
    const [client, queue] = first.value;
    const pending = queue.shift()!;
    this.waiting.delete(client);
    if (queue.length > 0) this.waiting.set(client, queue);
    return pending;
  }

  private next(): void {
    if (this.running !== null) return;
    const pending = this.takeNext();
    if (pending === undefined) return;
    const worker = this.startedWorker();
    const timer = setTimeout(() => this.stop(new Error("the work thread did not start")), THREAD_START_LIMIT_MS);
    this.running = { pending, timer, parts: new Map() };
    worker.postMessage({ task: this.task, input: pending.input });
  }

  private startedWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const { memoryMb } = this.limits();
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: threadData(),
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    worker.on("message", (answer: Answer) => {
      if (this.worker !== worker) return;
      if ("started" in answer) return this.startDeadline();
      if ("part" in answer) return this.keepPart(answer.part.key, answer.part.items);
      if (this.options.threadPerJob) this.endThread();
      const parts = this.running?.parts;
      this.finish((pending) =>
        "output" in answer
          ? pending.resolve(withParts(answer.output, parts) as TaskOutput<T>)
          : pending.reject(new WorkFailed(answer.error, answer.kind)),
      );
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (this.worker !== worker) return;
      this.stop(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? new WorkTooCostly("memory") : error);
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.stop(new Error(`the work thread ended (exit code ${code})`));
    });
    // An idle thread must not keep a process (or a test run) alive (after the listeners, which would ref it again).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** A part of a list of the running job's output (work-thread.ts sends long lists ahead, in parts). */
  private keepPart(key: string, items: unknown[]): void {
    const parts = this.running?.parts;
    if (!parts) return;
    const kept = parts.get(key);
    if (kept) kept.push(items);
    else parts.set(key, [items]);
  }

  /** The running job has begun: from now, it has its deadline. */
  private startDeadline(): void {
    if (this.running === null) return;
    clearTimeout(this.running.timer);
    this.running.timer = setTimeout(() => this.stop(new WorkTooCostly("deadline")), this.limits().deadlineMs);
  }

  /** Ends the running job (and the thread running it), with `error`. */
  private stop(error: Error): void {
    this.endThread();
    this.finish((pending) => pending.reject(error));
  }

  private endThread(): void {
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
  }

  private finish(settle: (pending: Pending<T>) => void): void {
    const running = this.running;
    if (running === null) return;
    clearTimeout(running.timer);
    this.running = null;
    settle(running.pending);
    this.next();
  }
}

/** An output with its lists sent ahead in parts put back. */
function withParts(output: Record<string, unknown>, parts: Map<string, unknown[][]> | undefined): unknown {
  if (!parts || parts.size === 0) return output;
  const whole = { ...output };
  for (const [key, list] of parts) whole[key] = list.flat();
  return whole;
}
