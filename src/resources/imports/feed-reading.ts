import { BoundedWork, WorkFailed, WorkTooCostly, type WorkLimits } from "../../work/bounded-work";
import type { FeedReading, FeedText } from "./feed-event";
import { UnreadableFeed } from "./ical-reader";

/**
 * A feed is read in the work thread (src/work/bounded-work.ts), never on the event loop: its
 * parsing, its VTIMEZONEs, its date lists and its VEVENTs cost what the feed's owner makes them
 * cost, and the administrator who added the source chose none of it. A reading past its deadline
 * or its heap (IMPORT_READ_DEADLINE_MS, IMPORT_READ_MEMORY_MB) fails the run, and the process
 * goes on. Sources take turns.
 */

let limits: WorkLimits = { deadlineMs: 10_000, memoryMb: 256 };
const readings = new BoundedWork("read-feed", () => limits, { threadPerJob: true });

export async function readFeedBounded(input: FeedText, source: number, bounds: WorkLimits): Promise<FeedReading> {
  // The heap is fixed when a thread starts; every run of a process has the same settings.
  limits = bounds;
  try {
    return await readings.run(input, `source:${source}`);
  } catch (error) {
    if (error instanceof WorkTooCostly)
      throw new UnreadableFeed(
        error.bound === "deadline"
          ? `reading the feed took longer than ${bounds.deadlineMs} ms (IMPORT_READ_DEADLINE_MS)`
          : `reading the feed needed more than ${bounds.memoryMb} MB (IMPORT_READ_MEMORY_MB)`,
      );
    if (error instanceof WorkFailed && error.kind === "UnreadableFeed") throw new UnreadableFeed(error.message);
    throw error;
  }
}
