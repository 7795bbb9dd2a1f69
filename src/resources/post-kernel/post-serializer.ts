import { formatWallClock } from "../../dates/date-input";
import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import { RecentValues } from "../../text/text-memo";
import { unreadableStoredValue } from "../../logging/stored-values";

/** The fields events, venues and organizers represent alike. */
export interface PostRecordBase {
  id: number;
  authorId: number;
  status: string;
  postDate: Date;
  modifiedAt: Date;
}

export type PostKind = "event" | "venue" | "organizer";

const COLLECTION: Record<PostKind, string> = { event: "events", venue: "venues", organizer: "organizers" };

/**
 * The site part of global ids, per site URL (parsed once, not for every item of every answer).
 * Site URLs come from the configuration and the request's trusted Host: few; bounded anyway.
 */
const globalIdSites = new RecentValues<string>(100);

/** The site part of the global ids of a site (`host/path`). */
export function globalIdSiteOf(siteUrl: string): string {
  return globalIdSites.valueOf(siteUrl, () => {
    const url = new URL(siteUrl);
    return `${url.host}${url.pathname.replace(/\/$/, "")}`;
  });
}

export function globalIdOf(ctx: RequestContext, kind: PostKind, id: number): string {
  return `${globalIdSiteOf(ctx.siteUrl)}?id=${id}&type=${kind}`;
}

export function restUrlOf(ctx: RequestContext, kind: PostKind, id: number): string {
  return `${ctx.apiBase}/${COLLECTION[kind]}/${id}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text without half surrogate pairs (a slug stored so by an earlier release must not make its item unreadable). */
const wellFormed = (text: string) => text.replace(LONE_SURROGATE, "\uFFFD");

/** The item's page on the public site, in the response language. */
export function permalinkOf(ctx: RequestContext, kind: PostKind, slug: string): string {
  return `${ctx.siteUrl}${ctx.languagePrefix}/${kind}/${encodeURIComponent(wellFormed(slug))}/`;
}

/** The image of the item `kind` `id` (null: none, or a stored URL no parser reads: reported, left out). */
export function imageOf(url: string | null, kind: PostKind, id: number): Schemas["Image"] | null {
  if (!url) return null;
  if (!URL.canParse(url)) {
    unreadableStoredValue(`${kind} ${id}`, "image", url);
    return null;
  }
  const path = new URL(url).pathname;
  const extension = /\.([a-z0-9]{1,8})$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  return { url, extension };
}

/** The leading fields of a representation, in the original's order. */
export function postHead(record: PostRecordBase, ctx: RequestContext) {
  return {
    id: record.id,
    author: String(record.authorId),
    status: record.status as Schemas["PostStatus"],
    date: formatWallClock(record.postDate, ctx.siteTimezone),
    date_utc: formatWallClock(record.postDate, "UTC"),
    modified: formatWallClock(record.modifiedAt, ctx.siteTimezone),
    modified_utc: formatWallClock(record.modifiedAt, "UTC"),
  };
}

/**
 * The global ids, which close a venue's or organizer's representation: the item's own, then (of
 * an item imported from another site's REST API) those it had there, as the original's aggregator
 * keeps them.
 */
export function globalIds(record: PostRecordBase & { lineage?: string | null }, kind: PostKind, ctx: RequestContext) {
  const globalId = globalIdOf(ctx, kind, record.id);
  return { global_id: globalId, global_id_lineage: [globalId, ...lineageOf(record.lineage, `${kind} ${record.id}`)] };
}

/** A stored lineage (JSON, of an imported item); one that is not a list of ids is reported and left out. */
function lineageOf(stored: string | null | undefined, item: string): string[] {
  if (!stored) return [];
  try {
    const lineage: unknown = JSON.parse(stored);
    if (Array.isArray(lineage) && lineage.every((id) => typeof id === "string")) return lineage;
  } catch {
    // reported below
  }
  unreadableStoredValue(item, "global_id_lineage", stored);
  return [];
}

/** Leaves out the keys whose value is null or undefined (schema.org data has no nulls). */
export function compact<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== null && value !== undefined),
  ) as Partial<T>;
}
