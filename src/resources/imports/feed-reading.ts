import { BoundedWork, WorkFailed, WorkTooCostly, type WorkLimits } from "../../work/bounded-work";
import type { TaskInput, TaskName, TaskOutput } from "../../work/work-thread";
import type { FeedEvent, FeedProblem, FeedReading, FeedText, LinkedItemData } from "./feed-event";
import { UnreadableFeed } from "./ical-reader";
import type { LinkedItemPage, RestIdPage, RestPage, RestPageText } from "./rest-reader";

/**
 * A source's answer is read in the work thread (src/work/bounded-work.ts), never on the event
 * loop: a feed's parsing, its VTIMEZONEs, its date lists and its VEVENTs, a REST API's JSON, cost
 * what the source's owner makes them cost, and the administrator who added the source chose none
 * of it. A reading past its deadline or its heap (IMPORT_READ_DEADLINE_MS, IMPORT_READ_MEMORY_MB)
 * fails the run, and the process goes on. Sources take turns.
 */

let limits: WorkLimits = { deadlineMs: 60_000, memoryMb: 256 };
const readings = {
  "read-feed": new BoundedWork("read-feed", () => limits, { threadPerJob: true }),
  // A REST source is read page after page: one thread for them all.
  "read-rest": new BoundedWork("read-rest", () => limits),
};

type Reading = keyof typeof readings;

async function readBounded<T extends Reading & TaskName>(
  task: T,
  input: TaskInput<T>,
  source: number,
  bounds: WorkLimits,
): Promise<TaskOutput<T>> {
  // The heap is fixed when a thread starts; every run of a process has the same settings.
  limits = bounds;
  try {
    return (await (readings[task] as unknown as BoundedWork<T>).run(input, `source:${source}`)) as TaskOutput<T>;
  } catch (error) {
    if (error instanceof WorkTooCostly)
      throw new UnreadableFeed(
        error.bound === "deadline"
          ? `reading the source's answer took longer than ${bounds.deadlineMs} ms (IMPORT_READ_DEADLINE_MS)`
          : `reading the source's answer needed more than ${bounds.memoryMb} MB (IMPORT_READ_MEMORY_MB)`,
      );
    if (error instanceof WorkFailed && (error.kind === "UnreadableFeed" || error.kind === "UnreadableRestPage"))
      throw new UnreadableFeed(error.message);
    throw error;
  }
}

export function readFeedBounded(input: FeedText, source: number, bounds: WorkLimits): Promise<FeedReading> {
  return readBounded("read-feed", input, source, bounds);
}

export async function readRestPageBounded(input: RestPageText, source: number, bounds: WorkLimits): Promise<RestPage> {
  return (await readBounded("read-rest", { ...input, shape: "list" }, source, bounds)) as RestPage;
}

export async function readRestEventBounded(
  input: RestPageText,
  source: number,
  bounds: WorkLimits,
): Promise<FeedEvent | FeedProblem> {
  return (await readBounded("read-rest", { ...input, shape: "event" }, source, bounds)) as FeedEvent | FeedProblem;
}

export async function readRestIdsBounded(input: RestPageText, source: number, bounds: WorkLimits): Promise<RestIdPage> {
  return (await readBounded("read-rest", { ...input, shape: "ids" }, source, bounds)) as RestIdPage;
}

export async function readLinkedItemsBounded(
  input: RestPageText,
  key: "venues" | "organizers",
  source: number,
  bounds: WorkLimits,
): Promise<LinkedItemPage> {
  return (await readBounded("read-rest", { ...input, shape: key }, source, bounds)) as LinkedItemPage;
}

export async function readLinkedItemBounded(
  input: RestPageText,
  kind: "venue" | "organizer",
  source: number,
  bounds: WorkLimits,
): Promise<LinkedItemData | null> {
  return (await readBounded("read-rest", { ...input, shape: kind }, source, bounds)) as LinkedItemData | null;
}
