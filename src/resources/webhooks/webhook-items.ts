import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { contextAt } from "../../http/request-pipeline";
import type { Language } from "../../i18n/languages";
import { readCommittedEvent } from "../events/event-record";
import { serializeEvent } from "../events/event-serializer";
import { serializeOrganizer } from "../organizers/organizer-serializer";
import { organizerStore } from "../organizers/organizer-store";
import type { SyncResource } from "../../sync/sync-log";
import { CATEGORIES, TAGS } from "../terms/taxonomies";
import { serializeTerm } from "../terms/term-serializer";
import { resolveTerm } from "../terms/term-store";
import { serializeVenue } from "../venues/venue-serializer";
import { venueStore } from "../venues/venue-store";

/** An item as an anonymous reader of the API sees it now. */
export interface ItemSnapshot {
  /** Whether an anonymous reader sees it at all (published; a term: it exists). */
  visible: boolean;
  /** Its representation in a language, as the API's single GET gives it (events without JSON-LD). */
  show(language: Language): unknown;
}

const INVISIBLE: ItemSnapshot = { visible: false, show: () => null };

/**
 * Where links in payloads point: PUBLIC_URL, else this service as its own configuration reaches
 * it (there is no request to take an origin from).
 */
function payloadOrigin(config: Config): string {
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  return config.publicUrl ?? `http://${host}:${config.port}`;
}

/**
 * The item as an anonymous reader would get it now: never a draft, a private or a trashed item
 * (invisible), never a password-protected event's protected text (shown as a list shows it).
 */
export async function itemSnapshot(db: Database, config: Config, resource: SyncResource, id: number): Promise<ItemSnapshot> {
  const contextIn = (language: Language) => contextAt(config, payloadOrigin(config), language, `/${language}`, null);
  switch (resource) {
    case "events": {
      const event = await readCommittedEvent(db, id);
      if (!event || event.status !== "publish") return INVISIBLE;
      return {
        visible: true,
        show: (language) => serializeEvent(event, contextIn(language), { jsonLd: false, translations: true, redacted: event.passwordHash !== null }),
      };
    }
    case "venues": {
      const venue = await venueStore.resolve(db, { id }, contextIn(config.defaultLanguage));
      if (!venue || venue.status !== "publish") return INVISIBLE;
      return { visible: true, show: (language) => serializeVenue(venue, contextIn(language), { jsonLd: false, translations: true }) };
    }
    case "organizers": {
      const organizer = await organizerStore.resolve(db, { id }, contextIn(config.defaultLanguage));
      if (!organizer || organizer.status !== "publish") return INVISIBLE;
      return { visible: true, show: (language) => serializeOrganizer(organizer, contextIn(language), { jsonLd: false, translations: true }) };
    }
    case "categories":
    case "tags": {
      const taxonomy = resource === "categories" ? CATEGORIES : TAGS;
      const term = await resolveTerm(db, taxonomy.taxonomy, id);
      if (!term) return INVISIBLE;
      return { visible: true, show: (language) => serializeTerm(term, taxonomy, contextIn(language), { translations: true }) };
    }
  }
}
