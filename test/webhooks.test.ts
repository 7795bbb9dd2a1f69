// Webhooks (issue 20): subscriptions through the API, notifications written with the change in one
// transaction, delivered by workers to a real local HTTP receiver, signed as Standard Webhooks
// say, retried, ordered per item, de-duplicable, and not lost when the service is killed.
import { createUser as createUserWithCredentials } from "../src/resources/users/user-admin";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/database";
import { inTransaction } from "../src/db/transaction";
import { createLogger } from "../src/logging/logger";
import { networkInterfaces } from "node:os";
import { refusedAddress } from "../src/net/outbound-guard";
import { privateTargets } from "../src/resources/webhooks/webhook-sender";
import { signMessage, verifyMessage } from "../src/resources/webhooks/webhook-signature";
import { pruneDeliveryLog, WebhookWorker } from "../src/resources/webhooks/webhook-worker";
import { createEventVia, utcWall } from "./support/events";
import { createTermVia } from "./support/fixtures";
import { startServiceProcess, type ServiceProcess } from "./support/service-process";
import { createTestDatabase, type TestDatabase } from "./support/test-database";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";
import { startReceiver, type Receiver, type Received } from "./support/webhook-receiver";
import { itemSnapshot } from "../src/item-snapshots";

const root = "/calendar/events/v1";
// Fast retries, a short time limit, and receivers on 127.0.0.1 allowed.
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_POLL_MS: "30",
  WEBHOOK_FIRST_RETRY_MS: "100",
  WEBHOOK_MAX_RETRY_DELAY_SECONDS: "1",
  WEBHOOK_TIMEOUT_MS: "2000",
};

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer(WEBHOOK_ENV, { deliverWebhooks: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});
beforeEach(async () => {
  receiver.received.length = 0;
  receiver.respond = () => 200;
  await server.db.write.webhookDelivery.deleteMany({});
  await server.db.write.webhookSubscription.deleteMany({});
});

const admin = (method: string, path: string, body?: unknown) =>
  server.raw(method, `${root}${path}`, { body, headers: ADMIN_HEADERS });
/** A write that must succeed (what it is notified of is the test). */
async function written(method: string, path: string, body?: unknown) {
  const response = await admin(method, path, body);
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
  return response;
}

async function subscribe(body: Record<string, unknown> = {}) {
  const response = await admin("POST", "/webhooks", { url: receiver.url, ...body });
  expect(response.status).toBe(201);
  return response.body as { id: number; secret: string; rest_url: string };
}

const distinctById = (received: Received[]) => [...new Map(received.map((request) => [request.id, request])).values()];
// Each message once (a slow answer may be taken for none, and the message sent again: receivers de-duplicate).
const ofItem = (id: number) => (received: Received[]) =>
  distinctById(received.filter((request) => request.json.data.id === id));
const messages = () => distinctById(receiver.received);
const typesOf = (received: Received[]) => received.map((request) => request.json.type);
describe("subscriptions API", () => {
  it("creates, shows the secret once, lists, updates and deletes a subscription", async () => {
    const created = await admin("POST", "/webhooks", {
      url: receiver.url,
      event_types: ["event.created"],
      description: "Newsletter",
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(created.body.rest_url);
    expect(created.body).toMatchObject({
      url: receiver.url,
      event_types: ["event.created"],
      description: "Newsletter",
      active: true,
      paused_reason: null,
      language: "en",
      filter: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const shown = await admin("GET", `/webhooks/${created.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBeUndefined();
    expect(shown.text).not.toContain(created.body.secret);
    const listed = await admin("GET", "/webhooks");
    expect(listed.body).toMatchObject({ total: 1, total_pages: 1 });
    expect(listed.text).not.toContain(created.body.secret);
    const patched = await admin("PATCH", `/webhooks/${created.body.id}`, {
      active: false,
      event_types: ["event.created", "tag.deleted"],
    });
    expect(patched.body).toMatchObject({
      active: false,
      event_types: ["event.created", "tag.deleted"],
      url: receiver.url,
    });
    const inSpanish = await server.raw("POST", `/es${root}/webhooks`, {
      body: { url: receiver.url },
      headers: ADMIN_HEADERS,
    });
    expect(inSpanish.body.language).toBe("es");
    expect(inSpanish.body.event_types).toHaveLength(15);
    const deleted = await admin("DELETE", `/webhooks/${created.body.id}`);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: created.body.id } });
    expect((await admin("GET", `/webhooks/${created.body.id}`)).body.code).toBe("rest_webhook_not_found");
  });

  it("is for administrators only", async () => {
    const editor = await createUserWithCredentials(server.db, { login: "webhook-editor", role: "editor" });
    expect((await server.raw("GET", `${root}/webhooks`)).status).toBe(401);
    expect((await server.raw("POST", `${root}/webhooks`, { body: { url: receiver.url } })).status).toBe(401);
    const asEditor = await server.raw("POST", `${root}/webhooks`, {
      body: { url: receiver.url },
      headers: { Authorization: `Bearer ${editor.api_key}` },
    });
    expect(asEditor.status).toBe(403);
    expect(asEditor.body.code).toBe("rest_forbidden");
  });

  it("refuses targets that are not http(s), carry credentials or name refused addresses, and unknown filter terms", async () => {
    for (const url of [
      "ftp://example.org/hook",
      "http://user:pw@example.org/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]/hook",
      "http://224.0.0.1/hook",
    ]) {
      const response = await admin("POST", "/webhooks", { url });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("rest_invalid_param");
    }
    const linkLocal = await admin("POST", "/webhooks", { url: "http://169.254.169.254/" });
    expect(linkLocal.body.data.details.url.code).toBe("rest_invalid_webhook_target");
    // Documentation, reserved and IPv4-embedding targets, refused although private targets are allowed in this suite.
    for (const host of [
      "192.0.2.1",
      "198.51.100.1",
      "203.0.113.1",
      "192.0.0.1",
      "[64:ff9b::7f00:1]",
      "[2002:7f00:1::]",
      "[::7f00:1]",
      "[100::1]",
      "[2001:db8::1]",
    ]) {
      const response = await admin("POST", "/webhooks", { url: `http://${host}/hook` });
      expect([host, response.status, response.body.data?.details?.url?.code]).toEqual([
        host,
        400,
        "rest_invalid_webhook_target",
      ]);
    }
    const unknownCategory = await admin("POST", "/webhooks", { url: receiver.url, filter: { categories: [999_999] } });
    expect(unknownCategory.status).toBe(400);
    expect(unknownCategory.body.data.details["filter[categories]"].code).toBe("rest_term_not_found");
    const unknownType = await admin("POST", "/webhooks", { url: receiver.url, event_types: ["event.exploded"] });
    expect(unknownType.status).toBe(400);
    expect((await admin("GET", "/webhooks")).body.total).toBe(0);
  });

  it("classifies addresses: special-purpose never, private and loopback only when allowed", () => {
    expect(refusedAddress("169.254.169.254", privateTargets(true))).toMatch(/special-purpose.*linkLocal/);
    expect(refusedAddress("::ffff:169.254.169.254", privateTargets(true))).toMatch(/linkLocal/);
    expect(refusedAddress("127.0.0.1", privateTargets(false))).toMatch(/private/);
    expect(refusedAddress("::ffff:10.1.2.3", privateTargets(false))).toMatch(/private/);
    expect(refusedAddress("fd00::1", privateTargets(false))).toMatch(/private/);
    expect(refusedAddress("100.64.1.1", privateTargets(false))).toMatch(/private/);
    expect(refusedAddress("0.0.0.0", privateTargets(true))).toMatch(/unspecified/);
    expect(refusedAddress("127.0.0.1", privateTargets(true))).toBeNull();
    expect(refusedAddress("::1", privateTargets(true))).toBeNull();
    expect(refusedAddress("10.1.2.3", privateTargets(true))).toBeNull();
    expect(refusedAddress("93.184.216.34", privateTargets(false))).toBeNull();
    expect(refusedAddress("2606:4700::1111", privateTargets(false))).toBeNull();
    expect(refusedAddress("::ffff:93.184.216.34", privateTargets(false))).toBeNull();
    // The IANA special-purpose registries, and IPv6 forms that embed an IPv4 address (loopback here), allowed private targets or not.
    for (const address of [
      "192.0.2.1",
      "198.51.100.7",
      "203.0.113.9",
      "192.0.0.1",
      "192.0.0.9",
      "198.18.0.1",
      "192.88.99.1",
      "192.31.196.1",
      "192.52.193.1",
      "240.0.0.1",
      "255.255.255.255",
      "224.0.0.1",
      "64:ff9b::7f00:1",
      "64:ff9b:1::7f00:1",
      "2002:7f00:1::",
      "::7f00:1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "100::1",
      "2001:db8::1",
      "3fff::1",
      "2001:2::1",
      "5f00::1",
      "fe80::1",
      "ff02::1",
      "::",
    ]) {
      expect([address, refusedAddress(address, privateTargets(true))]).toEqual([
        address,
        expect.stringMatching(/never reached/),
      ]);
    }
  });

  it("never sends to this machine's own addresses but loopback, allowed private targets or not", () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((entry) => !entry.internal)
      .map((entry) => entry.address);
    for (const address of own)
      expect([address, refusedAddress(address, privateTargets(true))]).toEqual([
        address,
        expect.stringMatching(/never reached|this machine/),
      ]);
    // On our machines eth0 has a unique local IPv6 address, which private targets would allow were it not this machine's own.
    for (const address of own.filter((candidate) => /^f[cd]/i.test(candidate)))
      expect(refusedAddress(address, privateTargets(true))).toMatch(/this machine/);
  });
});

describe("signatures", () => {
  it("sign as the Standard Webhooks specification's published test vector does", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    expect(signMessage(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
    const headers = {
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: "1614265330",
      signature: "v1,bm9wZQ== v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    };
    expect(verifyMessage(secret, headers, body, 1614265330_000)).toBe(true);
    // Too old (a replay), or another body.
    expect(verifyMessage(secret, headers, body, (1614265330 + 301) * 1000)).toBe(false);
    expect(verifyMessage(secret, headers, '{"test": 2432232315}', 1614265330_000)).toBe(false);
  });
});

describe("notifications", () => {
  it("sends a signed, de-duplicable notification for every committed change, as an anonymous reader sees the item", async () => {
    const { secret } = await subscribe();
    const event = await createEventVia(server, {
      title: "Launch party",
      description: "Bring friends",
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await receiver.waitFor((received) => ofItem(event.id)(received).length >= 1);
    const [notification] = ofItem(event.id)(receiver.received);
    expect(notification.json).toMatchObject({
      type: "event.created",
      data: { resource: "events", id: event.id, item: { id: event.id, title: "Launch party" } },
    });
    expect(notification.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(verifyMessage(secret, notification, notification.body)).toBe(true);
    expect(verifyMessage(secret, notification, notification.body.replace("Launch", "Lunch"))).toBe(false);
    expect(
      verifyMessage("whsec_" + Buffer.from("another key").toString("base64"), notification, notification.body),
    ).toBe(false);
    // The header is what the specification's own formula gives.
    expect(notification.signature).toBe(
      signMessage(secret, notification.id, Number(notification.timestamp), notification.body),
    );

    await written("POST", `/events/${event.id}`, { title: "Launch party (moved)" });
    await written("DELETE", `/events/${event.id}`);
    await receiver.waitFor((received) => ofItem(event.id)(received).length >= 3);
    expect(typesOf(ofItem(event.id)(receiver.received))).toEqual(["event.created", "event.updated", "event.deleted"]);
    const deletion = ofItem(event.id)(receiver.received)[2];
    expect(deletion.json.data.item).toBeUndefined();
    expect(receiver.verified(secret)).toHaveLength(receiver.received.length);
    expect(new Set(receiver.verified(secret).map((request) => request.id)).size).toBe(3);

    const log = await admin("GET", `/webhooks/${(await admin("GET", "/webhooks")).body.webhooks[0].id}/deliveries`);
    expect(log.body.total).toBe(3);
    expect(log.body.deliveries[0]).toMatchObject({
      type: "event.deleted",
      status: "delivered",
      next_attempt_at: null,
      last_attempt: { status_code: 200, error: null },
    });
    expect(log.body.deliveries.map((delivery: { id: string }) => delivery.id).sort()).toEqual(
      messages()
        .map((request) => request.id)
        .sort(),
    );
  });

  it("tells of items that predate every subscription as updated, and of new ones as created", async () => {
    const older = await createTermVia(server, "tags", { name: "older than the subscription" });
    const olderDraft = await createEventVia(server, {
      title: "Old draft",
      status: "draft",
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await server.db.write.webhookItemState.deleteMany({});
    await subscribe({ event_types: ["tag.created", "tag.updated", "event.created", "event.updated", "event.deleted"] });
    await admin("POST", `/tags/${older.id}`, { description: "changed" });
    await written("POST", `/events/${olderDraft.id}`, { title: "Old draft, edited" });
    const newer = await createTermVia(server, "tags", { name: "newer" });
    await receiver.waitFor((received) =>
      ofItem(newer.id)(received).some((request) => request.json.data.resource === "tags"),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Two items: sent at once, they may arrive in either order (order is kept per item).
    const told = messages().map((request): [string, number] => [request.json.type, request.json.data.id]);
    expect(told.sort((a, b) => a[1] - b[1])).toEqual([
      ["tag.updated", older.id],
      ["tag.created", newer.id],
    ]);
  });

  it("tells of a category that predates the subscription as updated when only its count changes, and of one an event write makes as created", async () => {
    const older = await createTermVia(server, "categories", { name: "older category" });
    await server.db.write.webhookItemState.deleteMany({});
    await subscribe({ event_types: ["category.created", "category.updated"] });
    // The event links the older category (its count changes) and makes a new one by name.
    await written("POST", "/events", {
      title: "Links both",
      start_date: utcWall(24),
      end_date: utcWall(26),
      categories: [older.id, "made by the event"],
    });
    await receiver.waitFor((received) => distinctById(received).length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const told = messages().map((request): [string, string] => [
      request.json.type,
      request.json.data.id === older.id ? "older" : "new",
    ]);
    expect(told.sort()).toEqual([
      ["category.created", "new"],
      ["category.updated", "older"],
    ]);
  });

  it("never sends drafts, and shows a password-protected event without its protected text", async () => {
    await subscribe({ event_types: ["event.created", "event.updated", "event.deleted"] });
    const draft = await createEventVia(server, {
      title: "Secret plans",
      status: "draft",
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await written("POST", `/events/${draft.id}`, { title: "Still secret" });
    const protectedEvent = await createEventVia(server, {
      title: "Members only",
      description: "The door code is 4321",
      password: "hunter2",
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await receiver.waitFor((received) => ofItem(protectedEvent.id)(received).length >= 1);
    // Its changes came after the draft's in the log: the draft's were not sent.
    expect(ofItem(draft.id)(receiver.received)).toHaveLength(0);
    await written("POST", `/events/${draft.id}`, { status: "publish" });
    await receiver.waitFor((received) => ofItem(draft.id)(received).length >= 1);
    expect(typesOf(ofItem(draft.id)(receiver.received))).toEqual(["event.created"]);
    const shown = ofItem(protectedEvent.id)(receiver.received)[0];
    expect(shown.body).not.toContain("4321");
    expect(shown.body).not.toContain("hunter2");
    // Unpublishing is a deletion for those who could see it.
    await written("POST", `/events/${draft.id}`, { status: "draft" });
    await receiver.waitFor((received) => ofItem(draft.id)(received).length >= 2);
    expect(typesOf(ofItem(draft.id)(receiver.received))).toEqual(["event.created", "event.deleted"]);
    expect(receiver.received.some((request) => request.body.includes("Secret plans"))).toBe(false);
  });

  it("sends venue, organizer, category and tag changes, in the subscription's language, of the types it wants", async () => {
    await subscribe({
      event_types: ["venue.created", "category.created", "category.updated", "tag.deleted"],
      language: "es",
    });
    // Order is kept per item only (webhook-worker.ts): each change waits for the one before to
    // arrive, so that the four items' notifications arrive in the order they were made.
    const arrived = (count: number) => receiver.waitFor((received) => distinctById(received).length >= count);
    const venue = await server.raw("POST", `${root}/venues`, {
      body: { venue: "Teatro", status: "publish" },
      headers: ADMIN_HEADERS,
    });
    await arrived(1);
    const category = await createTermVia(server, "categories", { name: "Música" });
    await arrived(2);
    await server.raw("POST", `/es${root}/categories/${category.id}`, {
      body: { name: "Música en vivo" },
      headers: ADMIN_HEADERS,
    });
    await arrived(3);
    const tag = await createTermVia(server, "tags", { name: "gratis" });
    await admin("DELETE", `/tags/${tag.id}`);
    await arrived(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(typesOf(messages())).toEqual(["venue.created", "category.created", "category.updated", "tag.deleted"]);
    expect(messages()[0].json.data).toMatchObject({ resource: "venues", id: venue.body.id, item: { venue: "Teatro" } });
    expect(messages()[2].json.data.item).toMatchObject({ name: "Música en vivo" });
    expect(messages()[3].json.data).toEqual({ resource: "tags", id: tag.id });
  });

  it("filters events by category: entering the filter is a creation, leaving it a deletion", async () => {
    const jazz = await createTermVia(server, "categories", { name: "Jazz" });
    const rock = await createTermVia(server, "categories", { name: "Rock" });
    await subscribe({
      filter: { categories: [jazz.id] },
      event_types: ["event.created", "event.updated", "event.deleted"],
    });
    const rockEvent = await createEventVia(server, {
      title: "Rock night",
      categories: [rock.id],
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    const jazzEvent = await createEventVia(server, {
      title: "Jazz night",
      categories: [jazz.id],
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await written("POST", `/events/${jazzEvent.id}`, { categories: [rock.id] });
    await written("POST", `/events/${rockEvent.id}`, { categories: [rock.id, jazz.id] });
    await receiver.waitFor((received) => distinctById(received).length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // In order for each event; notifications of different events may be sent at once.
    const ofEvent = (id: number) =>
      messages()
        .filter((request) => request.json.data.id === id)
        .map((request) => request.json.type);
    expect(messages()).toHaveLength(3);
    expect(ofEvent(jazzEvent.id)).toEqual(["event.created", "event.deleted"]);
    expect(ofEvent(rockEvent.id)).toEqual(["event.created"]);
  });

  it("sends nothing for a write that rolled back", async () => {
    await subscribe();
    const event = await createEventVia(server, {
      title: "Stays as is",
      start_date: utcWall(24),
      end_date: utcWall(26),
    });
    await receiver.waitFor((received) => ofItem(event.id)(received).length >= 1);
    await expect(
      inTransaction(server.db, async (tx) => {
        await tx.$executeRaw`UPDATE "Event" SET "featured" = ${true} WHERE "id" = ${event.id}`;
        await tx.$executeRaw`UPDATE "EventText" SET "title" = 'Never committed' WHERE "eventId" = ${event.id}`;
        throw new Error("the write fails after changing the event");
      }),
    ).rejects.toThrow("the write fails");
    // A later committed change of another item is delivered; nothing of the rolled-back one is.
    const tag = await createTermVia(server, "tags", { name: "after the rollback" });
    await receiver.waitFor((received) =>
      ofItem(tag.id)(received).some((request) => request.json.data.resource === "tags"),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      ofItem(event.id)(receiver.received).filter((request) => request.json.data.resource === "events"),
    ).toHaveLength(1);
    expect(receiver.received.some((request) => request.body.includes("Never committed"))).toBe(false);
    expect(await server.db.read.webhookOutbox.count()).toBe(0);
  });

  it("retries after 500s and time-outs with the same message id, then delivers once acknowledged", async () => {
    const { id: subscription } = await subscribe({ event_types: ["tag.created"] });
    let attempts = 0;
    receiver.respond = () => {
      attempts += 1;
      return attempts <= 2 ? 500 : attempts === 3 ? { status: 200, afterMs: 3_000 } : 200;
    };
    const tag = await createTermVia(server, "tags", { name: "retried" });
    await receiver.waitFor((received) => received.length >= 4);
    expect(new Set(receiver.received.map((request) => request.id)).size).toBe(1);
    expect(receiver.received.every((request) => request.json.data.id === tag.id)).toBe(true);
    const gaps = receiver.received.slice(1).map((request, i) => request.at - receiver.received[i].at);
    // Backoff: about 100 ms, then 200 ms, then (after the 2 s time limit) 400 ms, each between half and all of it.
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(2_000 + 190);
    const deliveries = async () => (await admin("GET", `/webhooks/${subscription}/deliveries`)).body.deliveries;
    for (let wait = 0; (await deliveries())[0].status !== "delivered" && wait < 100; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await deliveries())[0]).toMatchObject({
      status: "delivered",
      attempts: 4,
      last_attempt: { status_code: 200 },
    });
    const failedAttempts = await admin("GET", `/webhooks/${subscription}/deliveries?status=failed`);
    expect(failedAttempts.body.total).toBe(0);
  });

  it("delivers the notifications of one item in order, each after the one before it was acknowledged", async () => {
    await subscribe({ event_types: ["event.created", "event.updated"] });
    // Every first attempt fails: a later notification must still wait for the earlier one's retry.
    const seen = new Set<string>();
    receiver.respond = (request) => {
      if (seen.has(request.id)) return 200;
      seen.add(request.id);
      return 500;
    };
    const events = await Promise.all(
      [1, 2].map((n) =>
        createEventVia(server, { title: `Ordered ${n}.0`, start_date: utcWall(24), end_date: utcWall(26) }),
      ),
    );
    for (let version = 1; version <= 4; version += 1) {
      await Promise.all(
        events.map((event, i) => written("POST", `/events/${event.id}`, { title: `Ordered ${i + 1}.${version}` })),
      );
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const log = await server.db.read.webhookDelivery.findMany({ orderBy: { id: "asc" } });
    for (const event of events) {
      const expected = log.filter((delivery) => delivery.itemId === event.id).map((delivery) => delivery.messageId);
      await receiver.waitFor(
        (received) => new Set(ofItem(event.id)(received).map((request) => request.id)).size >= expected.length,
        20_000,
      );
      // The order of first sight follows the log, and nothing of the item was sent before the one before it was acknowledged.
      const arrivals = receiver.received
        .filter((request) => request.json.data.id === event.id)
        .map((request) => request.id);
      expect(ofItem(event.id)(receiver.received).map((request) => request.id)).toEqual(expected);
      expected.forEach((id, i) => {
        if (i === 0) return;
        const previousAcknowledged = arrivals.lastIndexOf(expected[i - 1]);
        expect(arrivals.indexOf(id)).toBeGreaterThan(previousAcknowledged);
      });
      expect(typesOf(ofItem(event.id)(receiver.received))[0]).toBe("event.created");
    }
  });

  it("deletes the subscription of a receiver that answers 410 Gone", async () => {
    const { id } = await subscribe({ event_types: ["tag.created"] });
    receiver.respond = () => 410;
    await createTermVia(server, "tags", { name: "gone" });
    await receiver.waitFor((received) => received.length >= 1);
    for (let wait = 0; (await admin("GET", `/webhooks/${id}`)).status !== 404 && wait < 100; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await admin("GET", `/webhooks/${id}`)).status).toBe(404);
  });

  it("sends a signed test ping and logs it", async () => {
    const { id, secret } = await subscribe();
    const ping = await admin("POST", `/webhooks/${id}/ping`);
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({
      type: "webhook.ping",
      status: "delivered",
      attempts: 1,
      last_attempt: { status_code: 200 },
    });
    expect(receiver.verified(secret)).toHaveLength(1);
    expect(receiver.received[0].json).toMatchObject({ type: "webhook.ping", data: { resource: "webhooks", id } });
    receiver.respond = () => 503;
    const failed = await admin("POST", `/webhooks/${id}/ping`);
    expect(failed.body).toMatchObject({ status: "failed", last_attempt: { status_code: 503 } });
    expect((await admin("GET", `/webhooks/${id}/deliveries`)).body.total).toBe(2);
    expect((await admin("POST", "/webhooks/999999/ping")).status).toBe(404);
  });
});

describe("the delivery log", () => {
  it("forgets delivered and failed deliveries after the retention period, never pending ones", async () => {
    const { id } = await subscribe();
    const day = 86_400_000;
    const now = Date.now();
    const delivery = (messageId: string, status: string, completedAt: number | null) => ({
      messageId,
      subscriptionId: id,
      type: "tag.created",
      resource: "tags",
      itemId: 1,
      payload: "{}",
      status,
      createdAt: now - 30 * day,
      nextAttemptAt: now + day,
      giveUpAt: now + day,
      completedAt,
    });
    await server.db.write.webhookDelivery.createMany({
      data: [
        delivery("msg_old_delivered", "delivered", now - 8 * day),
        delivery("msg_old_failed", "failed", now - 8 * day),
        delivery("msg_recent", "delivered", now - 6 * day),
        delivery("msg_waiting", "pending", null),
      ],
    });
    expect(await pruneDeliveryLog(server.db, new Date(now), 7)).toBe(2);
    const left = await server.db.read.webhookDelivery.findMany({
      where: { subscriptionId: id },
      orderBy: { messageId: "asc" },
    });
    expect(left.map((row) => row.messageId)).toEqual(["msg_recent", "msg_waiting"]);
  });
});

describe("a receiver that keeps failing", () => {
  let shortRetries: TestServer;
  beforeAll(async () => {
    // Three seconds: room for retries (every ~0.1 s) even when a loaded machine makes the first attempt late.
    shortRetries = await startTestServer(
      { ...WEBHOOK_ENV, WEBHOOK_RETRY_PERIOD_SECONDS: "3" },
      { deliverWebhooks: true },
    );
  });
  afterAll(() => shortRetries.close());

  it("fails the delivery after the retry period, pauses the subscription, and sends what waited once resumed", async () => {
    receiver.respond = () => 500;
    const created = await shortRetries.raw("POST", `${root}/webhooks`, {
      body: { url: receiver.url, event_types: ["tag.created"] },
      headers: ADMIN_HEADERS,
    });
    const id = created.body.id;
    const first = await createTermVia(shortRetries, "tags", { name: "first" });
    const show = async () => (await shortRetries.raw("GET", `${root}/webhooks/${id}`, { headers: ADMIN_HEADERS })).body;
    for (let wait = 0; (await show()).active && wait < 400; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await show()).toMatchObject({ active: false, paused_reason: "failing" });
    const failed = await shortRetries.raw("GET", `${root}/webhooks/${id}/deliveries?status=failed`, {
      headers: ADMIN_HEADERS,
    });
    expect(failed.body.deliveries[0]).toMatchObject({ status: "failed", last_attempt: { status_code: 500 } });
    // As many attempts as the receiver was sent (how many fit in the period depends on the machine's
    // load: retrying itself is the test above).
    const sentFirst = receiver.received.filter(
      (request) => request.json.data.id === first.id && request.json.data.resource === "tags",
    );
    expect(failed.body.deliveries[0].attempts).toBe(sentFirst.length);
    expect(new Set(sentFirst.map((request) => request.id)).size).toBe(1);
    // While paused, notifications wait.
    const second = await createTermVia(shortRetries, "tags", { name: "second" });
    receiver.respond = () => 200;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofItem(second.id)(receiver.received)).toHaveLength(0);
    const resumed = await shortRetries.raw("PATCH", `${root}/webhooks/${id}`, {
      body: { active: true },
      headers: ADMIN_HEADERS,
    });
    expect(resumed.body).toMatchObject({ active: true, paused_reason: null });
    await receiver.waitFor((received) => ofItem(second.id)(received).length >= 1);
    // The failed one is not sent again: every attempt of it was answered before the receiver recovered.
    expect(
      receiver.received
        .filter((request) => request.json.data.id === first.id && request.json.data.resource === "tags")
        .every((request) => request.answered === 500),
    ).toBe(true);
  });
});

describe("server-side request forgery", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer(
      { ...WEBHOOK_ENV, WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" },
      { deliverWebhooks: true },
    );
  });
  afterAll(() => strict.close());

  it("refuses a loopback address written in the URL, and one a host name resolves to at delivery time", async () => {
    const literal = await strict.raw("POST", `${root}/webhooks`, {
      body: { url: receiver.url },
      headers: ADMIN_HEADERS,
    });
    expect(literal.status).toBe(400);
    expect(literal.body.data.details.url.code).toBe("rest_invalid_webhook_target");
    const byName = await strict.raw("POST", `${root}/webhooks`, {
      body: { url: `http://localhost:${receiver.port}/hook` },
      headers: ADMIN_HEADERS,
    });
    expect(byName.status).toBe(201);
    const ping = await strict.raw("POST", `${root}/webhooks/${byName.body.id}/ping`, { headers: ADMIN_HEADERS });
    expect(ping.body).toMatchObject({ status: "failed", last_attempt: { status_code: null } });
    expect(ping.body.last_attempt.error).toMatch(/loopback or private/);
    expect(receiver.received).toHaveLength(0);
  });
});

describe("several workers", () => {
  it("deliver each notification once", async () => {
    const { id } = await subscribe({ event_types: ["tag.created"] });
    receiver.respond = () => ({ status: 200, afterMs: 5 });
    // Three more workers, each with its own connections, beside the test server's own.
    const config = loadConfig({ ...WEBHOOK_ENV, DATABASE_URL: server.config.databaseUrl, WEBHOOK_CONCURRENCY: "3" });
    const connections = await Promise.all([1, 2, 3].map(() => openDatabase(config)));
    const workers = connections.map((db) => new WebhookWorker(db, config, createLogger("silent"), itemSnapshot));
    workers.forEach((worker) => worker.start());
    try {
      const tags = [];
      for (let i = 0; i < 40; i += 1) tags.push(await createTermVia(server, "tags", { name: `concurrent ${i}` }));
      await receiver.waitFor((received) => received.length >= 40, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Once each: no message twice (answers are quick, far within the time limit: nothing is sent again).
      expect(receiver.received).toHaveLength(40);
      expect(new Set(receiver.received.map((request) => request.id)).size).toBe(40);
      expect(new Set(receiver.received.map((request) => request.json.data.id))).toEqual(
        new Set(tags.map((tag) => tag.id)),
      );
      expect((await admin("GET", `/webhooks/${id}/deliveries?status=delivered&per_page=50`)).body.total).toBe(40);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.all(connections.map((db) => db.close()));
    }
  });
});

describe("crashes", () => {
  // Every process and database a test starts is stopped and dropped, whether the test passed or not.
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((service) => service.stop("SIGKILL")));
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });
  const start = async (env: Record<string, string>) => {
    const service = await startServiceProcess(env);
    processes.push(service);
    return service;
  };
  const crashEnv = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return { ...WEBHOOK_ENV, DATABASE_URL: database.url, CALENDAR_ADMIN_TOKEN: "crash-test-admin-token-0123" };
  };
  const headers = { Authorization: "Bearer crash-test-admin-token-0123", "Content-Type": "application/json" };
  const post = (origin: string, path: string, body: unknown) =>
    fetch(`${origin}${root}${path}`, { method: "POST", headers, body: JSON.stringify(body) }).then(
      (response) => response.json() as Promise<{ id: number; secret: string }>,
    );

  it("loses nothing when the service is killed (kill -9) between the commit and the delivery", async () => {
    const env = { ...(await crashEnv()), WEBHOOK_TIMEOUT_MS: "1000" };
    // The first process commits, and is killed while its first delivery waits for an answer.
    receiver.respond = () => "hang";
    const first = await start(env);
    const subscription = await post(first.origin, "/webhooks", { url: receiver.url, event_types: ["tag.created"] });
    const tags = [];
    for (const name of ["before", "the", "crash"]) tags.push(await post(first.origin, "/tags", { name }));
    await receiver.waitFor((received) => received.length >= 1);
    await first.stop("SIGKILL");
    // The second finds them all: the one under way once its lease ends, the others waiting.
    receiver.respond = () => 200;
    await start(env);
    // Acknowledged, each of them: the first only after its lease (2 × 1 s + 5 s) ran out.
    const acknowledged = (received: Received[]) => distinctById(received.filter((request) => request.answered === 200));
    await receiver.waitFor((received) => acknowledged(received).length >= 3, 30_000);
    const delivered = acknowledged(receiver.received);
    // The one under way at the kill was sent again, with the same message id.
    const underWay = receiver.received.filter((request) => request.json.data.id === receiver.received[0].json.data.id);
    expect(underWay.length).toBeGreaterThanOrEqual(2);
    expect(new Set(underWay.map((request) => request.id)).size).toBe(1);
    expect(underWay[0].answered).toBeUndefined();
    expect(delivered.map((request) => request.json.data.id).sort()).toEqual(tags.map((tag) => tag.id).sort());
    expect(delivered.every((request) => verifyMessage(subscription.secret, request, request.body))).toBe(true);
  }, 60_000);

  it("loses nothing when the service is killed before it made the deliveries", async () => {
    const env = await crashEnv();
    const first = await start({ ...env, WEBHOOK_DELIVERY: "false" });
    await post(first.origin, "/webhooks", { url: receiver.url, event_types: ["category.created"] });
    const category = await post(first.origin, "/categories", { name: "Committed, then killed" });
    await first.stop("SIGKILL");
    expect(receiver.received).toHaveLength(0);
    await start(env);
    await receiver.waitFor((received) => received.length >= 1);
    expect(receiver.received[0].json).toMatchObject({ type: "category.created", data: { id: category.id } });
  }, 60_000);
});

describe("a backlog that cannot grow without end", () => {
  let bounded: TestServer;
  beforeAll(async () => {
    bounded = await startTestServer({ ...WEBHOOK_ENV, WEBHOOK_MAX_WAITING: "10" }, { deliverWebhooks: true });
  });
  afterAll(() => bounded.close());
  const call = (method: string, path: string, body?: unknown) =>
    bounded.raw(method, `${root}${path}`, { body, headers: ADMIN_HEADERS });
  const outboxEmpty = async () => {
    for (let i = 0; i < 200 && (await bounded.db.read.webhookOutbox.count()) > 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await bounded.db.read.webhookOutbox.count()).toBe(0);
  };

  it("keeps a paused subscription's waiting notifications small and at most WEBHOOK_MAX_WAITING, with a gap notice to resync from", async () => {
    const subscription = (await call("POST", "/webhooks", { url: receiver.url, active: false })).body;
    // The first change the receiver will miss: the gap's token must read it again.
    const first = (
      await call("POST", "/events", {
        title: "Backlog first",
        start_date: utcWall(24 * 60 - 2),
        end_date: utcWall(24 * 60 - 1),
      })
    ).body;
    const description = `<p>${"A long evening of music. ".repeat(2_400)}</p>`;
    // Weeks ahead of the real clock: in the window of the unfiltered list that the gap's token reads.
    const event = (
      await call("POST", "/events", {
        title: "Backlog 0",
        start_date: utcWall(24 * 60),
        end_date: utcWall(24 * 60 + 1),
        description,
      })
    ).body;
    for (let i = 1; i <= 30; i += 1)
      expect((await call("PATCH", `/events/${event.id}`, { title: `Backlog ${i}` })).status).toBe(200);
    await outboxEmpty();
    const waiting = await bounded.db.read.webhookDelivery.findMany({
      where: { subscriptionId: subscription.id, status: "pending" },
      orderBy: { id: "asc" },
    });
    // Exactly the bound: the newest notifications kept, the gap notice in place of the rest.
    expect(waiting.length).toBe(10);
    for (const delivery of waiting) expect(delivery.payload.length).toBeLessThan(2_048);
    const gaps = waiting.filter((delivery) => delivery.type === "webhook.gap");
    expect(gaps.length).toBe(1);
    const gap = JSON.parse(gaps[0].payload);
    expect(gap.data.dropped).toBe(32 - (waiting.length - 1));
    // The token reads the event again from before the first change the receiver missed.
    const resync = await bounded.raw(
      "GET",
      `${root}/events?sync_token=${encodeURIComponent(gap.data.sync_tokens.events)}`,
    );
    expect(resync.status).toBe(200);
    expect(resync.body.events.map((item: { id: number }) => item.id)).toEqual(
      expect.arrayContaining([first.id, event.id]),
    );

    // Resumed: what waited is sent, each update with the event as it is now.
    receiver.received.length = 0;
    expect((await call("PATCH", `/webhooks/${subscription.id}`, { active: true })).status).toBe(200);
    await receiver.waitFor((received) => distinctById(received).length >= waiting.length);
    const sent = distinctById(receiver.received);
    expect(typesOf(sent).filter((type) => type === "webhook.gap")).toEqual(["webhook.gap"]);
    for (const message of sent.filter((request) => request.json.type === "event.updated"))
      expect(message.json.data.item).toMatchObject({ title: "Backlog 30" });
  });

  it("forgets what subscribers were told of items deleted for good", async () => {
    await call("POST", "/webhooks", { url: receiver.url });
    const kept = (
      await call("POST", "/events", { title: "Told and kept", start_date: utcWall(50), end_date: utcWall(51) })
    ).body;
    const gone = (
      await call("POST", "/events", { title: "Told and gone", start_date: utcWall(52), end_date: utcWall(53) })
    ).body;
    await outboxEmpty();
    // To the trash, then (force, from the trash) for good.
    expect((await call("DELETE", `/events/${gone.id}`)).status).toBe(200);
    expect((await call("DELETE", `/events/${gone.id}?force=true`)).status).toBe(200);
    await outboxEmpty();
    const told = async (id: number) =>
      bounded.db.read.webhookItemState.count({ where: { resource: "events", itemId: id } });
    expect([await told(kept.id), await told(gone.id)]).toEqual([1, 1]);
    await pruneDeliveryLog(bounded.db, new Date(), 7);
    expect([await told(kept.id), await told(gone.id)]).toEqual([1, 0]);
  });
});
