import type { Principal } from "../../auth/principal";
import { can, type PostType } from "../../auth/roles";
import type { OwnedItem } from "../../auth/visibility";
import { ApiError, type ErrorCode } from "../../http/errors";
import type { LinkedPostGuard } from "./linked-post-store";
import { canDeleteItem, canEditItem } from "./post-access";

/** The checks of an update: the item exists (404) and the caller may edit it (403). */
export function editGuard<R extends OwnedItem>(principal: Principal, type: PostType, notFound: ErrorCode, ref: number | string): LinkedPostGuard<R> {
  return (current) => {
    if (!current) throw new ApiError(notFound, { ref });
    if (!canEditItem(principal, type, current)) throw new ApiError("rest_forbidden");
  };
}

/**
 * The checks of a delete: the item exists (404); the caller may delete it, and may delete for
 * good when `force` is asked (403); without `force`, it is not in the trash already (410).
 */
export function deleteGuard<R extends OwnedItem>(
  principal: Principal,
  type: PostType,
  codes: { notFound: ErrorCode; inTrash: ErrorCode },
  ref: number | string,
  force: boolean,
): LinkedPostGuard<R> {
  return (current) => {
    if (!current) throw new ApiError(codes.notFound, { ref });
    if (!canDeleteItem(principal, type, current) || (force && !can(principal.role, "force_delete"))) throw new ApiError("rest_forbidden");
    if (!force && current.status === "trash") throw new ApiError(codes.inTrash);
  };
}
