import type { ImportSource } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import type { Tx } from "../../db/transaction";
import {
  eventsHeldBy,
  originRow,
  ownedOfScope,
  saveOriginDigest,
  saveOriginRow,
  sourceRows,
  type OriginRow,
} from "./import-repository";

/**
 * The one rule of what a source may write (issue 57), for every kind of item a run touches: a
 * source writes only what its site brought. A remote site's global ids and lineage are its claims,
 * scoped to it: they find what that site's sources brought before (another source of the same
 * site, or the same source deleted and added again), never an item another site brought or one
 * made here.
 *
 * - The scope of a REST source is its site (rest-source.ts `RestApi.site`); an iCalendar feed's
 *   items are its own, by its UIDs (no scope).
 * - An item that another site brought first, by the same origin (the same event reaching this site
 *   by two paths), is linked, once, and never written, re-addressed or trashed by this source.
 * - A venue, organizer, category or tag found here by its name (as an event write finds one) is
 *   linked and never written either: only what the site's sources made is theirs to keep in step.
 * - Of the active sources of one site, the one with the lowest id among those of a language that
 *   list an event writes it in that language: two sources of one site with different settings do
 *   not write each other's values back and forth, and a change there is written once. An event
 *   leaves this site only when it has left every source of its site.
 */

export type OriginKind = "event" | "venue" | "organizer" | "category" | "tag";

/** An item found by its origin: its id here, whether this source's site keeps it, and what it last wrote of it in the run's language. */
export interface Arrival {
  itemId: number;
  owned: boolean;
  digest: string;
}

export class Provenance {
  private constructor(
    private readonly db: Database,
    private readonly source: ImportSource,
    /** The site of the source (null: an iCalendar feed, whose items are its own). */
    readonly scope: string | null,
    /** The other sources of the site. */
    private readonly siblings: ImportSource[],
    /** The events the site's sources made. */
    private readonly owned: Set<number>,
    /** The events a source of the site before this one, of its language, writes. */
    private readonly writtenByAnother: Set<number>,
  ) {}

  static async of(db: Database, source: ImportSource, siteOf: (url: string) => string | null): Promise<Provenance> {
    const scope = siteOf(source.url);
    if (scope === null) return new Provenance(db, source, null, [], new Set(), new Set());
    const siblings = (await sourceRows(db)).filter((other) => other.id !== source.id && siteOf(other.url) === scope);
    // A paused source leaves the writing to the next one until it runs again.
    const before = siblings.filter(
      (other) => other.active && other.id < source.id && other.language === source.language,
    );
    return new Provenance(
      db,
      source,
      scope,
      siblings,
      await ownedOfScope(db, scope, "event"),
      await eventsHeldBy(
        db,
        before.map((other) => other.id),
      ),
    );
  }

  private get language(): string {
    return this.source.language;
  }

  /** Whether this source writes the event (else it only links to it). */
  writes(eventId: number): boolean {
    return this.scope === null || (this.owned.has(eventId) && !this.writtenByAnother.has(eventId));
  }

  /** Whether an event that left this source may leave this site: no other source of its site lists it. */
  async mayRemove(eventId: number): Promise<boolean> {
    if (this.siblings.length === 0) return true;
    const held = await eventsHeldBy(
      this.db,
      this.siblings.map((other) => other.id),
    );
    return !held.has(eventId);
  }

  /**
   * The item of `kind` first made as `origin` that is here already: the one this site's sources
   * made or linked (a row of no known scope is taken as theirs), or, by a global id, the one
   * another site brought (linked, never written); null when it is new here.
   */
  async arrival(kind: OriginKind, origin: string): Promise<Arrival | null> {
    if (this.scope === null) return null;
    // A term's origin is its id there, which names another term on another site.
    const globalId = kind !== "category" && kind !== "tag";
    const row = await originRow(this.db, this.scope, kind, origin, globalId);
    if (row === null) return null;
    if (row.scope === "") {
      await this.db.transact((tx) => saveOriginRow(tx, { ...row, scope: this.scope! }, row));
      row.scope = this.scope;
    }
    const ours = row.scope === this.scope;
    if (ours && row.owned && kind === "event") this.owned.add(row.itemId);
    return { itemId: row.itemId, owned: ours && row.owned, digest: ours ? (row.digests[this.language] ?? "") : "" };
  }

  /** Records an item this site's source placed here: made by it (`owned`), or found here by its name. */
  async placed(tx: Tx, kind: OriginKind, origin: string, itemId: number, owned: boolean, digest: string) {
    if (this.scope === null) return;
    const row: OriginRow = { scope: this.scope, kind, origin, itemId, owned, digests: { [this.language]: digest } };
    await saveOriginRow(tx, row);
    if (owned && kind === "event") this.owned.add(itemId);
  }

  /** Records what this source wrote of an item of its site, in its language ("removed": moved to the trash). */
  async wrote(tx: Tx, kind: OriginKind, origin: string | null | undefined, digest: string): Promise<void> {
    if (this.scope === null || !origin) return;
    await saveOriginDigest(tx, { scope: this.scope, kind, origin }, this.language, digest);
  }
}
