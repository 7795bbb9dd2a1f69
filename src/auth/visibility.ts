import type { Principal } from "./principal";
import { can, type PostType } from "./roles";

/** Post statuses of events, venues and organizers (WordPress's). */
export const POST_STATUSES = ["publish", "future", "draft", "pending", "private", "trash"] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export interface OwnedItem {
  status: string;
  authorId: number;
}

function owns(principal: Principal, item: OwnedItem): boolean {
  return principal.userId === item.authorId;
}

/**
 * Whether the caller may read an item of this status (docs/compatibility.md §8): published items are
 * public; scheduled, draft and pending ones are for their author and for editors; private ones
 * for their author and for whoever may read private items. Trashed items are nobody's to read.
 */
export function canReadItem(principal: Principal | null, type: PostType, item: OwnedItem): boolean {
  if (item.status === "publish") return true;
  if (!principal || item.status === "trash") return false;
  const mine = owns(principal, item) && can(principal.role, `edit_${type}`);
  // Stryker disable next-line all: equivalent while every role that reads others' private items also edits others' (roles.ts)
  if (item.status === "private") return mine || can(principal.role, `read_private_${type}`);
  return mine || can(principal.role, `edit_others_${type}`);
}
