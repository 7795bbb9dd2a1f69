import type { Config } from "../../config";
import type { Database } from "../../db/database";
import type { Language } from "../../i18n/languages";
import type { SyncResource } from "../../sync/change-log-repository";

/** An item as an anonymous reader of the API sees it now (made by src/item-snapshots.ts, given by server.ts). */
export interface ItemSnapshot {
  /** Whether an anonymous reader sees it at all (published; a term: it exists). */
  visible: boolean;
  /** Its representation in a language, as the API's single GET gives it (events without JSON-LD). */
  show(language: Language): unknown;
}

/** The snapshot of an item now. */
export type ItemSnapshots = (db: Database, config: Config, resource: SyncResource, id: number) => Promise<ItemSnapshot>;
