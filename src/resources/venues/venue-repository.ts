import { Prisma, type Venue } from "../../../generated/prisma/sqlite/client";
import type { ColumnsOf } from "../../db/row-writes";
import type { Database } from "../../db/database";
import { linkedPostStatements, type LinkedPostRepository } from "../post-kernel/linked-post-repository";
import { VENUE_COLUMNS, VENUE_VALUE_TYPES, venueSelect, type VenueRecord } from "./venue-record";

/** Columns of a venue's row, as writes give them. */
export type VenueColumns = ColumnsOf<Venue>;

/**
 * Every statement on the venue tables ("Venue", "VenueText", "EventVenue"). Every one is a raw
 * statement through the driver, written once for venues and organizers in linked-post-repository.ts.
 * Events embed venues through their own record statement (event-repository.ts), which takes its
 * columns and value types from venue-record.ts.
 */
export const venueRepository: LinkedPostRepository<VenueRecord, VenueColumns> = linkedPostStatements({
  record: {
    table: "Venue",
    columns: Object.keys(VENUE_COLUMNS),
    textTable: "VenueText",
    textKey: "venueId",
    textColumns: Object.keys(venueSelect.texts.select),
    valueTypes: VENUE_VALUE_TYPES,
  },
  table: "Venue",
  textTable: "VenueText",
  linkTable: "EventVenue",
  key: "venueId",
});

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

function radians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

/** Great-circle distance in km (haversine). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = radians(lat2 - lat1);
  const dLng = radians(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Longitude ranges of the bounding box, split in two where it crosses the antimeridian. */
function longitudeRanges(lng: number, span: number): Array<[number, number]> {
  if (span >= 180) return [[-180, 180]];
  const min = lng - span;
  const max = lng + span;
  if (min < -180)
    return [
      [min + 360, 180],
      [-180, max],
    ];
  if (max > 180)
    return [
      [min, 180],
      [-180, max - 360],
    ];
  return [[min, max]];
}

/**
 * The venues within `radiusKm` of a point. The database narrows the candidates to a bounding box
 * (indexed on the coordinates, and plain comparisons that behave the same on SQLite and
 * PostgreSQL); the exact distance is then checked here.
 */
export async function venueIdsWithin(db: Database, lat: number, lng: number, radiusKm: number): Promise<number[]> {
  const latSpan = radiusKm / KM_PER_DEGREE;
  const cosLat = Math.cos(radians(Math.min(89.9, Math.abs(lat) + latSpan)));
  const lngSpan = cosLat > 0 ? latSpan / cosLat : 360;
  const longitudes = longitudeRanges(lng, lngSpan).map(
    ([min, max]) => Prisma.sql`("geoLng" >= ${min} AND "geoLng" <= ${max})`,
  );
  const candidates = await db.direct.rows<{ id: number | bigint; geoLat: number; geoLng: number }>(
    Prisma.sql`SELECT "id", "geoLat", "geoLng" FROM "Venue"
      WHERE "geoLat" >= ${Math.max(-90, lat - latSpan)} AND "geoLat" <= ${Math.min(90, lat + latSpan)} AND (${Prisma.join(longitudes, " OR ")})`,
  );
  return candidates
    .filter((venue) => distanceKm(lat, lng, Number(venue.geoLat), Number(venue.geoLng)) <= radiusKm)
    .map((venue) => Number(venue.id));
}
