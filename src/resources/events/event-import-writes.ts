import type { Database } from "../../db/database";
import { ApiError } from "../../http/errors";
import type { WriteTarget } from "../../http/operation-types";
import type { ImportedEventWriters, LinkedItemWriters } from "../../services";
import type { EventRecord } from "./event-record";
import { readCommittedEvent } from "./event-repository";
import { createEvent, removeEvent, updateEvent } from "./event-store";

/**
 * An event as an import writes it: no request, no precondition; an event deleted meanwhile is
 * `404` when the write finds it gone under its lock.
 */
async function storedTarget(db: Database, id: number): Promise<WriteTarget<EventRecord> | null> {
  const record = await readCommittedEvent(db, id);
  if (record === null) return null;
  return {
    record,
    conditional: false,
    verify(current): asserts current is EventRecord {
      if (current === null) throw new ApiError("rest-event-not-found");
    },
  };
}

/** The event writes of import sources, through the event store (wired by app.ts: see ResourceBridges). */
export function importedEventWriters(linked: LinkedItemWriters): ImportedEventWriters {
  return {
    async create(db, ctx, input, horizonDays, also) {
      return (await createEvent(db, ctx, input, undefined, { horizonDays }, linked, also)).id;
    },
    async update(db, ctx, id, input, horizonDays, also) {
      const target = await storedTarget(db, id);
      if (target === null) return false;
      await updateEvent(db, ctx, target, input, undefined, { horizonDays }, linked, also);
      return true;
    },
    async trash(db, now, id, also) {
      const target = await storedTarget(db, id);
      if (target === null || target.record.status === "trash") return;
      await removeEvent(db, now, target, false, also);
    },
  };
}
