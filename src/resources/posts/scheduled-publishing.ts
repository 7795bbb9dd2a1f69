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
    const events = await tx.event.updateMany({ where: due, data: { status: "publish" } });
    const venues = await tx.venue.updateMany({ where: due, data: { status: "publish" } });
    const organizers = await tx.organizer.updateMany({ where: due, data: { status: "publish" } });
    return { events: events.count, venues: venues.count, organizers: organizers.count };
  });
}
