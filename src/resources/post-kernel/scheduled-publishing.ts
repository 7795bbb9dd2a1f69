import type { Database } from "../../db/database";
import { inTransaction } from "../../db/transaction";

/**
 * Publishes the events, venues and organizers scheduled (`future`) for a date that has come, as
 * WordPress's scheduler does. Safe to run from every instance at once: each run publishes what
 * is due, and finds nothing left when another got there first.
 */
export async function publishDueItems(db: Database, now: Date): Promise<{ events: number; venues: number; organizers: number }> {
  return inTransaction(db, async (tx) => {
    const due = { status: "future", postDate: { lte: now } };
    // Publishing is a write of the item (its status changes), so it counts in its version.
    const data = { status: "publish", version: { increment: 1 } };
    const events = await tx.event.updateMany({ where: due, data });
    const venues = await tx.venue.updateMany({ where: due, data });
    const organizers = await tx.organizer.updateMany({ where: due, data });
    return { events: events.count, venues: venues.count, organizers: organizers.count };
  });
}
