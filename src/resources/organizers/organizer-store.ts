import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { Schemas } from "../../http/operation-types";
import { noneIfEmpty } from "../../i18n/localized-rows";
import { organizerRepository } from "./organizer-repository";
import { createLinkedPostStore, type LinkedPostModel } from "../post-kernel/linked-post-store";
import { ORGANIZER_PLAIN_COLUMNS, type OrganizerRecord } from "./organizer-record";

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
  repository: organizerRepository,
  fallbackSlug: "organizer",
  nameOf: (input) => input.organizer,
  columns: organizerColumns,
  sharedSearchText: (columns) => {
    const organizer = columns as Partial<Record<(typeof ORGANIZER_PLAIN_COLUMNS)[number], string | null>>;
    return [organizer.phone, organizer.email, organizer.website].map((value) => value ?? null);
  },
};

export const organizerStore = createLinkedPostStore(organizerModel);
