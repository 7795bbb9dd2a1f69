-- Written by hand: each event's search document carries what a search everyone may make filters
-- and orders by (its start and end, and whether everyone's lists show it: published, not hidden,
-- no password), so that such a search is answered from the index's table alone, without looking
-- up each match's event (see searchByKeySql in src/resources/events/event-list-sql.ts).
ALTER TABLE "EventSearch"
  ADD COLUMN "startsAt" TIMESTAMP(3),
  ADD COLUMN "endsAt" TIMESTAMP(3),
  ADD COLUMN "listed" BOOLEAN NOT NULL DEFAULT false;

UPDATE "EventSearch" "s"
SET "startsAt" = "e"."startsAt", "endsAt" = "e"."endsAt",
  "listed" = ("e"."status" = 'publish' AND NOT "e"."hideFromListings" AND "e"."passwordHash" IS NULL)
FROM "Event" "e" WHERE "e"."id" = "s"."eventId";

-- A document takes them from its event's row as it is written, whoever writes it...
CREATE FUNCTION "event_search_listing"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT "startsAt", "endsAt", ("status" = 'publish' AND NOT "hideFromListings" AND "passwordHash" IS NULL)
    INTO NEW."startsAt", NEW."endsAt", NEW."listed"
    FROM "Event" WHERE "id" = NEW."eventId";
  RETURN NEW;
END $$;

CREATE TRIGGER "EventSearch_listing" BEFORE INSERT OR UPDATE OF "tokens" ON "EventSearch"
  FOR EACH ROW EXECUTE FUNCTION "event_search_listing"();

-- ...and follows the event when they change. Only the GIN index covers the table, on "tokens":
-- these updates leave it alone (heap-only tuples).
CREATE FUNCTION "event_search_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "EventSearch"
  SET "startsAt" = NEW."startsAt", "endsAt" = NEW."endsAt",
    "listed" = (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
  WHERE "eventId" = NEW."id";
  RETURN NULL;
END $$;

CREATE TRIGGER "Event_search_follow" AFTER UPDATE OF "startsAt", "endsAt", "status", "hideFromListings", "passwordHash" ON "Event"
  FOR EACH ROW WHEN (
    OLD."startsAt" IS DISTINCT FROM NEW."startsAt" OR OLD."endsAt" IS DISTINCT FROM NEW."endsAt"
    OR (OLD."status" = 'publish' AND NOT OLD."hideFromListings" AND OLD."passwordHash" IS NULL)
      IS DISTINCT FROM (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
  )
  EXECUTE FUNCTION "event_search_follow"();
