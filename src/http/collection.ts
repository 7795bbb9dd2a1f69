import { isSecretParameter } from "./secret-parameters";
import type { Request, Response } from "express";
import type { Config } from "../config";
import { sendRepresentation } from "./conditional";
import { context, type RequestContext } from "./request-context";

export interface PageRequest {
  page: number;
  perPage: number;
}

/** The page asked for, with `per_page` defaulted and clamped to the configured maximum. */
export function pageRequest(query: { page?: number; per_page?: number }, config: Config): PageRequest {
  return { page: query.page ?? 1, perPage: Math.min(query.per_page ?? config.perPageDefault, config.perPageMax) };
}

export function offsetOf(page: PageRequest): number {
  return (page.page - 1) * page.perPage;
}

export function totalPagesOf(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

export type QueryValue = string | number | boolean | Array<string | number>;

/** Percent-encodes a query; lists become comma-separated (the form the spec accepts back). */
export function encodeQuery(entries: Array<[string, QueryValue]>): string {
  return entries
    .map(([name, value]) => {
      const text = Array.isArray(value)
        ? value.map((item) => encodeURIComponent(String(item))).join(",")
        : encodeURIComponent(String(value));
      return `${encodeURIComponent(name)}=${text}`;
    })
    .join("&");
}

/**
 * The query a collection URL repeats: `page` and `per_page` (effective values), then every other
 * parameter the client sent, with its validated value, in the order the request had them, but a
 * secret (an event's `password`: see secret-parameters.ts).
 * `overrides` replaces values with their effective form (e.g. normalized dates).
 */
export function echoedQuery(
  req: Request,
  page: PageRequest,
  overrides: Record<string, QueryValue> = {},
): Array<[string, QueryValue]> {
  const sent = new URL(req.originalUrl, "http://x").searchParams;
  const names: string[] = [];
  for (const raw of sent.keys()) {
    const name = raw.replace(/\[\]$/, "");
    if (name !== "page" && name !== "per_page" && !isSecretParameter(name) && !names.includes(name)) names.push(name);
  }
  for (const name of Object.keys(overrides)) if (!names.includes(name)) names.push(name);
  const query = req.query as Record<string, QueryValue | undefined>;
  const entries: Array<[string, QueryValue]> = [
    ["page", page.page],
    ["per_page", page.perPage],
  ];
  for (const name of names) {
    const value = name in overrides ? overrides[name] : query[name];
    if (value !== undefined) entries.push([name, value]);
  }
  return entries;
}

export interface CollectionLinks {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

export function collectionLinks(
  ctx: RequestContext,
  path: string,
  query: Array<[string, QueryValue]>,
  page: PageRequest,
  totalPages: number,
): CollectionLinks {
  const url = (pageNumber: number) =>
    `${ctx.apiBase}${path}?${encodeQuery(query.map(([name, value]): [string, QueryValue] => (name === "page" ? [name, pageNumber] : [name, value])))}`;
  const links: CollectionLinks = { rest_url: url(page.page) };
  if (page.page < totalPages) links.next_rest_url = url(page.page + 1);
  if (page.page > 1) links.previous_rest_url = url(Math.min(page.page - 1, Math.max(totalPages, 1)));
  return links;
}

/** X-TEC-* and X-WP-* totals, and an RFC 8288 Link header for the next and previous pages. */
function collectionHeaders(total: number, totalPages: number, links: CollectionLinks): Array<[string, string]> {
  const headers: Array<[string, string]> = [
    ["X-TEC-Total", String(total)],
    ["X-TEC-TotalPages", String(totalPages)],
    ["X-WP-Total", String(total)],
    ["X-WP-TotalPages", String(totalPages)],
  ];
  const link: string[] = [];
  if (links.next_rest_url) link.push(`<${links.next_rest_url}>; rel="next"`);
  if (links.previous_rest_url) link.push(`<${links.previous_rest_url}>; rel="prev"`);
  if (link.length > 0) headers.push(["Link", link.join(", ")]);
  return headers;
}

/** Sets a page's collection headers (collectionHeaders); answers them, for a kept copy of the page to send again. */
export function setCollectionHeaders(
  res: Response,
  total: number,
  totalPages: number,
  links: CollectionLinks,
): Array<[string, string]> {
  const headers = collectionHeaders(total, totalPages, links);
  applyCollectionHeaders(res, headers);
  return headers;
}

/** Sets a page's headers, made now or kept: its links beside the REST root's, in one field. */
export function applyCollectionHeaders(res: Response, headers: ReadonlyArray<readonly [string, string]>): void {
  for (const [name, value] of headers) {
    // The REST root's link is set on every answer (http/request-pipeline.ts, discoveryLink).
    const before = name === "Link" ? res.getHeader("Link") : undefined;
    res.setHeader(name, typeof before === "string" ? `${before}, ${value}` : value);
  }
}

/** What a plain page of a collection is: where it is, the key its items go under, the page asked for. */
export interface PlainPage {
  path: string;
  key: string;
  query: { page?: number; per_page?: number };
}

/**
 * Answers a plain page of a collection (the administrators' lists: webhooks and their deliveries,
 * import sources and their runs): its items under `key`, its links, its totals, and their headers.
 * `read` gives the items of a window, shown, and how many there are in all.
 */
export async function sendPage(
  req: Request,
  res: Response,
  config: Config,
  page: PlainPage,
  read: (offset: number, limit: number) => Promise<{ items: unknown[]; total: number }>,
): Promise<void> {
  const asked = pageRequest(page.query, config);
  const { items, total } = await read(offsetOf(asked), asked.perPage);
  const totalPages = totalPagesOf(total, asked.perPage);
  const links = collectionLinks(context(req), page.path, echoedQuery(req, asked), asked, totalPages);
  setCollectionHeaders(res, total, totalPages, links);
  sendRepresentation(res, { [page.key]: items, ...links, total, total_pages: totalPages });
}
