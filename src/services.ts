import type { EventPasswords } from "./auth/event-passwords";
import type { Config } from "./config";
import type { Database } from "./db/database";
import type { Tx } from "./db/transaction";
import type { ParamProblems } from "./http/errors";
import type { Schemas } from "./http/operation-types";
import type { RequestContext } from "./http/request-context";
import type { Logger } from "./logging/logger";
import type { Metrics } from "./metrics/metrics";
import type { RepresentationCache } from "./sync/representation-cache";
import type { SyncTokens } from "./sync/sync-token";
import type { PostWriteContext } from "./resources/post-kernel/post-fields";

/** What else a write's transaction does, with the written item's id, before it commits. */
export type AlsoInTransaction = (tx: Tx, id: number) => Promise<void>;

/** What handlers are built with: one of each per app. */
export interface Services {
  config: Config;
  db: Database;
  logger: Logger;
  /** The current time. Tests give a fixed one, to pin date windows and relative dates. */
  clock: () => Date;
  /** Hashing and checking event passwords (one salt for the site, one derivation per request). */
  eventPasswords: EventPasswords;
  /** Making and reading the signed tokens of incremental sync. */
  syncTokens: SyncTokens;
  /** Representations for anonymous readers, kept until what they show changes. */
  representations: RepresentationCache;
  /** What resources need of one another, wired in app.ts (see ResourceBridges). */
  bridges: ResourceBridges;
  /** What /metrics shows. */
  metrics: Metrics;
}

/**
 * What a resource needs of another's rules, given to it as functions, so that no resource imports
 * another's store (a resource imports another's repository or record only) and the folders do not
 * import each other in a circle. app.ts wires them.
 */
export interface ResourceBridges {
  /**
   * The id of the event a filter of another resource names (`event` of venues and organizers,
   * `post`/`event` of terms), when the caller may see what it links to; else `400` naming `param`.
   */
  eventFilterOf(db: Database, id: number, param: string, ctx: RequestContext): Promise<number>;
  /** What an event write needs to link to items it gives as data or names: see LinkedItemWriters. */
  linkedItems: LinkedItemWriters;
  /** The event writes of import sources (resources/imports/). */
  importedEvents: ImportedEventWriters;
  /** The venue and organizer writes of REST import sources. */
  importedLinkedItems: ImportedLinkedItemWriters;
}

export type LinkedKind = "venue" | "organizer";

/** Writing the venues, organizers and terms a REST source brings (resources/imports/), as its owner. */
export interface ImportedLinkedItemWriters {
  /**
   * The venue or organizer of this data: the writer's same-named one (`made` false), or a new one.
   * `also` runs in its transaction. Throws ApiError or InvalidParamsError when refused.
   */
  create(
    db: Database,
    ctx: PostWriteContext,
    kind: LinkedKind,
    input: Record<string, unknown>,
    also: (tx: Tx, id: number, made: boolean) => Promise<void>,
  ): Promise<{ id: number; made: boolean }>;
  /** Whether the item is here, out of the trash (an import may link to it). */
  usable(db: Database, ctx: PostWriteContext, kind: LinkedKind, id: number): Promise<boolean>;
  /** Writes the data to the item; false when it is gone or in the trash. */
  update(
    db: Database,
    ctx: PostWriteContext,
    kind: LinkedKind,
    id: number,
    input: Record<string, unknown>,
  ): Promise<boolean>;
  /**
   * The term of this name (or slug), made when missing, and whether it was made: a name of digits
   * alone is a name here, where an event write would read it as an id.
   */
  term(
    db: Database,
    ctx: PostWriteContext,
    taxonomy: "category" | "tag",
    name: string,
  ): Promise<{ id: number; made: boolean }>;
  /** Names a term in the context's language (a translation); false when it is gone. Throws when another term has the name. */
  nameTerm(
    db: Database,
    ctx: PostWriteContext,
    taxonomy: "category" | "tag",
    id: number,
    name: string,
  ): Promise<boolean>;
}

/**
 * Writing the events of an import source, as its owner, by the rules every event write follows
 * (the event store's): what a run of a source (resources/imports/) may do to events.
 */
export interface ImportedEventWriters {
  /** Creates an event; its id. Throws ApiError when the input is refused. `also` runs in the write's transaction. */
  create(
    db: Database,
    ctx: PostWriteContext,
    input: Schemas["CreateEventRequest"],
    horizonDays: number,
    also: AlsoInTransaction,
  ): Promise<number>;
  /** Writes what the input gives of an event; false when the event is gone. Throws ApiError when refused. */
  update(
    db: Database,
    ctx: PostWriteContext,
    id: number,
    input: Schemas["EventFields"],
    horizonDays: number,
    also: AlsoInTransaction,
  ): Promise<boolean>;
  /** Moves an event (a series with its occurrences) to the trash, unless it is there or gone. */
  trash(db: Database, now: Date, id: number, also: AlsoInTransaction): Promise<void>;
}

/** Finding or creating, in an event write's transaction, the items it links to. */
export interface LinkedItemWriters {
  /** The id of the venue a write gives as data: the writer's same-named one, or a new one (null: refused, a problem added). */
  venue(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    input: Schemas["CreateVenueRequest"],
    problems: ParamProblems,
  ): Promise<number | null>;
  /** The same for an organizer. */
  organizer(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    input: Schemas["CreateOrganizerRequest"],
    problems: ParamProblems,
  ): Promise<number | null>;
  /** The ids of the terms of `taxonomy` a write names in `param` (ids, slugs or names), names unknown made when the writer may. */
  terms(
    db: Database,
    tx: Tx,
    ctx: PostWriteContext,
    taxonomy: "category" | "tag",
    param: string,
    refs: Array<number | string>,
    problems: ParamProblems,
  ): Promise<number[]>;
}
