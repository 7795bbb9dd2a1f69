import type { Database } from "../../db/database";
import { inTransaction } from "../../db/transaction";
import { publishPostsDue } from "./post-repository";

/**
 * Publishes the events, venues and organizers scheduled (`future`) for a date that has come, as
 * WordPress's scheduler does. Safe to run from every instance at once: each run publishes what
 * is due, and finds nothing left when another got there first.
 */
export async function publishDueItems(
  db: Database,
  now: Date,
): Promise<{ events: number; venues: number; organizers: number }> {
  return inTransaction(db, async (tx) => {
    return publishPostsDue(tx, now);
  });
}
