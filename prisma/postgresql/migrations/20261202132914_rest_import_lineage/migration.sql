-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "lineage" TEXT;

-- AlterTable
ALTER TABLE "ImportSource" ADD COLUMN     "cursor" TEXT;

-- AlterTable
ALTER TABLE "ImportedItem" ADD COLUMN     "origin" TEXT;

-- AlterTable
ALTER TABLE "Organizer" ADD COLUMN     "lineage" TEXT;

-- AlterTable
ALTER TABLE "Venue" ADD COLUMN     "lineage" TEXT;

-- CreateTable
CREATE TABLE "ImportedLinkedItem" (
    "kind" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,

    CONSTRAINT "ImportedLinkedItem_pkey" PRIMARY KEY ("kind","origin")
);

-- CreateIndex
CREATE INDEX "ImportedItem_origin_idx" ON "ImportedItem"("origin");
