-- Written by hand: Prisma rebuilds "Event" to add columns, and rebuilding it would drop the
-- triggers on it (day counts, term counts, the sync log); SQLite adds these columns in place.
ALTER TABLE "Event" ADD COLUMN "recurrence" TEXT;
ALTER TABLE "Event" ADD COLUMN "recurrenceUntil" DATETIME;
ALTER TABLE "Event" ADD COLUMN "recurrenceId" DATETIME;
ALTER TABLE "Event" ADD COLUMN "detached" BOOLEAN NOT NULL DEFAULT false;

-- DropIndex
DROP INDEX "Event_parentId_idx";

-- CreateIndex
CREATE INDEX "Event_parentId_recurrenceId_idx" ON "Event"("parentId", "recurrenceId");

-- CreateIndex
CREATE INDEX "Event_recurrenceUntil_idx" ON "Event"("recurrenceUntil");
