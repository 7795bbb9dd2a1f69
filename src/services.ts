import type { EventPasswords } from "./auth/event-passwords";
import type { Config } from "./config";
import type { Database } from "./db/database";
import type { Logger } from "./logging/logger";
import type { RepresentationCache } from "./sync/representation-cache";
import type { SyncTokens } from "./sync/sync-token";

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
}
