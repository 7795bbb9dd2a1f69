-- Written by hand (Prisma does not model triggers): the day counts are rewritten only when a
-- write changes what they count (the start, the end, the status or the hidden flag), not each
-- time an UPDATE names those columns. The day-count rows are the hottest of the schema: every
-- write of an event of that day would otherwise rewrite one.
DROP TRIGGER "Event_counts_update";

CREATE TRIGGER "Event_counts_update" AFTER UPDATE OF "startsAt", "endsAt", "status", "hideFromListings" ON "Event"
  WHEN old."startsAt" IS NOT new."startsAt" OR old."endsAt" IS NOT new."endsAt" OR old."status" IS NOT new."status"
    OR old."hideFromListings" IS NOT new."hideFromListings" BEGIN
  UPDATE "EventDayCount" SET "count" = "count" - 1
    WHERE "day" = CAST(julianday(substr(old."startsAt", 1, 10)) - 2440587.5 AS INTEGER) AND "status" = old."status" AND "hidden" = old."hideFromListings";
  INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
    VALUES (CAST(julianday(substr(new."startsAt", 1, 10)) - 2440587.5 AS INTEGER), new."status", new."hideFromListings", 1)
    ON CONFLICT ("day", "status", "hidden") DO UPDATE SET "count" = "count" + 1;
  UPDATE "EventStat" SET "maxDurationSeconds" = CAST((julianday(new."endsAt") - julianday(new."startsAt")) * 86400 AS INTEGER) + 1
    WHERE "id" = 1 AND "maxDurationSeconds" < (julianday(new."endsAt") - julianday(new."startsAt")) * 86400;
END;
