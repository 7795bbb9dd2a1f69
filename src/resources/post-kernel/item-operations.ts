import type { Request, Response } from "express";
import { mayWriteItem } from "../../auth/post-permissions";
import { can, type PostType } from "../../auth/roles";
import type { OwnedItem } from "../../auth/visibility";
import { entityTagOf, sendRepresentation, stateTag } from "../../http/conditional";
import { ApiError, type ErrorCode } from "../../http/errors";
import { itemRefOf, type ItemRef, type TargetRule, type Versioned } from "../../http/operation-types";
import { context, requestLanguage, type RequestContext } from "../../http/request-context";
import type { Language } from "../../i18n/languages";
import type { Services } from "../../services";
import type { PostWriteContext } from "./post-fields";

/**
 * What the operations of every item resource share: how a request names an item and in which
 * language order its slug is looked up, the write rules of posts (events, venues, organizers), and
 * how an item is answered with its tag.
 */

/** The languages a by-slug lookup tries, in order (see slug-sql.ts). */
export interface LanguageOrder {
  language: Language;
  defaultLanguage: Language;
}

/** The language order of a request, at any stage (before validation too). */
export function languageOrderOf(req: Request, services: Services): LanguageOrder {
  return { language: requestLanguage(req, services.config), defaultLanguage: services.config.defaultLanguage };
}

/** The reference as error messages show it: the id or the slug. */
/** How a message names the item a request asked for, as the original's do ("Event with ID 12 does not exist."). */
export function refText(ref: ItemRef): string {
  return "slug" in ref ? `slug ${ref.slug}` : `ID ${ref.id}`;
}

/** What a write handler of a post gives its store: who writes, in which language, when. */
export function postWriteContext(req: Request, type: PostType, now: Date): PostWriteContext {
  const ctx = context(req);
  return {
    principal: ctx.principal!,
    type,
    siteTimezone: ctx.siteTimezone,
    now,
    language: ctx.language,
    defaultLanguage: ctx.defaultLanguage,
  };
}

/**
 * The write rules of a post type: the item named by the request, found by the resource's resolver;
 * its 404; and whether the caller may edit it, or delete it (`force` or not: see destroysOf).
 */
export function postTargetRules<R extends OwnedItem & Versioned>(
  type: PostType,
  resolve: (ref: ItemRef, order: LanguageOrder) => Promise<R | null>,
  notFound: ErrorCode,
  services: Services,
): { edit: TargetRule<R>; remove: TargetRule<R> } {
  const base = {
    resolve: (req: Request) => resolve(itemRefOf(req), languageOrderOf(req, services)),
    notFound: (req: Request) => new ApiError(notFound, { ref: refText(itemRefOf(req)) }),
  };
  return {
    edit: { ...base, allows: (req, item) => mayWriteItem(req.principal!, type, item, "edit") },
    remove: { ...base, allows: (req, item) => mayWriteItem(req.principal!, type, item, "delete") },
  };
}

/**
 * Whether a DELETE deletes for good an item it finds in the trash: when an administrator (who may
 * `force_delete`) asks for it with `force`. Otherwise `force` is ignored, as the original ignores
 * it: a live item goes to the trash, a trashed one is `410`.
 */
export function destroysOf(req: Request): boolean {
  return (req.query as { force?: boolean }).force === true && can(req.principal!.role, "force_delete");
}

/**
 * The two forms of an item: as a GET of it gives it, and as write responses give it. The write form
 * is made from the read form, so that a write's answer, which carries the read form's tag,
 * serializes its item once.
 */
export interface ItemForms<R> {
  read(record: R, ctx: RequestContext): object;
  written(read: object): object;
  /**
   * The item's state as its tag names it (stateTag): what a write of it, or of what it shows (as
   * this reader is shown it), changes; with the language.
   */
  state(record: R, ctx: RequestContext): unknown[];
}

/** The tag of an item as a GET of it by this request's caller gives it. */
export function itemTagOf<R>(forms: ItemForms<R>, record: R, ctx: RequestContext): string {
  return stateTag(forms.state(record, ctx));
}

/** A post's write form: its read form without the schema.org description only GETs carry. */
export function withoutJsonLd(read: object): object {
  const { json_ld: _jsonLd, ...written } = read as { json_ld?: unknown };
  return written;
}

/**
 * The tags an item is known by, as a GET of it by this request's caller would give them: its state's,
 * and the digest of its representation, which the release before tags were of states gave (an
 * If-Match read from an instance of that release, during the upgrade).
 */
export function readTagOf<R>(forms: ItemForms<R>, ctx: RequestContext): (record: R) => string[] {
  return (record) => [itemTagOf(forms, record, ctx), entityTagOf(forms.read(record, ctx))];
}

/**
 * Answers a write with the item in its write form, and its tag: the tag a GET would give now,
 * which the client can send back in If-Match. An item deleted for good is answered as it was,
 * without a tag.
 */
export function sendWritten<R>(
  req: Request,
  res: Response,
  record: R,
  forms: ItemForms<R>,
  options: { status?: number; deleted?: boolean } = {},
): void {
  const ctx = context(req);
  sendRepresentation(res, forms.written(forms.read(record, ctx)), {
    status: options.status,
    etag: options.deleted ? null : itemTagOf(forms, record, ctx),
  });
}
