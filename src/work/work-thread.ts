import { parentPort } from "node:worker_threads";

/**
 * The work thread's side of bounded-work.ts: it takes one job at a time, says when it has begun
 * (the deadline counts from there, not from the thread's start or from loading the task's
 * modules), and answers with the output or the error. The task modules are loaded when a job
 * first needs them, so that each thread holds only its own kind of work.
 */

const TASKS = {
  "expand-rule": () =>
    (require("../resources/events/rule-walk") as typeof import("../resources/events/rule-walk")).walkRule,
  "read-feed": () =>
    (require("../resources/imports/ical-reader") as typeof import("../resources/imports/ical-reader")).readFeed,
  "read-rest": () =>
    (require("../resources/imports/rest-reader") as typeof import("../resources/imports/rest-reader")).readRest,
};

export type TaskName = keyof typeof TASKS;
type TaskFunction<T extends TaskName> = ReturnType<(typeof TASKS)[T]>;
export type TaskInput<T extends TaskName> = Parameters<TaskFunction<T>>[0];
export type TaskOutput<T extends TaskName> = Awaited<ReturnType<TaskFunction<T>>>;

/** Items of an output's list sent in one message. */
const ITEMS_PER_MESSAGE = 500;

/**
 * Sends an output; its long lists (a feed's thousands of events) go ahead in parts, each its own
 * message: the service's thread reads each between other work, where one message of them all
 * held it for a fifth of a second.
 */
function sendOutput(output: unknown): void {
  if (output === null || typeof output !== "object" || Array.isArray(output)) {
    parentPort!.postMessage({ output });
    return;
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(output)) {
    if (!Array.isArray(value) || value.length <= ITEMS_PER_MESSAGE) {
      rest[key] = value;
      continue;
    }
    rest[key] = [];
    for (let at = 0; at < value.length; at += ITEMS_PER_MESSAGE)
      parentPort!.postMessage({ part: { key, items: value.slice(at, at + ITEMS_PER_MESSAGE) } });
  }
  parentPort!.postMessage({ output: rest });
}

parentPort?.on("message", ({ task, input }: { task: TaskName; input: never }) => {
  // The task's modules are loaded before the job is said to begin: loading is not the job's cost.
  const run = TASKS[task]() as (input: never) => unknown;
  parentPort!.postMessage({ started: true });
  Promise.resolve()
    .then(() => run(input))
    .then(sendOutput, (error: Error) =>
      parentPort!.postMessage({ error: String(error?.message ?? error), kind: error?.name ?? "Error" }),
    );
});
