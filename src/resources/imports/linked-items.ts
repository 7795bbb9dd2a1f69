import type { Database } from "../../db/database";
import { ApiError } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import type { ImportedLinkedItemWriters, LinkedKind } from "../../services";
import type { PostWriteContext } from "../post-kernel/post-fields";
import type { LinkedItemData, RemoteTerm, RestDetails } from "./feed-event";
import { digestOf, linkedItemWrite, namedLinkedItem, termNameOf, type SourceDefaults } from "./import-mapping";
import { UnreadableFeed } from "./ical-reader";
import { saveLineage } from "./import-repository";
import { existingTermIds } from "../terms/term-repository";
import type { Provenance } from "./provenance";

/**
 * The venues, organizers, categories and tags a REST source's events show, as items of their own,
 * each placed once per site by the global id it was first made under (the last of its lineage; a
 * term by its id there), whatever source of the site, or language, brings it (provenance.ts):
 *
 * - one first seen is found by its name, as an event write finds one, or made; only one the
 *   site's sources made is theirs: its changes there are written here, once, and its lineage kept
 *   (a term's name in another language is written as its translation). One found by its name was
 *   made here or brought by another site: it is linked, and never written;
 * - one another site brought first, by the same origin, is linked and never written.
 *
 * The events then link them by id, so that an event's digest does not change when only its venue
 * does. An item the source gives no global id of stays data, found or made by its name as the
 * event is written.
 */
export class LinkedItems {
  /** Per run: each item's id once it is placed, by kind and origin (a term's by its name when it has no id there). */
  private readonly placed = new Map<string, number>();

  /**
   * `limit`: the most venues, organizers and terms one run may place (IMPORT_MAX_EVENTS): a source
   * whose every event shows twenty new organizers and a hundred new tags would make them by the
   * hundred thousand; past the limit, the run fails.
   */
  constructor(
    private readonly db: Database,
    private readonly writers: ImportedLinkedItemWriters,
    private readonly ctx: PostWriteContext,
    private readonly provenance: Provenance,
    private readonly defaults: SourceDefaults,
    private readonly limit: number,
  ) {}

  private spend(): void {
    if (this.placed.size >= this.limit)
      throw new UnreadableFeed(
        `the source's events show more than ${this.limit} venues, organizers, categories and tags (IMPORT_MAX_EVENTS)`,
      );
  }

  /**
   * The event write with its venue and organizers given by id (those with a lineage), and its
   * categories and tags by id.
   */
  async linkedIn(rest: RestDetails, write: Schemas["CreateEventRequest"]): Promise<Schemas["CreateEventRequest"]> {
    const linked = { ...write };
    for (const [param, taxonomy, defaults] of [
      ["categories", "category", this.defaults.categoryIds],
      ["tags", "tag", this.defaults.tagIds],
    ] as const) {
      const given = write[param];
      const refs: unknown[] = Array.isArray(given) ? given : [];
      const names = refs.filter((ref): ref is string => typeof ref === "string");
      linked[param] = [...new Set([...defaults, ...(await this.termIds(taxonomy, rest[param], names))])];
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

  /** A venue or organizer changed at the source (its list of changes): written here when it is one the site's sources made. */
  async changed(kind: LinkedKind, item: LinkedItemData): Promise<void> {
    if (item.lineage.length === 0) return;
    const origin = item.lineage[item.lineage.length - 1];
    const known = await this.provenance.arrival(kind, origin);
    if (known?.owned) await this.keepInStep(kind, origin, known, item);
  }

  /** The ids of the write's term names (`names`, as the write took them), by their ids at the source where it gives them. */
  private async termIds(taxonomy: "category" | "tag", terms: RemoteTerm[], names: string[]): Promise<number[]> {
    const ids: number[] = [];
    const wanted = new Set(names);
    for (const term of terms) {
      const name = termNameOf(term.name);
      if (!wanted.delete(name)) continue;
      ids.push(await this.termId(taxonomy, term.id, name));
    }
    // Names the source gave without an id (an iCalendar category, a term of a site that gives none).
    for (const name of wanted) ids.push(await this.termId(taxonomy, null, name));
    return ids;
  }

  /** A term's id here: by its id at the source where the site's sources placed it before, else found or made by its name. */
  private async termId(taxonomy: "category" | "tag", remoteId: string | null, name: string): Promise<number> {
    const key = JSON.stringify([taxonomy, remoteId ?? `name:${name}`]);
    const placed = this.placed.get(key);
    if (placed !== undefined) return placed;
    this.spend();
    const digest = digestOf({ title: name }, this.ctx.language);
    const arrival = remoteId === null ? null : await this.provenance.arrival(taxonomy, remoteId);
    // One deleted here is found or made again by its name, as an event write does.
    const known = arrival && (await existingTermIds(this.db, taxonomy, [arrival.itemId])).length > 0 ? arrival : null;
    let id = known?.itemId ?? null;
    if (known?.owned && known.digest !== digest) await this.translate(taxonomy, remoteId!, known.itemId, name, digest);
    if (id === null) {
      const found = await this.writers.term(this.db, this.ctx, taxonomy, name);
      id = found.id;
      if (remoteId !== null)
        await this.db.transact((tx) => this.provenance.placed(tx, taxonomy, remoteId, found.id, found.made, digest));
    }
    this.placed.set(key, id);
    return id;
  }

  /**
   * Its name in this source's language, of a term the site's sources made (a translation). A name
   * another term has here already is left: the term keeps the name it has, and the next run tries again.
   */
  private async translate(taxonomy: "category" | "tag", remoteId: string, id: number, name: string, digest: string) {
    try {
      if (await this.writers.nameTerm(this.db, this.ctx, taxonomy, id, name))
        await this.db.transact((tx) => this.provenance.wrote(tx, taxonomy, remoteId, digest));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "term_exists")) throw error;
    }
  }

  /** Writes what the source says of an item its site's sources made, when it changed (in this source's language). */
  private async keepInStep(
    kind: LinkedKind,
    origin: string,
    known: { itemId: number; digest: string },
    item: LinkedItemData,
  ): Promise<boolean> {
    const data = linkedItemWrite(item);
    const digest = digestOf(data as never, this.ctx.language);
    if (known.digest === digest) return true;
    if (!(await this.writers.update(this.db, this.contextOf(kind), kind, known.itemId, data))) return false;
    await this.db.transact((tx) => this.provenance.wrote(tx, kind, origin, digest));
    return true;
  }

  private contextOf(kind: LinkedKind): PostWriteContext {
    return { ...this.ctx, type: kind === "venue" ? "venues" : "organizers" };
  }

  /** The item's id here: the one this site's sources placed (kept in step when they made it), another site's, or one found or made by its name. */
  private async place(kind: LinkedKind, item: LinkedItemData): Promise<number> {
    const origin = item.lineage[item.lineage.length - 1];
    const key = JSON.stringify([kind, origin]);
    const placed = this.placed.get(key);
    if (placed !== undefined) return placed;
    this.spend();
    const known = await this.provenance.arrival(kind, origin);
    // One gone or in the trash here is found or made again, as an event write finds or makes one.
    const kept =
      known === null
        ? false
        : known.owned
          ? await this.keepInStep(kind, origin, known, item)
          : await this.writers.usable(this.db, this.contextOf(kind), kind, known.itemId);
    let id = kept ? known!.itemId : null;
    if (id === null) {
      const data = linkedItemWrite(item);
      const digest = digestOf(data as never, this.ctx.language);
      const found = await this.writers.create(this.db, this.contextOf(kind), kind, data, async (tx, placed, made) => {
        await this.provenance.placed(tx, kind, origin, placed, made, digest);
        if (made) await saveLineage(tx, kind === "venue" ? "Venue" : "Organizer", placed, item.lineage);
      });
      id = found.id;
    }
    this.placed.set(key, id);
    return id;
  }
}
