import type { Database } from "../../db/database";
import type { Schemas } from "../../http/operation-types";
import type { ImportedLinkedItemWriters, LinkedKind } from "../../services";
import type { PostWriteContext } from "../post-kernel/post-fields";
import type { LinkedItemData, RestDetails } from "./feed-event";
import { digestOf, linkedItemWrite, namedLinkedItem } from "./import-mapping";
import { UnreadableFeed } from "./ical-reader";
import { linkedItemImportedAs, saveLineage, saveLinkedItemRow, writeImportRows } from "./import-repository";

/**
 * The venues and organizers a REST source's events show, as items of their own: each known here
 * by the global id it was first made under (the last of its lineage), whichever source or path
 * brought it, with a digest of what the source last said of it. An item first seen is found by
 * its name (as an event write finds one) or made, and keeps its lineage; one whose data changed
 * there is written here once. The events then link them by id, so that an event's digest does not
 * change when only its venue does. An item the source gives no global id of stays data, found or
 * made by its name as the event is written.
 */
export class LinkedItems {
  /** Per run: each item's id once it is placed, each term's by its taxonomy and name. */
  private readonly placed = new Map<string, number>();
  private readonly terms = new Map<string, number>();

  /**
   * `limit`: the most venues, organizers and terms one run may place (IMPORT_MAX_EVENTS): a source
   * whose every event shows twenty new organizers and a hundred new tags would make them by the
   * hundred thousand; past the limit, the run fails.
   */
  constructor(
    private readonly db: Database,
    private readonly writers: ImportedLinkedItemWriters,
    private readonly ctx: PostWriteContext,
    private readonly limit: number,
  ) {}

  private spend(): void {
    if (this.placed.size + this.terms.size >= this.limit)
      throw new UnreadableFeed(
        `the source's events show more than ${this.limit} venues, organizers, categories and tags (IMPORT_MAX_EVENTS)`,
      );
  }

  /**
   * The event write with its venue and organizers given by id (those with a lineage), and its
   * categories and tags by id (a name of digits alone is a name).
   */
  async linkedIn(rest: RestDetails, write: Schemas["CreateEventRequest"]): Promise<Schemas["CreateEventRequest"]> {
    const linked = { ...write };
    for (const [param, taxonomy] of [
      ["categories", "category"],
      ["tags", "tag"],
    ] as const) {
      const refs = write[param];
      if (Array.isArray(refs)) linked[param] = await this.termIds(taxonomy, refs);
    }
    if (rest.venue && rest.venue.lineage.length > 0 && !Array.isArray(write.venue))
      linked.venue = [await this.place("venue", rest.venue)];
    if (Array.isArray(write.organizer)) {
      // The organizers the write gives, in its order (those with a name).
      const given = rest.organizers.filter((organizer) => namedLinkedItem(organizer, "organizer"));
      const organizers: Array<(typeof write.organizer)[number] | number> = [];
      // One after the other: the same organizer twice is placed once.
      for (const [at, organizer] of write.organizer.entries())
        organizers.push(given[at]?.lineage.length ? await this.place("organizer", given[at]) : organizer);
      linked.organizer = organizers;
    }
    return linked;
  }

  /** A venue or organizer changed at the source (its list of changes): written here when it is one brought here. */
  async changed(kind: LinkedKind, item: LinkedItemData): Promise<void> {
    if (item.lineage.length > 0) await this.place(kind, item, { knownOnly: true });
  }

  private async termIds(taxonomy: "category" | "tag", refs: Array<number | string>): Promise<number[]> {
    const key = (name: string) => JSON.stringify([taxonomy, name]);
    const names = refs.filter((ref): ref is string => typeof ref === "string");
    // One at a time: names that are one term ("Jazz", "jazz") are one id.
    for (const name of new Set(names.filter((name) => !this.terms.has(key(name))))) {
      this.spend();
      this.terms.set(key(name), (await this.writers.termIds(this.db, this.ctx, taxonomy, [name]))[0]);
    }
    return [...new Set(refs.map((ref) => (typeof ref === "number" ? ref : this.terms.get(key(ref))!)))];
  }

  /** The item's id here, written or made as the source says it (`knownOnly`: null for an item not brought here yet). */
  private async place(kind: LinkedKind, item: LinkedItemData): Promise<number>;
  private async place(kind: LinkedKind, item: LinkedItemData, only: { knownOnly: true }): Promise<number | null>;
  private async place(kind: LinkedKind, item: LinkedItemData, { knownOnly = false } = {}): Promise<number | null> {
    const origin = item.lineage[item.lineage.length - 1];
    const key = JSON.stringify([kind, origin]);
    const placed = this.placed.get(key);
    if (placed !== undefined) return placed;
    const known = await linkedItemImportedAs(this.db, kind, origin);
    if (known === null && knownOnly) return null;
    this.spend();
    const data = linkedItemWrite(item);
    const digest = digestOf(data as never, this.ctx.language);
    const ctx = { ...this.ctx, type: kind === "venue" ? "venues" : "organizers" } as const;
    let id: number | null = null;
    if (known !== null && known.digest === digest) id = known.itemId;
    else if (known !== null && (await this.writers.update(this.db, ctx, kind, known.itemId, data))) {
      id = known.itemId;
      await writeImportRows(this.db, (tx) => saveLinkedItemRow(tx, { kind, origin, itemId: known.itemId, digest }));
    }
    id ??= await this.writers.create(this.db, ctx, kind, data, async (tx, made) => {
      await saveLinkedItemRow(tx, { kind, origin, itemId: made, digest });
      await saveLineage(tx, kind === "venue" ? "Venue" : "Organizer", made, item.lineage);
    });
    this.placed.set(key, id);
    return id;
  }
}
