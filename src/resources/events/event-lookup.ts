import type { Principal } from "../../auth/principal";
import { canReadItem } from "../../auth/visibility";
import type { Database } from "../../db/database";

/** Whether an event exists and the caller may read it (for filters that name an event). */
export async function isReadableEvent(db: Database, id: number, principal: Principal | null): Promise<boolean> {
  const event = await db.read.event.findUnique({ where: { id }, select: { status: true, authorId: true } });
  return event !== null && canReadItem(principal, "events", event);
}
