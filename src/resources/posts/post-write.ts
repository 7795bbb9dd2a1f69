import type { Principal } from "../../auth/principal";
import { can, type PostType } from "../../auth/roles";
import type { PostStatus } from "../../auth/visibility";
import { parseDateInput } from "../../dates/date-input";
import type { Tx } from "../../db/transaction";
import { ApiError, InvalidParamsError, type ParamProblem } from "../../http/errors";
import type { Localized } from "../../i18n/languages";
import { scaledStatus } from "./post-access";

/** The fields every event, venue and organizer write may carry. */
export interface PostFieldsInput {
  author?: number;
  date?: string | number;
  date_utc?: string | number;
  status?: PostStatus;
}

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

export const NOT_A_DATE: Localized = {
  en: "Not a date this service understands.",
  "pt-br": "Não é uma data que este serviço entenda.",
  es: "No es una fecha que este servicio entienda.",
};

const NO_SUCH_USER: Localized = {
  en: "Must be the id of an existing user.",
  "pt-br": "Deve ser o id de um usuário existente.",
  es: "Debe ser el id de un usuario existente.",
};

/** Collects the problems of several parameters, to report them all in one 400. */
export class ParamProblems {
  private readonly problems: Record<string, ParamProblem> = {};

  add(param: string, detailCode: string, detail: Localized, message: ParamProblem["message"] = "invalid"): void {
    this.problems[param] ??= { message, detailCode, detail };
  }

  throwIfAny(): void {
    if (Object.keys(this.problems).length > 0) throw new InvalidParamsError(this.problems);
  }
}

export interface PostWriteContext {
  principal: Principal;
  type: PostType;
  siteTimezone: string;
  now: Date;
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
    const user = await tx.user.findUnique({ where: { id: input.author }, select: { id: true } });
    if (!user) problems.add("author", "rest_user_not_found", NO_SUCH_USER, "notFound");
    else if (input.author !== authorId && !can(ctx.principal.role, `edit_others_${ctx.type}`)) throw new ApiError("rest_forbidden");
    else authorId = input.author;
  }

  let postDate = current?.postDate ?? ctx.now;
  if (input.date_utc !== undefined) {
    const parsed = parseDateInput(input.date_utc, "UTC", ctx.now);
    if (parsed) postDate = parsed.toJSDate();
    else problems.add("date_utc", "rest_invalid_date", NOT_A_DATE);
  } else if (input.date !== undefined) {
    const parsed = parseDateInput(input.date, ctx.siteTimezone, ctx.now);
    if (parsed) postDate = parsed.toJSDate();
    else problems.add("date", "rest_invalid_date", NOT_A_DATE);
  }

  let status = scaledStatus(ctx.principal, ctx.type, input.status, current?.status as PostStatus | undefined);
  if (status === "publish" && postDate > ctx.now) status = "future";
  else if (status === "future" && postDate <= ctx.now) status = "publish";
  return { authorId, postDate, status };
}
