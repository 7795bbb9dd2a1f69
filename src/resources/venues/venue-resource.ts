import type { LinkedPostResource } from "../posts/linked-post-handlers";
import { serializeVenue } from "./venue-serializer";
import { venueStore, type VenueInput, type VenueRecord } from "./venue-store";
import type { Schemas } from "../../http/operation-types";

export const VENUES: LinkedPostResource<VenueRecord, VenueInput, Schemas["Venue"]> = {
  type: "venues",
  collectionPath: "/venues",
  collectionKey: "venues",
  codes: {
    notFound: "rest-venue-not-found",
    notAccessible: "venue-not-accessible",
    inTrash: "venue-is-in-trash",
    archivePageNotFound: "venue-archive-page-not-found",
  },
  store: venueStore,
  serialize: serializeVenue,
  // The write body's fields are the store's input fields (the spec validated them).
  input: (body) => body as VenueInput,
};
