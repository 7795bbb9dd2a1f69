import type { Request } from "express";
import { sendPage } from "../../http/collection";
import { sendRepresentation } from "../../http/conditional";
import { ApiError } from "../../http/errors";
import { bodyOf, itemRefOf, queryOf, type OperationHandler, type Operations } from "../../http/operation-types";
import { context, type RequestContext } from "../../http/request-context";
import type { Services } from "../../services";
import { sendPing } from "./webhook-worker";
import { deliveryPage } from "./webhook-repository";
import { serializeDelivery, serializeSubscription } from "./webhook-serializer";
import {
  createSubscription,
  deleteSubscription,
  findSubscription,
  listSubscriptions,
  updateSubscription,
  type Subscription,
} from "./webhook-subscriptions";

/** The webhook subscriptions' operations (administrators only: the spec's scopes say so). */
export function webhookOperations(
  services: Services,
): Operations<
  | "listWebhooks"
  | "createWebhook"
  | "getWebhook"
  | "updateWebhook"
  | "putWebhook"
  | "patchWebhook"
  | "deleteWebhook"
  | "listWebhookDeliveries"
  | "pingWebhook"
> {
  const { db, config } = services;
  const idOf = (req: Request) => (itemRefOf(req) as { id: number }).id;
  const found = async (req: Request): Promise<Subscription> => {
    const subscription = await findSubscription(db, idOf(req));
    if (!subscription) throw new ApiError("rest_webhook_not_found", { id: idOf(req) });
    return subscription;
  };
  const present = (subscription: Subscription, ctx: RequestContext) => serializeSubscription(subscription, ctx);

  const list: OperationHandler = (req, res) => {
    const ctx = context(req);
    const page = { path: "/webhooks", key: "webhooks", query: queryOf(req, "listWebhooks") };
    return sendPage(req, res, config, page, async (offset, limit) => {
      const { items, total } = await listSubscriptions(db, offset, limit);
      return { items: items.map((item) => present(item, ctx)), total };
    });
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const subscription = await createSubscription(
      db,
      config,
      bodyOf(req, "createWebhook"),
      ctx.language,
      services.clock(),
    );
    const body = serializeSubscription(subscription, ctx, { secret: true });
    res.setHeader("Location", body.rest_url);
    // The secret is in this answer only: no tag that a cache could keep it under.
    sendRepresentation(res, body, { status: 201, etag: null });
  };

  const get: OperationHandler = async (req, res) => sendRepresentation(res, present(await found(req), context(req)));

  const update: OperationHandler = async (req, res) => {
    const updated = await updateSubscription(db, config, idOf(req), bodyOf(req, "updateWebhook"), services.clock());
    if (!updated) throw new ApiError("rest_webhook_not_found", { id: idOf(req) });
    sendRepresentation(res, present(updated, context(req)));
  };

  const remove: OperationHandler = async (req, res) => {
    const subscription = await found(req);
    await deleteSubscription(db, subscription.id);
    sendRepresentation(res, { deleted: true, previous: present(subscription, context(req)) }, { etag: null });
  };

  const deliveries: OperationHandler = async (req, res) => {
    const { id } = await found(req);
    const query = queryOf(req, "listWebhookDeliveries");
    await sendPage(
      req,
      res,
      config,
      { path: `/webhooks/${id}/deliveries`, key: "deliveries", query },
      async (offset, limit) => {
        const { rows, total } = await deliveryPage(db, id, query.status, offset, limit);
        return { items: rows.map(serializeDelivery), total };
      },
    );
  };

  const ping: OperationHandler = async (req, res) => {
    const subscription = await found(req);
    // Signed at the real time (receivers check it), whatever clock the service reads dates with.
    sendRepresentation(res, serializeDelivery(await sendPing(db, config, subscription, Date.now())), { etag: null });
  };

  return {
    listWebhooks: { run: list },
    createWebhook: { run: create },
    getWebhook: { run: get },
    updateWebhook: { run: update },
    putWebhook: { run: update },
    patchWebhook: { run: update },
    deleteWebhook: { run: remove },
    listWebhookDeliveries: { run: deliveries },
    pingWebhook: { run: ping },
  };
}
