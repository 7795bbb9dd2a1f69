import type { Config } from "./config";
import type { Database } from "./db/database";
import { contextAt } from "./http/request-pipeline";
import type { Language } from "./i18n/languages";
import { readCommittedEvent } from "./resources/events/event-repository";
import { serializeEvent } from "./resources/events/event-serializer";
import { serializeOrganizer } from "./resources/organizers/organizer-serializer";
import { organizerRepository } from "./resources/organizers/organizer-repository";
import type { SyncResource } from "./sync/change-log-repository";
import { CATEGORIES, TAGS } from "./resources/terms/term-record";
import { serializeTerm } from "./resources/terms/term-serializer";
import { resolveTerm } from "./resources/terms/term-repository";
import type { ItemSnapshot } from "./resources/webhooks/webhook-record";
import { serializeVenue } from "./resources/venues/venue-serializer";
import { venueRepository } from "./resources/venues/venue-repository";

const INVISIBLE: ItemSnapshot = { visible: false, show: () => null };

/**
 * What webhooks send of an item (see resources/webhooks/): composed here, beside app.ts, from
 * every resource's repository and serializer, and given to the webhook worker by server.ts, so
 * that webhooks import no other resource.
 */

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
export async function itemSnapshot(
  db: Database,
  config: Config,
  resource: SyncResource,
  id: number,
): Promise<ItemSnapshot> {
  const contextIn = (language: Language) => contextAt(config, payloadOrigin(config), language, `/${language}`, null);
  switch (resource) {
    case "events": {
      const event = await readCommittedEvent(db, id);
      if (!event || event.status !== "publish") return INVISIBLE;
      return {
        visible: true,
        show: (language) =>
          serializeEvent(event, contextIn(language), {
            jsonLd: false,
            translations: true,
            redacted: event.passwordHash !== null,
          }),
      };
    }
    case "venues": {
      const venue = await venueRepository.find(db, id);
      if (!venue || venue.status !== "publish") return INVISIBLE;
      return {
        visible: true,
        show: (language) => serializeVenue(venue, contextIn(language), { jsonLd: false, translations: true }),
      };
    }
    case "organizers": {
      const organizer = await organizerRepository.find(db, id);
      if (!organizer || organizer.status !== "publish") return INVISIBLE;
      return {
        visible: true,
        show: (language) => serializeOrganizer(organizer, contextIn(language), { jsonLd: false, translations: true }),
      };
    }
    case "categories":
    case "tags": {
      const taxonomy = resource === "categories" ? CATEGORIES : TAGS;
      const term = await resolveTerm(db, taxonomy.taxonomy, id);
      if (!term) return INVISIBLE;
      return {
        visible: true,
        show: (language) => serializeTerm(term, taxonomy, contextIn(language), { translations: true }),
      };
    }
  }
}
