-- DropIndex
DROP INDEX "Event_status_startsAt_id_idx";

-- CreateIndex
CREATE INDEX "Event_status_hideFromListings_startsAt_id_endsAt_idx" ON "Event"("status", "hideFromListings", "startsAt", "id", "endsAt");
