-- Written by hand (Prisma does not model triggers): the day counts and the term counts are
-- rewritten only when a write changes what they count (the start, the end, the status or the
-- hidden flag; the status), not each time an UPDATE names those columns. The day-count rows are
-- the hottest of the schema: every write of an event of that day would otherwise rewrite one.
DROP TRIGGER "Event_counts" ON "Event";

CREATE TRIGGER "Event_counts" AFTER INSERT OR DELETE ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "event_counts"();

CREATE TRIGGER "Event_counts_update" AFTER UPDATE OF "startsAt", "endsAt", "status", "hideFromListings" ON "Event"
  FOR EACH ROW
  WHEN (OLD."startsAt" IS DISTINCT FROM NEW."startsAt" OR OLD."endsAt" IS DISTINCT FROM NEW."endsAt"
    OR OLD."status" IS DISTINCT FROM NEW."status" OR OLD."hideFromListings" IS DISTINCT FROM NEW."hideFromListings")
  EXECUTE FUNCTION "event_counts"();

DROP TRIGGER "Event_term_counts_status" ON "Event";

CREATE TRIGGER "Event_term_counts_status" AFTER UPDATE OF "status" ON "Event"
  FOR EACH ROW
  WHEN ((OLD."status" = 'publish') IS DISTINCT FROM (NEW."status" = 'publish'))
  EXECUTE FUNCTION "event_term_counts"();
