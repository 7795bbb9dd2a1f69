-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "seq" INTEGER NOT NULL DEFAULT 0;
