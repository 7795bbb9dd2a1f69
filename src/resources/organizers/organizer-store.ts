import type { Prisma } from "../../../generated/prisma/sqlite/client";
import { LINKED_POST_ORDER } from "../posts/linked-post-query";
import { createLinkedPostStore, type LinkedPostModel } from "../posts/linked-post-store";
import { noneIfEmpty, type RowsSpec } from "../../i18n/localized-rows";
import type { PostFieldsInput } from "../posts/post-write";

export const organizerSelect = {
  id: true,
  authorId: true,
  status: true,
  sourceLanguage: true,
  slug: true,
  postDate: true,
  modifiedAt: true,
  phone: true,
  website: true,
  email: true,
  image: true,
  texts: { select: { language: true, name: true, description: true } },
} satisfies Prisma.OrganizerSelect;

export type OrganizerRecord = Prisma.OrganizerGetPayload<{ select: typeof organizerSelect }>;

type OrganizerTextField = "name" | "description";

export const ORGANIZER_TEXT: RowsSpec<OrganizerTextField> = {
  fields: ["name", "description"],
  nameField: "name",
  searchFields: ["name", "description"],
};

export interface OrganizerInput extends PostFieldsInput {
  organizer?: string;
  description?: string | null;
  phone?: string | null;
  website?: string | null;
  email?: string | null;
  image?: string | null;
}

/** The columns of the organizer itself (the same in every language) that the input sets. */
function organizerColumns(input: OrganizerInput) {
  const data: Prisma.OrganizerUncheckedUpdateInput = {};
  for (const field of ["phone", "website", "email", "image"] as const) {
    if (input[field] !== undefined) data[field] = noneIfEmpty(input[field]);
  }
  return data;
}

const organizerModel: LinkedPostModel<OrganizerTextField, OrganizerRecord, OrganizerInput> = {
  text: ORGANIZER_TEXT,
  fallbackSlug: "organizer",
  nameOf: (input) => input.organizer,
  textChange(input) {
    const change: Partial<Record<OrganizerTextField, string | null>> = {};
    if (input.organizer !== undefined) change.name = input.organizer.trim();
    if (input.description !== undefined) change.description = noneIfEmpty(input.description);
    return change;
  },
  sharedSearchText: (organizer) => [organizer.phone, organizer.email, organizer.website],
  find: (client, id) => client.organizer.findUnique({ where: { id }, select: organizerSelect }),
  findBySlug: (client, slug) => client.organizer.findUnique({ where: { slug }, select: organizerSelect }),
  findMany: (client, where, offset, limit) => client.organizer.findMany({ where, orderBy: LINKED_POST_ORDER, skip: offset, take: limit, select: organizerSelect }),
  count: (client, where) => client.organizer.count({ where }),
  async takenSlugs(tx, candidates) {
    const rows = await tx.organizer.findMany({ where: { slug: { in: candidates } }, select: { slug: true } });
    return rows.map((row) => row.slug);
  },
  insert: (tx, input, fields) => tx.organizer.create({ data: { ...(organizerColumns(input) as Prisma.OrganizerUncheckedCreateInput), ...fields }, select: organizerSelect }),
  save: (tx, id, input, fields) => tx.organizer.update({ where: { id }, data: { ...organizerColumns(input), ...fields }, select: organizerSelect }),
  remove: async (tx, id) => {
    await tx.organizer.delete({ where: { id } });
  },
  unlinkEvents: async (tx, id) => {
    await tx.eventOrganizer.deleteMany({ where: { organizerId: id } });
  },
  upsertText: async (tx, organizerId, row) => {
    const data = { ...row.own, searchText: row.searchText, sortKey: row.sortKey };
    await tx.organizerText.upsert({
      where: { organizerId_language: { organizerId, language: row.language } },
      create: { organizerId, language: row.language, ...data },
      update: data,
    });
  },
};

export const organizerStore = createLinkedPostStore(organizerModel);
