-- DropIndex
DROP INDEX "Event_parentId_idx";

-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "detached" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "recurrence" TEXT,
ADD COLUMN     "recurrenceId" TIMESTAMP(3),
ADD COLUMN     "recurrenceUntil" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Event_parentId_recurrenceId_idx" ON "Event"("parentId", "recurrenceId");

-- CreateIndex
CREATE INDEX "Event_recurrenceUntil_idx" ON "Event"("recurrenceUntil");
