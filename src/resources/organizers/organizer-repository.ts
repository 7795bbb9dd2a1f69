import type { Prisma } from "../../../generated/prisma/sqlite/client";
import { linkedPostStatements, type LinkedPostRepository } from "../post-kernel/linked-post-repository";
import { organizerSelect, type OrganizerRecord } from "./organizer-record";

/**
 * Every statement on the organizer tables ("Organizer", "OrganizerText", "EventOrganizer"). An
 * organizer, a page and a count are Prisma calls; the statements organizers share with venues
 * are raw, written once in linked-post-repository.ts. Events embed organizers through their own
 * record statement (event-repository.ts), with the columns and value types of organizer-record.ts.
 */
export const organizerRepository: LinkedPostRepository<OrganizerRecord, Prisma.OrganizerUncheckedUpdateInput> = {
  ...linkedPostStatements({
    table: "Organizer",
    textTable: "OrganizerText",
    linkTable: "EventOrganizer",
    key: "organizerId",
  }),
  find: (client, id) => client.organizer.findUnique({ where: { id }, select: organizerSelect }),
  findMany: (client, where, orderBy, offset, limit) =>
    client.organizer.findMany({ where, orderBy, skip: offset, take: limit, select: organizerSelect }),
  count: (client, where) => client.organizer.count({ where }),
  insert: async (tx, columns, fields) =>
    (
      await tx.organizer.create({
        data: { ...(columns as Prisma.OrganizerUncheckedCreateInput), ...fields },
        select: { id: true },
      })
    ).id,
  save: async (tx, id, columns) => {
    await tx.organizer.update({ where: { id }, data: { ...columns, version: { increment: 1 } } });
  },
};
