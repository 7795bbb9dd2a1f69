import type { ErrorCode } from "../../http/errors";

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
