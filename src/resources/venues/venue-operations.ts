import { bindOperations, bodyOf, queryOf } from "../../http/operation-types";
import type { Services } from "../../services";
import { linkedPostOperations, type LinkedPostInputs } from "../post-kernel/linked-post-operations";
import { serializeVenue } from "./venue-serializer";
import { venueStore, type VenueWrite } from "./venue-store";

/** The venue operations (docs/compatibility.md §6.1, §7.2), by id and by slug alike, on the linked-post kernel. */
export function venueOperations(services: Services) {
  const inputs: LinkedPostInputs<VenueWrite> = {
    query: (req) => queryOf(req, "listVenues"),
    createBody: (req) => bodyOf(req, "createVenue"),
    updateBody: (req) => bodyOf(req, "updateVenue"),
  };
  return bindOperations(linkedPostOperations("venue", venueStore, serializeVenue, inputs, services), {
    listVenues: "list",
    createVenue: "create",
    getVenue: "get",
    getVenueBySlug: "get",
    deleteVenue: "remove",
    deleteVenueBySlug: "remove",
    updateVenue: "update",
    putVenue: "update",
    patchVenue: "update",
    updateVenueBySlug: "update",
    putVenueBySlug: "update",
    patchVenueBySlug: "update",
  });
}
