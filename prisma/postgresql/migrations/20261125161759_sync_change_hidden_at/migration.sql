-- AlterTable
ALTER TABLE "SyncChange" ADD COLUMN     "hiddenAt" INTEGER;

-- Items not public now: hidden since their last change, as far as the log can tell (a reader past
-- it has had its tombstone).
UPDATE "SyncChange" SET "hiddenAt" = "seq" WHERE "seq" IS NOT NULL AND NOT (CASE "resource"
  WHEN 'events' THEN EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
  WHEN 'venues' THEN EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
  WHEN 'organizers' THEN EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
  ELSE EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "SyncChange"."itemId") END);
