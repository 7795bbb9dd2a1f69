import type { Principal } from "./principal";
import { can, type PostType } from "./roles";
import type { OwnedItem, PostStatus } from "./visibility";
import { invalidParam } from "../http/errors";

/**
 * Who may see and change events, venues and organizers (docs/compatibility.md §7.4, §8): the statuses
 * a caller may list, the conditions a list query needs so that nothing else leaks, the
 * object-level edit and delete rights, and status scaling for those who may not publish.
 */

/** Statuses listed when the caller asks for none: everything but the trash. */
export const DEFAULT_LIST_STATUSES: PostStatus[] = ["publish", "future", "draft", "pending", "private"];

/**
 * The statuses to list. Callers who may not edit items of the type may only ask for `publish`
 * (docs/compatibility.md §5.4); others may ask for any status.
 */
export function statusesToList(
  principal: Principal | null,
  type: PostType,
  requested: PostStatus[] | undefined,
): PostStatus[] {
  if (requested === undefined)
    return principal && can(principal.role, `edit_${type}`) ? DEFAULT_LIST_STATUSES : ["publish"];
  const statuses = [...new Set(requested)];
  if (!(principal && can(principal.role, `edit_${type}`)) && !(statuses.length === 1 && statuses[0] === "publish")) {
    throw invalidParam("status", "rest_status_forbidden");
  }
  return statuses;
}

/** A condition on an item's status and author, shaped like the where-input of every post model. */
export type StatusCondition = { status: PostStatus; authorId?: number };

/**
 * The conditions under which the caller may see an item of each of `statuses` in a list: all of
 * them, only their own, or none. The result is an OR-list; an empty one matches nothing.
 */
export function listableConditions(
  principal: Principal | null,
  type: PostType,
  statuses: PostStatus[],
): StatusCondition[] {
  const conditions: StatusCondition[] = [];
  for (const status of statuses) {
    if (status === "publish") {
      conditions.push({ status });
      continue;
    }
    if (!principal) continue;
    // Stryker disable all: equivalent under roles.ts, where a role that edits others' items also deletes them and edits, deletes and reads their private ones; kept for WordPress's meaning
    const [others, own] =
      status === "trash"
        ? [`delete_others_${type}`, `delete_${type}`]
        : status === "private"
          ? [`read_private_${type}`, `edit_${type}`]
          : [`edit_others_${type}`, `edit_${type}`];
    // Stryker restore all
    if (can(principal.role, others)) conditions.push({ status });
    else if (can(principal.role, own)) conditions.push({ status, authorId: principal.userId });
  }
  return conditions;
}

function isPublished(item: OwnedItem): boolean {
  return item.status === "publish" || item.status === "future";
}

function mayChange(principal: Principal, type: PostType, item: OwnedItem, action: "edit" | "delete"): boolean {
  const role = principal.role;
  if (!can(role, `${action}_${type}`)) return false;
  const own = item.authorId === principal.userId;
  if (!own && !can(role, `${action}_others_${type}`)) return false;
  if (isPublished(item) && !can(role, `${action}_published_${type}`)) return false;
  // Stryker disable next-line all: equivalent under roles.ts, where a role that edits others' items also deletes them and edits, deletes and reads their private ones; kept for WordPress's meaning
  if (item.status === "private" && !own && !can(role, `${action}_private_${type}`)) return false;
  return true;
}

/** WordPress's edit_post: own or others', published or not, per the role's capabilities. */
export function canEditItem(principal: Principal, type: PostType, item: OwnedItem): boolean {
  return mayChange(principal, type, item, "edit");
}

/** WordPress's delete_post. */
export function canDeleteItem(principal: Principal, type: PostType, item: OwnedItem): boolean {
  return mayChange(principal, type, item, "delete");
}

/**
 * Which items of a type the caller may edit, as a condition a query can apply: all of them, none,
 * or their own (only the unpublished ones, for those who may not edit published items).
 */
export type EditableCondition = { all: true } | { none: true } | { authorId: number; unpublishedOnly: boolean };

export function editableCondition(principal: Principal | null, type: PostType): EditableCondition {
  if (!principal || !can(principal.role, `edit_${type}`)) return { none: true };
  if (can(principal.role, `edit_others_${type}`)) return { all: true };
  return { authorId: principal.userId, unpublishedOnly: !can(principal.role, `edit_published_${type}`) };
}

/** Whether the caller may make a write to an item: edit it, or delete it (move it to the trash). */
export function mayWriteItem(
  principal: Principal,
  type: PostType,
  item: OwnedItem,
  action: "edit" | "delete",
): boolean {
  // Stryker disable next-line all: equivalent under roles.ts, where a role that edits others' items also deletes them and edits, deletes and reads their private ones; kept for WordPress's meaning
  return action === "edit" ? canEditItem(principal, type, item) : canDeleteItem(principal, type, item);
}

/**
 * The status an item gets on a write. Those who may publish get what they ask for (`publish`
 * when creating without a status). The others (contributors) cannot publish: `publish`, `future`
 * and `private` become `pending`, and a new item without a status is a `draft`.
 */
export function scaledStatus(
  principal: Principal,
  type: PostType,
  requested: PostStatus | undefined,
  current?: PostStatus,
): PostStatus {
  const canPublish = can(principal.role, `publish_${type}`);
  if (requested === undefined) return current ?? (canPublish ? "publish" : "draft");
  if (!canPublish && (requested === "publish" || requested === "future" || requested === "private")) return "pending";
  return requested;
}
