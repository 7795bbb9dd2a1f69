-- CreateTable
CREATE TABLE "WebhookSubscription" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "eventTypes" TEXT NOT NULL,
    "filter" TEXT,
    "language" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "pausedReason" TEXT,
    "secret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookOutbox" (
    "id" SERIAL NOT NULL,
    "seq" INTEGER NOT NULL,
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "visible" BOOLEAN NOT NULL,
    "created" BOOLEAN NOT NULL,
    "everPublic" BOOLEAN NOT NULL,
    "terms" TEXT NOT NULL,

    CONSTRAINT "WebhookOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookItemState" (
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "visible" BOOLEAN NOT NULL,
    "terms" TEXT NOT NULL,

    CONSTRAINT "WebhookItemState_pkey" PRIMARY KEY ("resource","itemId")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" SERIAL NOT NULL,
    "messageId" TEXT NOT NULL,
    "subscriptionId" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "nextAttemptAt" DOUBLE PRECISION NOT NULL,
    "leaseUntil" DOUBLE PRECISION,
    "giveUpAt" DOUBLE PRECISION NOT NULL,
    "completedAt" DOUBLE PRECISION,
    "lastAttemptAt" DOUBLE PRECISION,
    "lastStatusCode" INTEGER,
    "lastDurationMs" INTEGER,
    "lastError" TEXT,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookOutbox_seq_id_idx" ON "WebhookOutbox"("seq", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_messageId_key" ON "WebhookDelivery"("messageId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_resource_itemId_status_id_idx" ON "WebhookDelivery"("subscriptionId", "resource", "itemId", "status", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_id_idx" ON "WebhookDelivery"("subscriptionId", "id");

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;
