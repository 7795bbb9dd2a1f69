import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Schemas } from "../../http/operation-types";
import { noneIfEmpty } from "../../i18n/localized-rows";
import { flagOf } from "../post-kernel/write-flags";
import { venueRepository } from "./venue-repository";
import { createLinkedPostStore, type LinkedPostModel } from "../post-kernel/linked-post-store";
import { VENUE_PLAIN_COLUMNS, type VenueRecord } from "./venue-record";

/** What a write body of a venue may hold (the spec's fields; a create's has the name). */
export type VenueWrite = Schemas["VenueFields"];

/** The columns of the venue itself (the same in every language) that the input gives. */
function venueColumns(input: VenueWrite) {
  const data: Prisma.VenueUncheckedUpdateInput = {};
  for (const field of VENUE_PLAIN_COLUMNS) {
    if (input[field] !== undefined) data[field] = noneIfEmpty(input[field]);
  }
  if (input.show_map !== undefined) data.showMap = flagOf(input.show_map);
  if (input.show_map_link !== undefined) data.showMapLink = flagOf(input.show_map_link);
  if (input.geo_lat !== undefined) data.geoLat = input.geo_lat;
  if (input.geo_lng !== undefined) data.geoLng = input.geo_lng;
  return data;
}

const venueModel: LinkedPostModel<VenueRecord, VenueWrite, Prisma.VenueUncheckedUpdateInput> = {
  repository: venueRepository,
  fallbackSlug: "venue",
  nameOf: (input) => input.venue,
  columns: venueColumns,
  // Search looks in the address fields too, but not in the country (as in the original).
  sharedSearchText: (columns) => {
    const venue = columns as Partial<Record<(typeof VENUE_PLAIN_COLUMNS)[number], string | null>>;
    return [venue.address, venue.city, venue.province, venue.state, venue.stateprovince, venue.zip, venue.phone].map(
      (value) => value ?? null,
    );
  },
};

export const venueStore = createLinkedPostStore(venueModel);
