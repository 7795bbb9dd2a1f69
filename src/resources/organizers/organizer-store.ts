import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Schemas } from "../../http/operation-types";
import { noneIfEmpty } from "../../i18n/localized-rows";
import { createLinkedPostStore, type LinkedPostModel } from "../post-kernel/linked-post-store";
import { ORGANIZER_PLAIN_COLUMNS, organizerSelect, type OrganizerRecord } from "./organizer-record";

/** What a write body of an organizer may hold (the spec's fields; a create's has the name). */
export type OrganizerWrite = Schemas["OrganizerFields"];

/** The columns of the organizer itself (the same in every language) that the input gives. */
function organizerColumns(input: OrganizerWrite) {
  const data: Prisma.OrganizerUncheckedUpdateInput = {};
  for (const field of ORGANIZER_PLAIN_COLUMNS) {
    if (input[field] !== undefined) data[field] = noneIfEmpty(input[field]);
  }
  return data;
}

const organizerModel: LinkedPostModel<OrganizerRecord, OrganizerWrite, Prisma.OrganizerUncheckedUpdateInput> = {
  tables: { table: "Organizer", textTable: "OrganizerText", linkTable: "EventOrganizer", key: "organizerId" },
  fallbackSlug: "organizer",
  nameOf: (input) => input.organizer,
  columns: organizerColumns,
  sharedSearchText: (columns) => {
    const organizer = columns as Partial<Record<(typeof ORGANIZER_PLAIN_COLUMNS)[number], string | null>>;
    return [organizer.phone, organizer.email, organizer.website].map((value) => value ?? null);
  },
  find: (client, id) => client.organizer.findUnique({ where: { id }, select: organizerSelect }),
  findMany: (client, where, orderBy, offset, limit) => client.organizer.findMany({ where, orderBy, skip: offset, take: limit, select: organizerSelect }),
  count: (client, where) => client.organizer.count({ where }),
  insert: (tx, columns, fields) => tx.organizer.create({ data: { ...(columns as Prisma.OrganizerUncheckedCreateInput), ...fields }, select: { id: true } }),
  save: async (tx, id, columns) => {
    await tx.organizer.update({ where: { id }, data: { ...columns, version: { increment: 1 } } });
  },
};

export const organizerStore = createLinkedPostStore(organizerModel);
