import { Prisma } from "../../../generated/prisma/sqlite/client";
import type { StatusCondition } from "../../auth/post-permissions";

/**
 * Which posts of a list the caller may see, as SQL on the post aliased `alias`: the OR-list of
 * status conditions (a status, or a status among the caller's own posts); an empty list matches
 * nothing. One rule for event lists and venue/organizer lists, and for the events a venue's
 * filters look through.
 */
export function visibleSql(alias: string, conditions: StatusCondition[]): Prisma.Sql {
  if (conditions.length === 0) return Prisma.sql`1 = 0`;
  const post = Prisma.raw(`"${alias}"`);
  const each = conditions.map((condition) =>
    condition.authorId === undefined
      ? Prisma.sql`${post}."status" = ${condition.status}`
      : Prisma.sql`(${post}."status" = ${condition.status} AND ${post}."authorId" = ${condition.authorId})`,
  );
  return Prisma.sql`(${Prisma.join(each, " OR ")})`;
}
