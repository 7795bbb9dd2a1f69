-- CreateTable
CREATE TABLE "EventDayCount" (
    "day" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "hidden" BOOLEAN NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "EventDayCount_pkey" PRIMARY KEY ("day","status","hidden")
);

-- CreateTable
CREATE TABLE "EventStat" (
    "id" INTEGER NOT NULL,
    "maxDurationSeconds" INTEGER NOT NULL,

    CONSTRAINT "EventStat_pkey" PRIMARY KEY ("id")
);
-- Written by hand (Prisma does not model triggers): every write of an event keeps the day
-- counts and the longest duration exact, whatever code path writes it. A day is the UTC date of
-- the start (timestamps are stored in UTC), as days since 1970-01-01; durations are rounded up
-- to whole seconds. The longest duration is only written when it grows, so that concurrent
-- writers rarely wait on its row.
CREATE FUNCTION "event_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "EventDayCount" SET "count" = "count" - 1
      WHERE "day" = (OLD."startsAt"::date - DATE '1970-01-01') AND "status" = OLD."status" AND "hidden" = OLD."hideFromListings";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
      VALUES (NEW."startsAt"::date - DATE '1970-01-01', NEW."status", NEW."hideFromListings", 1)
      ON CONFLICT ("day", "status", "hidden") DO UPDATE SET "count" = "EventDayCount"."count" + 1;
    UPDATE "EventStat" SET "maxDurationSeconds" = CEIL(EXTRACT(EPOCH FROM NEW."endsAt" - NEW."startsAt"))::integer
      WHERE "id" = 1 AND "maxDurationSeconds" < EXTRACT(EPOCH FROM NEW."endsAt" - NEW."startsAt");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Event_counts" AFTER INSERT OR DELETE OR UPDATE OF "startsAt", "endsAt", "status", "hideFromListings" ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "event_counts"();

INSERT INTO "EventStat" ("id", "maxDurationSeconds")
  SELECT 1, COALESCE(CEIL(MAX(EXTRACT(EPOCH FROM "endsAt" - "startsAt")))::integer, 0) FROM "Event";

INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
  SELECT "startsAt"::date - DATE '1970-01-01', "status", "hideFromListings", COUNT(*) FROM "Event" GROUP BY 1, 2, 3;
