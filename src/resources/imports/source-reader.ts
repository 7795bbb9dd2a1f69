import type { ImportSource } from "../../../generated/prisma/sqlite/client";
import type { Config } from "../../config";
import type { LinkedKind } from "../../services";
import type { FeedEvent, LinkedItemData } from "./feed-event";
import type { RunBudget } from "./run-budget";

/**
 * What a run asks of a kind of source (an iCalendar feed: feed-source.ts; another site's REST
 * API: rest-source.ts): to read it within the run's budget, and to say what it read. What becomes
 * of what it read (the writes, and which of them this source may make) is the run's, the same for
 * every kind (in-step.ts, provenance.ts).
 */

/** Where the next run takes up from: a feed's validators, a REST source's cursor (absent: unchanged). */
export interface SourceResume {
  etag?: string | null;
  lastModified?: string | null;
  cursor?: string | null;
}

export interface SourceReading {
  fetched: "fetched" | "not_modified";
  events: FeedEvent[];
  /** A full pass: `events` is every event of the source, and those it does not give left it. */
  complete: boolean;
  /** Of a pass through the changes: the ids (at the source) of the events deleted or no longer listed. */
  deleted: Set<string>;
  /** Of a REST source: its venues and organizers changed there (an event that shows one is not changed by it). */
  linked: Array<{ kind: LinkedKind; item: LinkedItemData }>;
  /** Where the next run takes up from, whether every event this one read was taken (else it reads in full again). */
  resume(allTaken: boolean): SourceResume;
  /**
   * Of a REST source, an imported event (its id there) that left its lists: the event as the
   * source shows it when it is still there, only hidden from its lists; null when it is gone.
   */
  stillHidden?(uid: string): Promise<FeedEvent | null>;
}

export interface ReadContext {
  config: Config;
  source: ImportSource;
  budget: RunBudget;
  /** The events (their ids at the source) earlier runs imported and that are still here. */
  imported: Set<string>;
}

export interface SourceReader {
  /**
   * The site the source reads, whose sources' items are one scope (provenance.ts); null: an
   * iCalendar feed, whose items are its own.
   */
  site: string | null;
  /** Its events are items of a site: lineage, venues and organizers as items, lists of what is to come. */
  rest: boolean;
  /** The most items one request brings (a page), for the run's count of requests. */
  itemsPerRequest: number;
  read(context: ReadContext): Promise<SourceReading>;
}
