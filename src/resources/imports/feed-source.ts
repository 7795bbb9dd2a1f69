import { fetchFeed } from "./feed-fetch";
import { readFeedBounded } from "./feed-reading";
import type { SourceReader } from "./source-reader";

/**
 * An iCalendar feed as a source: fetched conditionally (the last feed's validators sent back: an
 * unchanged feed costs one `304`), read in the work thread, every VEVENT of it a full pass. A feed
 * some of whose events failed is read again in full next time: they are tried again.
 */
export function feedReader(url: string): SourceReader {
  return {
    site: null,
    rest: false,
    itemsPerRequest: Number.MAX_SAFE_INTEGER,
    async read({ config, source, budget }) {
      // The feed is the run's one request: it has the run's whole time.
      budget.requestTime();
      const answer = await fetchFeed(
        url,
        { etag: source.etag, lastModified: source.lastModified },
        {
          timeoutMs: config.imports.timeoutMs,
          maxBytes: budget.bytes,
          allowPrivate: config.imports.allowPrivateSources,
          signal: budget.stopping,
        },
      );
      const nothing = { events: [], complete: false, deleted: new Set<string>(), linked: [] };
      if (answer.notModified) return { fetched: "not_modified", ...nothing, resume: () => ({}) };
      budget.spendBytes(Buffer.byteLength(answer.text));
      const reading = await readFeedBounded(
        { text: answer.text, siteZone: config.siteTimezone, maxEvents: config.imports.maxEvents },
        source.id,
        { deadlineMs: config.imports.readDeadlineMs, memoryMb: config.imports.readMemoryMb },
      );
      budget.spendItems(reading.events.length + reading.problems.length);
      budget.failMany(reading.problems, reading.problems.length);
      budget.spendDates(
        reading.events.reduce(
          (sum, event) => sum + (event.recurrence?.rdate.length ?? 0) + (event.recurrence?.exdate.length ?? 0),
          0,
        ),
      );
      return {
        fetched: "fetched",
        ...nothing,
        events: reading.events,
        complete: true,
        resume: (allTaken) =>
          allTaken ? { etag: answer.etag, lastModified: answer.lastModified } : { etag: null, lastModified: null },
      };
    },
  };
}
