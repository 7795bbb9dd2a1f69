-- Written by hand (Prisma does not model these tables nor triggers; see migration-diff.sh): the
-- count triggers no longer write the day counts and the term counts themselves, whose rows every
-- write of an event of that day, or of that category, shares. Each write's changes to them wait in
-- these tables, and the transaction folds them in as it commits (close_write_transaction, below), so that
-- a count's row is locked while the transaction commits instead of from its first event write to
-- its end: concurrent writers of one day or one category no longer queue for their whole
-- transactions (10 creates of the same day and category wrote 115 per second, one after another).
-- A row left by a write outside the service's transactions is folded by the next one.
CREATE TABLE "PendingDayCount" (
    "day" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "hidden" BOOLEAN NOT NULL,
    "delta" INTEGER NOT NULL
);

CREATE TABLE "PendingTermCount" (
    "termId" INTEGER NOT NULL,
    "delta" INTEGER NOT NULL
);

CREATE OR REPLACE FUNCTION "event_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "PendingDayCount" ("day", "status", "hidden", "delta")
      VALUES (OLD."startsAt"::date - DATE '1970-01-01', OLD."status", OLD."hideFromListings", -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "PendingDayCount" ("day", "status", "hidden", "delta")
      VALUES (NEW."startsAt"::date - DATE '1970-01-01', NEW."status", NEW."hideFromListings", 1);
    UPDATE "EventStat" SET "maxDurationSeconds" = CEIL(EXTRACT(EPOCH FROM NEW."endsAt" - NEW."startsAt"))::integer
      WHERE "id" = 1 AND "maxDurationSeconds" < EXTRACT(EPOCH FROM NEW."endsAt" - NEW."startsAt");
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION "event_term_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "EventTerm" WHERE "eventId" = OLD."id";
    RETURN OLD;
  END IF;
  IF (OLD."status" = 'publish') <> (NEW."status" = 'publish') THEN
    INSERT INTO "PendingTermCount" ("termId", "delta")
      SELECT "termId", CASE WHEN NEW."status" = 'publish' THEN 1 ELSE -1 END FROM "EventTerm" WHERE "eventId" = NEW."id";
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION "event_link_term_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "PendingTermCount" ("termId", "delta")
      SELECT OLD."termId", -1 WHERE EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId" AND "status" = 'publish');
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "PendingTermCount" ("termId", "delta")
      SELECT NEW."termId", 1 WHERE EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId" AND "status" = 'publish');
  END IF;
  RETURN NULL;
END
$$;

-- What ends every write transaction of the service, sent with its COMMIT (see src/db/transaction.ts,
-- whose statements for SQLite say the same): the counts left pending by the triggers above are
-- written, then the changes the transaction logged take the next position of the sync clock, and
-- the webhooks' outbox gets them. A function, so that its statements are planned once per
-- connection, not while the clock's row is locked at every commit. Rows are locked in one order
-- by every transaction (days, then terms by id, then the clock), so none waits for another in a cycle.
CREATE FUNCTION "close_write_transaction"() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  "at" integer;
BEGIN
  WITH "folded" AS (DELETE FROM "PendingDayCount" RETURNING "day", "status", "hidden", "delta")
  INSERT INTO "EventDayCount" ("day", "status", "hidden", "count")
    SELECT "day", "status", "hidden", SUM("delta") FROM "folded" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT ("day", "status", "hidden") DO UPDATE SET "count" = "EventDayCount"."count" + EXCLUDED."count";

  PERFORM FROM "Term" WHERE "id" IN (SELECT "termId" FROM "PendingTermCount") ORDER BY "id" FOR NO KEY UPDATE;
  -- A term's new count is a change of the term, which its trigger logs.
  WITH "folded" AS (DELETE FROM "PendingTermCount" RETURNING "termId", "delta")
  UPDATE "Term" SET "count" = "Term"."count" + "f"."delta"
    FROM (SELECT "termId", SUM("delta") AS "delta" FROM "folded" GROUP BY "termId") "f"
  WHERE "Term"."id" = "f"."termId" AND "f"."delta" <> 0;

  UPDATE "SyncClock" SET "seq" = "seq" + 1 WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "SyncChange" WHERE "seq" IS NULL)
    RETURNING "seq" INTO "at";
  IF "at" IS NULL THEN
    RETURN;
  END IF;

  -- With what each item is as it commits: public or not, made by this change (its version is 1)
  -- or not, an event's terms (for the subscriptions' filters).
  INSERT INTO "WebhookOutbox" ("seq", "resource", "itemId", "visible", "created", "everPublic", "terms")
    SELECT "at", "c"."resource", "c"."itemId",
        CASE "c"."resource"
          WHEN 'events' THEN EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          WHEN 'venues' THEN EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          WHEN 'organizers' THEN EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          ELSE EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "c"."itemId") END,
        COALESCE(COALESCE("e"."version", "v"."version", "o"."version", "t"."version") = 1, FALSE),
        "c"."everPublic",
        CASE WHEN "c"."resource" = 'events' THEN CAST((
          SELECT COALESCE(json_agg(json_build_object('taxonomy', "t"."taxonomy", 'id', "t"."id") ORDER BY "t"."id"), '[]'::json)
            FROM "EventTerm" "et" JOIN "Term" "t" ON "t"."id" = "et"."termId" WHERE "et"."eventId" = "c"."itemId") AS TEXT)
        ELSE '[]' END
      FROM "SyncChange" "c"
        LEFT JOIN "Event" "e" ON "c"."resource" = 'events' AND "e"."id" = "c"."itemId"
        LEFT JOIN "Venue" "v" ON "c"."resource" = 'venues' AND "v"."id" = "c"."itemId"
        LEFT JOIN "Organizer" "o" ON "c"."resource" = 'organizers' AND "o"."id" = "c"."itemId"
        LEFT JOIN "Term" "t" ON "c"."resource" IN ('categories', 'tags') AND "t"."id" = "c"."itemId"
      WHERE "c"."seq" IS NULL AND EXISTS (SELECT 1 FROM "WebhookSubscription");

  -- An item not public now keeps the position it stopped being public at (see SyncChange.hiddenAt).
  UPDATE "SyncChange" SET "seq" = "at",
    "hiddenAt" = CASE WHEN (CASE "SyncChange"."resource"
        WHEN 'events' THEN EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        WHEN 'venues' THEN EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        WHEN 'organizers' THEN EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        ELSE EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "SyncChange"."itemId") END)
      THEN NULL ELSE COALESCE("hiddenAt", "at") END
  WHERE "seq" IS NULL;
END
$$;
