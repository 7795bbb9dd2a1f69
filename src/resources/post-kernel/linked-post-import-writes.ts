import { inTransaction, type Tx } from "../../db/transaction";
import { ApiError, ParamProblems } from "../../http/errors";
import type { ImportedLinkedItemWriters, LinkedKind } from "../../services";
import type { LinkedPostRecord, LinkedPostStore } from "./linked-post-store";

/**
 * The venue, organizer and term writes of import sources (REST sources bring them as items of
 * their own): through each store, as its owner, by the rules every write follows. Wired by app.ts
 * (see ResourceBridges), so that imports import no store.
 */
export function importedLinkedItemWriters(
  stores: Record<LinkedKind, LinkedPostStore<LinkedPostRecord, never>>,
  terms: Pick<ImportedLinkedItemWriters, "term" | "nameTerm">,
): ImportedLinkedItemWriters {
  return {
    ...terms,
    async create(db, ctx, kind, input, also) {
      const store = stores[kind];
      return inTransaction(db, async (tx: Tx) => {
        const problems = new ParamProblems();
        const { id, made } = await store.placeByName(db, tx, ctx, input as never, problems);
        problems.throwIfAny();
        await also(tx, id!, made);
        return { id: id!, made };
      });
    },
    async usable(db, ctx, kind, id) {
      const record = await stores[kind].resolve(db, { id }, ctx);
      return record !== null && record.status !== "trash";
    },
    async update(db, ctx, kind, id, input) {
      const store = stores[kind];
      const record = await store.resolve(db, { id }, { language: ctx.language, defaultLanguage: ctx.defaultLanguage });
      if (record === null || record.status === "trash") return false;
      const target = {
        record,
        conditional: false,
        verify(current: LinkedPostRecord | null): asserts current is LinkedPostRecord {
          if (current === null)
            throw new ApiError(kind === "venue" ? "rest-venue-not-found" : "rest-organizer-not-found");
        },
      };
      await store.update(db, ctx, target, input as never);
      return true;
    },
  };
}
