-- CreateTable
CREATE TABLE "EventDayCount" (
    "day" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "hidden" BOOLEAN NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("day", "status", "hidden")
);

-- CreateTable
CREATE TABLE "EventStat" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "maxDurationSeconds" INTEGER NOT NULL
);
-- Written by hand (Prisma does not model triggers): every write of an event keeps the day
-- counts and the longest duration exact, whatever code path writes it. A day is the UTC date of
-- the start, as days since 1970-01-01; durations are rounded up to
-- whole seconds, or one more (SQLite builds may lack ceil()).
CREATE TRIGGER "Event_counts_insert" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
    VALUES (CAST(julianday(substr(new."startsAt", 1, 10)) - 2440587.5 AS INTEGER), new."status", new."hideFromListings", 1)
    ON CONFLICT ("day", "status", "hidden") DO UPDATE SET "count" = "count" + 1;
  UPDATE "EventStat" SET "maxDurationSeconds" = CAST((julianday(new."endsAt") - julianday(new."startsAt")) * 86400 AS INTEGER) + 1
    WHERE "id" = 1 AND "maxDurationSeconds" < (julianday(new."endsAt") - julianday(new."startsAt")) * 86400;
END;

CREATE TRIGGER "Event_counts_delete" AFTER DELETE ON "Event" BEGIN
  UPDATE "EventDayCount" SET "count" = "count" - 1
    WHERE "day" = CAST(julianday(substr(old."startsAt", 1, 10)) - 2440587.5 AS INTEGER) AND "status" = old."status" AND "hidden" = old."hideFromListings";
END;

CREATE TRIGGER "Event_counts_update" AFTER UPDATE OF "startsAt", "endsAt", "status", "hideFromListings" ON "Event" BEGIN
  UPDATE "EventDayCount" SET "count" = "count" - 1
    WHERE "day" = CAST(julianday(substr(old."startsAt", 1, 10)) - 2440587.5 AS INTEGER) AND "status" = old."status" AND "hidden" = old."hideFromListings";
  INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
    VALUES (CAST(julianday(substr(new."startsAt", 1, 10)) - 2440587.5 AS INTEGER), new."status", new."hideFromListings", 1)
    ON CONFLICT ("day", "status", "hidden") DO UPDATE SET "count" = "count" + 1;
  UPDATE "EventStat" SET "maxDurationSeconds" = CAST((julianday(new."endsAt") - julianday(new."startsAt")) * 86400 AS INTEGER) + 1
    WHERE "id" = 1 AND "maxDurationSeconds" < (julianday(new."endsAt") - julianday(new."startsAt")) * 86400;
END;

INSERT INTO "EventStat" ("id", "maxDurationSeconds")
  SELECT 1, COALESCE(CAST(MAX(julianday("endsAt") - julianday("startsAt")) * 86400 AS INTEGER) + 1, 0) FROM "Event";

INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
  SELECT CAST(julianday(substr("startsAt", 1, 10)) - 2440587.5 AS INTEGER), "status", "hideFromListings", COUNT(*) FROM "Event" GROUP BY 1, 2, 3;
