import type { Database } from "../../db/database";
import { inTransaction } from "../../db/transaction";
import { publishPostsDue } from "./post-repository";

/**
 * How many items one transaction publishes. A backlog (a restored backup, an import, a service
 * stopped for days) is published in such turns: as one transaction, 30,000 events at 1,000,000
 * outlived the statement limit every minute, each time holding the rows of their categories'
 * counts, so that every write linking one of them waited up to 30 s.
 */
const PUBLISH_BATCH = 200;

/**
 * Publishes the events, venues and organizers scheduled (`future`) for a date that has come, as
 * WordPress's scheduler does. Safe to run from every instance at once: each run publishes what
 * is due, and finds nothing left when another got there first.
 */
export async function publishDueItems(
  db: Database,
  now: Date,
): Promise<{ events: number; venues: number; organizers: number }> {
  const published = { events: 0, venues: 0, organizers: 0 };
  for (const [key, table] of [
    ["events", "Event"],
    ["venues", "Venue"],
    ["organizers", "Organizer"],
  ] as const) {
    for (;;) {
      const count = await inTransaction(db, (tx) => publishPostsDue(tx, table, now, PUBLISH_BATCH));
      published[key] += count;
      if (count < PUBLISH_BATCH) break;
    }
  }
  return published;
}
