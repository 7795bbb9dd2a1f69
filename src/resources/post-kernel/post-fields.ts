import { scaledStatus } from "../../auth/post-permissions";
import type { Principal } from "../../auth/principal";
import { can, type PostType } from "../../auth/roles";
import type { PostStatus } from "../../auth/visibility";
import { parseDateInput } from "../../dates/date-input";
import type { Tx } from "../../db/transaction";
import { ApiError, type ParamProblems } from "../../http/errors";
import { isItemId, type Schemas } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import { authorExists } from "./post-repository";

/** The fields every event, venue and organizer write may carry (the spec declares them alike for all three). */
export type PostFieldsInput = Pick<Schemas["EventFields"], "author" | "date" | "date_utc" | "status">;

export interface CurrentPost {
  /** As stored: one of the post statuses. */
  status: string;
  authorId: number;
  postDate: Date;
}

export interface ResolvedPostFields {
  authorId: number;
  postDate: Date;
  status: PostStatus;
}

/** Who writes, when, in which language: what every write of an event, venue or organizer needs. */
export interface PostWriteContext {
  principal: Principal;
  type: PostType;
  siteTimezone: string;
  now: Date;
  language: Language;
  defaultLanguage: Language;
}

/**
 * Author, post date and status after a write: given values checked, the rest kept (on update)
 * or defaulted (on create: the caller, now, publish-or-draft). As in WordPress, a published item
 * dated in the future is scheduled (`future`), and a scheduled one dated in the past is published.
 */
export async function resolvePostFields(
  tx: Tx,
  input: PostFieldsInput,
  ctx: PostWriteContext,
  problems: ParamProblems,
  current?: CurrentPost,
): Promise<ResolvedPostFields> {
  let authorId = current?.authorId ?? ctx.principal.userId;
  if (input.author !== undefined) {
    // A number, or its digits as items show them.
    const wanted = Number(input.author);
    if (!isItemId(wanted) || !(await authorExists(tx, wanted)))
      problems.add("author", "rest_user_not_found", "notFound");
    else if (wanted !== authorId && !can(ctx.principal.role, `edit_others_${ctx.type}`))
      throw new ApiError("rest_forbidden");
    else authorId = wanted;
  }

  let postDate = current?.postDate ?? ctx.now;
  if (input.date_utc !== undefined) {
    const parsed = parseDateInput(input.date_utc, "UTC", ctx.now);
    if (parsed) postDate = parsed.toJSDate();
    else problems.add("date_utc", "rest_invalid_date");
  } else if (input.date !== undefined) {
    const parsed = parseDateInput(input.date, ctx.siteTimezone, ctx.now);
    if (parsed) postDate = parsed.toJSDate();
    else problems.add("date", "rest_invalid_date");
  }

  let status = scaledStatus(ctx.principal, ctx.type, input.status, current?.status as PostStatus | undefined);
  if (status === "publish" && postDate > ctx.now) status = "future";
  else if (status === "future" && postDate <= ctx.now) status = "publish";
  return { authorId, postDate, status };
}
