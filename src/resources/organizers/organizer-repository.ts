import { Prisma, type Organizer } from "../../../generated/prisma/sqlite/client";
import type { Database } from "../../db/database";
import type { ColumnsOf } from "../../db/row-writes";
import { linkedPostStatements, type LinkedPostRepository } from "../post-kernel/linked-post-repository";
import { ORGANIZER_COLUMNS, ORGANIZER_VALUE_TYPES, organizerSelect, type OrganizerRecord } from "./organizer-record";

/** Columns of an organizer's row, as writes give them. */
export type OrganizerColumns = ColumnsOf<Organizer>;

/**
 * Every statement on the organizer tables ("Organizer", "OrganizerText", "EventOrganizer"). Every one
 * is a raw statement through the driver, written once for organizers and venues in
 * linked-post-repository.ts. Events embed organizers through their own
 * record statement (event-repository.ts), with the columns and value types of organizer-record.ts.
 */
export const organizerRepository: LinkedPostRepository<OrganizerRecord, OrganizerColumns> = linkedPostStatements({
  record: {
    table: "Organizer",
    columns: Object.keys(ORGANIZER_COLUMNS),
    textTable: "OrganizerText",
    textKey: "organizerId",
    textColumns: Object.keys(organizerSelect.texts.select),
    valueTypes: ORGANIZER_VALUE_TYPES,
  },
  table: "Organizer",
  textTable: "OrganizerText",
  linkTable: "EventOrganizer",
  key: "organizerId",
});

/** The oldest organizer outside the trash with this e-mail address (any case), as committed; null: none. */
export async function organizerIdByEmail(db: Database, email: string): Promise<number | null> {
  const [row] = await db.direct.rows<{ id: number | bigint }>(
    Prisma.sql`SELECT "id" FROM "Organizer" WHERE LOWER("email") = ${email.toLowerCase()} AND "status" <> 'trash' ORDER BY "id" LIMIT 1`,
  );
  return row ? Number(row.id) : null;
}
