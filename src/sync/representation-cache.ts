import type { Database } from "../db/database";
import { entityTag } from "../http/conditional";
import { changedItemsAfter, logPosition, nextEpoch, type LogPosition } from "./change-log-repository";
import { NextRead } from "./next-read";

/** A representation as sent: its JSON and its entity tag. */
export interface PreparedRepresentation {
  json: string;
  etag: string;
}

/** An item a representation shows, as the change log names it: `events:12`, `venues:3`, `categories:7`. */
export type LoggedItem = `${string}:${number}`;

/**
 * What a list's page shows: every item, including those that would enter it. A representation
 * that shows it is dropped at the first change of anything.
 */
export const EVERY_ITEM: LoggedItem = "*:0";

/** A kept representation: what `get` answers. */
export interface KeptRepresentation extends PreparedRepresentation {
  /** The headers sent with it (a page's totals, links and sync token), to send again. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

/** Its tag is worked out when first sent: the representations of list items are never sent alone. */
class Entry implements KeptRepresentation {
  constructor(
    readonly json: string,
    readonly shows: LoggedItem[],
    readonly headers: ReadonlyArray<readonly [string, string]>,
    /** Given (an item's state tag: http/conditional.ts), or worked out from the JSON when first sent. */
    private tag?: string,
  ) {}

  get etag(): string {
    return (this.tag ??= entityTag(this.json));
  }
}

/**
 * What `freshen` hands out: the log position the cache was brought to. A representation made
 * after it may be kept only while the cache is still there (see `keep`).
 */
export interface Freshness {
  readonly generation: number;
  /** Where the change log stood: a listing read after it sees every change up to there. */
  readonly position: LogPosition;
}

/**
 * What a kept text is counted as, per character: V8 keeps a string in one byte per character, or
 * in two as soon as one of its characters needs it (a curly quote, CJK); counted as the larger.
 */
const BYTES_PER_CHARACTER = 2;

/** Changes read per catch-up; more, and the whole cache is dropped (cheaper than reading them all). */
const CATCH_UP_LIMIT = 1_000;

/**
 * Representations made before, kept while nothing they show has changed. A read first asks the
 * change log's clock where it stands (one indexed row: `freshen`; reads that ask together share
 * one that began after each of them asked: NextRead); when it has moved, the items
 * logged since are read (one range of the log's position index) and every representation that
 * shows one of them is dropped. The log is written by database triggers in the transaction of
 * every change, and positioned as transactions commit (src/db/transaction.ts), so a read that
 * follows a committed write, in this process or in any other on the same database, never gets
 * a representation from before it: the same guarantee as reading the rows themselves.
 *
 * A representation read while another request was catching up may be from before the changes
 * that request dropped: such a one is sent but not kept (`keep` checks the generation).
 * Bounded by the bytes it holds, the least recently used going first.
 */
export class RepresentationCache {
  private readonly entries = new Map<string, Entry>();
  /** For each item, the keys of the representations that show it. */
  private readonly showing = new Map<LoggedItem, Set<string>>();
  private bytes = 0;
  private position: number | null = null;
  /** The log's history the position is of (SyncClock.epoch). */
  private epoch: number | null = null;
  private generation = 0;
  private catchingUp: Promise<void> = Promise.resolve();
  /** The change log's clock, read once for the reads that ask together (see NextRead). */
  private readonly clock: NextRead<Awaited<ReturnType<typeof logPosition>>>;

  constructor(
    private readonly db: Database,
    private readonly maxBytes: number,
    /** Told of every lookup (for /metrics). */
    private readonly looked: (hit: boolean) => void = () => undefined,
  ) {
    this.clock = new NextRead(() => logPosition(db));
  }

  /** The bytes the kept representations take. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Brings the cache to where the change log stands now. */
  async freshen(): Promise<Freshness> {
    const { position, horizon, epoch } = await this.clock.get();
    if (this.maxBytes === 0) return { generation: -1, position };
    if (position.seq !== this.position || epoch !== this.epoch) {
      // One catch-up at a time, each from where the last one left the cache.
      // A catch-up that failed (the database went away) fails its own request, not the next ones'.
      this.catchingUp = this.catchingUp.catch(() => undefined).then(() => this.catchUp(position.seq, horizon, epoch));
      await this.catchingUp;
    }
    return { generation: this.generation, position };
  }

  get(key: string): KeptRepresentation | undefined {
    const entry = this.entries.get(key);
    this.looked(entry !== undefined);
    if (entry === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Keeps `json` under `key` (with its tag), made after `freshness` from the current state of the
   * items it `shows` (the item itself and everything embedded in it), unless the cache has moved
   * on since. Answers the prepared representation either way.
   */
  keep(
    freshness: Freshness,
    key: string,
    json: string,
    shows: LoggedItem[],
    headers: ReadonlyArray<readonly [string, string]> = [],
    etag?: string,
  ): PreparedRepresentation {
    const entry = new Entry(json, shows, headers, etag);
    const bytes = json.length * BYTES_PER_CHARACTER;
    if (freshness.generation !== this.generation || bytes > this.maxBytes / 16) return entry;
    this.drop(key);
    this.entries.set(key, entry);
    this.bytes += bytes;
    for (const item of shows) {
      let keys = this.showing.get(item);
      if (!keys) this.showing.set(item, (keys = new Set()));
      keys.add(key);
    }
    while (this.bytes > this.maxBytes) this.drop(this.entries.keys().next().value!);
    return entry;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.json.length * BYTES_PER_CHARACTER;
    for (const item of entry.shows) {
      const keys = this.showing.get(item);
      keys?.delete(key);
      if (keys?.size === 0) this.showing.delete(item);
    }
  }

  private clear(): void {
    this.entries.clear();
    this.showing.clear();
    this.bytes = 0;
  }

  private async catchUp(seq: number, horizon: number, epoch: number): Promise<void> {
    const sameHistory = this.epoch === null || epoch === this.epoch;
    if (this.position !== null && seq === this.position && sameHistory) return;
    if (this.position !== null && seq < this.position && sameHistory) {
      // The log went back: the database was restored from an earlier backup. What was kept shows
      // a history that is gone, and so do the sync tokens given out since: the log moves on to
      // another epoch, whose tokens alone are taken.
      await nextEpoch(this.db, epoch);
      epoch += 1;
    }
    this.generation += 1;
    // The first look at the log, one after the tombstones it needs were pruned, or of another
    // history (a restore, seen here or by another instance): start empty.
    if (this.position === null || this.position < horizon || this.position > seq || epoch !== this.epoch) {
      this.clear();
      this.position = seq;
      this.epoch = epoch;
      return;
    }
    // Every item changed after the position the cache was at, up to now and maybe beyond.
    const changed = await changedItemsAfter(this.db, this.position, CATCH_UP_LIMIT + 1);
    if (changed.length > CATCH_UP_LIMIT) {
      this.clear();
    } else {
      for (const { resource, itemId } of changed) {
        for (const key of this.showing.get(`${resource}:${itemId}`) ?? []) this.drop(key);
      }
      if (changed.length > 0) for (const key of this.showing.get(EVERY_ITEM) ?? []) this.drop(key);
    }
    this.position = seq;
  }
}
