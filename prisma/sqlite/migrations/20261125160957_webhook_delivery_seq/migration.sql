-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "messageId" TEXT NOT NULL,
    "subscriptionId" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" REAL NOT NULL,
    "nextAttemptAt" REAL NOT NULL,
    "leaseUntil" REAL,
    "giveUpAt" REAL NOT NULL,
    "completedAt" REAL,
    "lastAttemptAt" REAL,
    "lastStatusCode" INTEGER,
    "lastDurationMs" INTEGER,
    "lastError" TEXT,
    CONSTRAINT "WebhookDelivery_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_WebhookDelivery" ("attempts", "completedAt", "createdAt", "giveUpAt", "id", "itemId", "lastAttemptAt", "lastDurationMs", "lastError", "lastStatusCode", "leaseUntil", "messageId", "nextAttemptAt", "payload", "resource", "status", "subscriptionId", "type") SELECT "attempts", "completedAt", "createdAt", "giveUpAt", "id", "itemId", "lastAttemptAt", "lastDurationMs", "lastError", "lastStatusCode", "leaseUntil", "messageId", "nextAttemptAt", "payload", "resource", "status", "subscriptionId", "type" FROM "WebhookDelivery";
DROP TABLE "WebhookDelivery";
ALTER TABLE "new_WebhookDelivery" RENAME TO "WebhookDelivery";
CREATE UNIQUE INDEX "WebhookDelivery_messageId_key" ON "WebhookDelivery"("messageId");
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");
CREATE INDEX "WebhookDelivery_subscriptionId_resource_itemId_status_id_idx" ON "WebhookDelivery"("subscriptionId", "resource", "itemId", "status", "id");
CREATE INDEX "WebhookDelivery_subscriptionId_id_idx" ON "WebhookDelivery"("subscriptionId", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
