/**
 * Roles and their capabilities, after The Events Calendar's mapping of WordPress roles
 * (docs/compatibility.md §8). Capabilities named in the spec's security scopes are checked before
 * the request is validated; the others are checked by the handlers, on the item itself.
 */
export const ROLES = ["administrator", "editor", "author", "contributor", "subscriber"] as const;

export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

/** The post types whose items have authors and statuses. */
export type PostType = "events" | "venues" | "organizers";

const POST_TYPES: PostType[] = ["events", "venues", "organizers"];

function postCapabilities(actions: string[]): string[] {
  return POST_TYPES.flatMap((type) => actions.map((action) => `${action}_${type}`));
}

const EDITOR = [
  ...postCapabilities([
    "edit",
    "delete",
    "publish",
    "edit_published",
    "delete_published",
    "edit_others",
    "delete_others",
    "read_private",
    "edit_private",
    "delete_private",
  ]),
  "manage_categories",
  "manage_tags",
  // Their titles and descriptions are stored as sent; others' are filtered (text/kses.ts).
  "unfiltered_html",
];

const CAPABILITIES: Record<Role, ReadonlySet<string>> = {
  // Only administrators subscribe receivers to notifications and import feeds (both reach the
  // service's network; imports write events as their owner).
  administrator: new Set([...EDITOR, "force_delete", "manage_webhooks", "manage_imports"]),
  editor: new Set(EDITOR),
  // Authors manage their own items, published or not, and event categories (not tags).
  author: new Set([
    ...postCapabilities(["edit", "delete", "publish", "edit_published", "delete_published"]),
    "manage_categories",
  ]),
  // Contributors edit and delete their own unpublished items and cannot publish.
  contributor: new Set(postCapabilities(["edit", "delete"])),
  subscriber: new Set(),
};

export function can(role: Role, capability: string): boolean {
  return CAPABILITIES[role].has(capability);
}
