import type { RequestHandler } from "express";
import { can, type PostType } from "../../auth/roles";
import type { OwnedItem } from "../../auth/visibility";
import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { ApiError } from "../../http/errors";
import { requestLanguage } from "../../http/request-context";
import { matchedOperationId } from "../../openapi/query-normalizer";
import type { SpecOperation } from "../../openapi/spec";
import { canDeleteItem, canEditItem } from "./post-access";

/**
 * Object-level authorization of writes to events, venues and organizers, before the request is
 * validated (contract.md: authorization comes before the body). The spec's scopes have already
 * checked the role; this loads the item's owner and status and refuses what the caller may not
 * do to it: others' items, published ones, permanent deletion. The stores check again inside
 * the write's transaction; an item that does not exist is left to the handler (404).
 */

interface WriteRule {
  type: PostType;
  action: "edit" | "delete";
}

const ITEM_PATH = /^\/(events|venues|organizers)\/(?:\{id\}|by-slug\/\{slug\})$/;

function writeRules(operations: SpecOperation[]): Map<string, WriteRule> {
  const rules = new Map<string, WriteRule>();
  for (const operation of operations) {
    const match = ITEM_PATH.exec(operation.path);
    if (!match || operation.method === "get") continue;
    rules.set(operation.operationId, { type: match[1] as PostType, action: operation.method === "delete" ? "delete" : "edit" });
  }
  return rules;
}

async function ownerOf(db: Database, type: PostType, params: { id?: string; slug?: string }, language: string): Promise<OwnedItem | null> {
  const select = { status: true, authorId: true };
  if (params.id !== undefined) {
    const id = Number(params.id);
    if (!Number.isSafeInteger(id) || id < 0 || id > 2_147_483_647) return null;
    if (type === "events") return db.read.event.findUnique({ where: { id }, select });
    if (type === "venues") return db.read.venue.findUnique({ where: { id }, select });
    return db.read.organizer.findUnique({ where: { id }, select });
  }
  const slug = params.slug ?? "";
  if (type === "venues") return db.read.venue.findUnique({ where: { slug }, select });
  if (type === "organizers") return db.read.organizer.findUnique({ where: { slug }, select });
  const texts = await db.read.eventText.findMany({ where: { slug }, select: { language: true, event: { select } } });
  return (texts.find((text) => text.language === language) ?? texts[0])?.event ?? null;
}

export function authorizeItemWrites(operations: SpecOperation[], db: Database, config: Config): RequestHandler {
  const rules = writeRules(operations);
  return async (req, _res, next) => {
    const operationId = matchedOperationId(req);
    const rule = operationId ? rules.get(operationId) : undefined;
    const principal = req.principal;
    if (!rule || !principal) return next();
    const params = (req as typeof req & { openapi?: { pathParams?: { id?: string; slug?: string } } }).openapi?.pathParams ?? {};
    const item = await ownerOf(db, rule.type, params, requestLanguage(req, config));
    if (!item) return next();
    const allowed = rule.action === "edit" ? canEditItem(principal, rule.type, item) : canDeleteItem(principal, rule.type, item);
    const force = rule.action === "delete" && String((req.query as { force?: unknown }).force) === "true";
    if (!allowed || (force && !can(principal.role, "force_delete"))) return next(new ApiError("rest_forbidden"));
    next();
  };
}
