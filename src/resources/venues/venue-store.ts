import type { Prisma } from "../../../generated/prisma/sqlite/client";
import { LINKED_POST_ORDER } from "../posts/linked-post-query";
import { createLinkedPostStore, type LinkedPostModel } from "../posts/linked-post-store";
import { noneIfEmpty, type RowsSpec } from "../../i18n/localized-rows";
import type { PostFieldsInput } from "../posts/post-write";

export const venueSelect = {
  id: true,
  authorId: true,
  status: true,
  sourceLanguage: true,
  slug: true,
  postDate: true,
  modifiedAt: true,
  address: true,
  city: true,
  country: true,
  province: true,
  state: true,
  zip: true,
  phone: true,
  stateprovince: true,
  website: true,
  image: true,
  showMap: true,
  showMapLink: true,
  geoLat: true,
  geoLng: true,
  texts: { select: { language: true, name: true, description: true } },
} satisfies Prisma.VenueSelect;

export type VenueRecord = Prisma.VenueGetPayload<{ select: typeof venueSelect }>;

type VenueTextField = "name" | "description";

export const VENUE_TEXT: RowsSpec<VenueTextField> = {
  fields: ["name", "description"],
  nameField: "name",
  searchFields: ["name", "description"],
};

export interface VenueInput extends PostFieldsInput {
  venue?: string;
  description?: string | null;
  show_map?: boolean;
  show_map_link?: boolean;
  address?: string | null;
  city?: string | null;
  country?: string | null;
  province?: string | null;
  state?: string | null;
  zip?: string | null;
  phone?: string | null;
  stateprovince?: string | null;
  website?: string | null;
  image?: string | null;
  geo_lat?: number | null;
  geo_lng?: number | null;
}

const TEXT_COLUMNS = ["address", "city", "country", "province", "state", "zip", "phone", "stateprovince", "website", "image"] as const;

/** The columns of the venue itself (the same in every language) that the input sets. */
function venueColumns(input: VenueInput) {
  const data: Prisma.VenueUncheckedUpdateInput = {};
  for (const field of TEXT_COLUMNS) {
    if (input[field] !== undefined) data[field] = noneIfEmpty(input[field]);
  }
  if (input.show_map !== undefined) data.showMap = input.show_map;
  if (input.show_map_link !== undefined) data.showMapLink = input.show_map_link;
  if (input.geo_lat !== undefined) data.geoLat = input.geo_lat;
  if (input.geo_lng !== undefined) data.geoLng = input.geo_lng;
  return data;
}

const venueModel: LinkedPostModel<VenueTextField, VenueRecord, VenueInput> = {
  text: VENUE_TEXT,
  fallbackSlug: "venue",
  nameOf: (input) => input.venue,
  textChange(input) {
    const change: Partial<Record<VenueTextField, string | null>> = {};
    if (input.venue !== undefined) change.name = input.venue.trim();
    if (input.description !== undefined) change.description = noneIfEmpty(input.description);
    return change;
  },
  // Search looks in the address fields too, but not in the country (as in the original).
  sharedSearchText: (venue) => [venue.address, venue.city, venue.province, venue.state, venue.stateprovince, venue.zip, venue.phone],
  find: (client, id) => client.venue.findUnique({ where: { id }, select: venueSelect }),
  findBySlug: (client, slug) => client.venue.findUnique({ where: { slug }, select: venueSelect }),
  findMany: (client, where, offset, limit) => client.venue.findMany({ where, orderBy: LINKED_POST_ORDER, skip: offset, take: limit, select: venueSelect }),
  count: (client, where) => client.venue.count({ where }),
  async takenSlugs(tx, candidates) {
    const rows = await tx.venue.findMany({ where: { slug: { in: candidates } }, select: { slug: true } });
    return rows.map((row) => row.slug);
  },
  insert: (tx, input, fields) => tx.venue.create({ data: { ...(venueColumns(input) as Prisma.VenueUncheckedCreateInput), ...fields }, select: venueSelect }),
  save: (tx, id, input, fields) => tx.venue.update({ where: { id }, data: { ...venueColumns(input), ...fields }, select: venueSelect }),
  remove: async (tx, id) => {
    await tx.venue.delete({ where: { id } });
  },
  unlinkEvents: async (tx, id) => {
    await tx.eventVenue.deleteMany({ where: { venueId: id } });
  },
  upsertText: async (tx, venueId, row) => {
    const data = { ...row.own, searchText: row.searchText, sortKey: row.sortKey };
    await tx.venueText.upsert({
      where: { venueId_language: { venueId, language: row.language } },
      create: { venueId, language: row.language, ...data },
      update: data,
    });
  },
};

export const venueStore = createLinkedPostStore(venueModel);
