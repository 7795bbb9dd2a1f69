import type { Prisma } from "../../../generated/prisma/sqlite/client";
import type { ValueTypes } from "../../db/sql-json";
import type { ErrorCode } from "../../http/errors";
import type { QueryOf } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import type { RowsSpec } from "../../i18n/localized-rows";
import type { ModifiedWindow } from "../../sync/modified-window";

/**
 * A category or tag as stored: its own columns and its text in every language. One source for
 * the Prisma select and for the columns of the JSON statement that embeds terms in events.
 */
export const TERM_COLUMNS = {
  id: true,
  taxonomy: true,
  parentId: true,
  count: true,
  sourceLanguage: true,
  version: true,
} as const satisfies Prisma.TermSelect;

export const TERM_TEXT_FIELDS = ["name", "description", "slug"] as const;
export type TermTextField = (typeof TERM_TEXT_FIELDS)[number];

export const termSelect = {
  ...TERM_COLUMNS,
  texts: { select: { language: true, name: true, description: true, slug: true } },
} as const satisfies Prisma.TermSelect;

/** A term's columns are numbers and text, the same in JSON as in the record. */
export const TERM_VALUE_TYPES: ValueTypes = {};

export type TermRecord = Prisma.TermGetPayload<{ select: typeof termSelect }>;

export const TERM_TEXT: RowsSpec<TermTextField> = {
  fields: TERM_TEXT_FIELDS,
  nameField: "name",
  searchFields: ["name", "slug"],
};

export type Taxonomy = "category" | "tag";

/** What differs between event categories and tags; everything else about them is shared. */
export interface TaxonomyConfig {
  taxonomy: Taxonomy;
  /** The taxonomy name the original plugin uses, kept in representations for compatibility. */
  wpName: "tribe_events_cat" | "post_tag";
  /** Route of the collection, relative to the namespace. */
  collectionPath: "/categories" | "/tags";
  /** Key of the items in a collection response. */
  collectionKey: "categories" | "tags";
  /** Path of a term's archive page on the public site. */
  archivePath: string;
  hierarchical: boolean;
  notFound: ErrorCode;
  /** Base of a slug when the name has no letters or digits at all. */
  fallbackSlug: string;
}

export const CATEGORIES: TaxonomyConfig = {
  taxonomy: "category",
  wpName: "tribe_events_cat",
  collectionPath: "/categories",
  collectionKey: "categories",
  archivePath: "events/category",
  hierarchical: true,
  notFound: "rest-category-not-found",
  fallbackSlug: "category",
};

export const TAGS: TaxonomyConfig = {
  taxonomy: "tag",
  wpName: "post_tag",
  collectionPath: "/tags",
  collectionKey: "tags",
  archivePath: "tag",
  hierarchical: false,
  notFound: "rest-tag-not-found",
  fallbackSlug: "tag",
};

export type TermOrderBy = NonNullable<QueryOf<"listCategories">["orderby"]>;

/** A page of a term list, its filters resolved (docs/compatibility.md §6.2). */
export interface TermListQuery {
  taxonomy: Taxonomy;
  language: Language;
  defaultLanguage: Language;
  offset: number;
  limit: number;
  searchWords: string[];
  includeIds?: number[];
  excludeIds?: number[];
  order: "asc" | "desc";
  orderBy: TermOrderBy;
  hideEmpty: boolean;
  /** Direct children of this category; 0 for top-level ones. */
  parentId?: number;
  /** Terms linked to this event. */
  eventId?: number;
  slug?: string;
  /** Terms last written in this window (`modified_after`, `modified_before`). */
  modified: ModifiedWindow;
  /** Only these terms (the changed ones, in a sync). */
  onlyIds?: number[];
}
