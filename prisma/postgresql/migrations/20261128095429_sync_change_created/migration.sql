-- AlterTable
ALTER TABLE "SyncChange" ADD COLUMN     "created" BOOLEAN NOT NULL DEFAULT false;

-- Written by hand (Prisma does not model triggers): an item's INSERT marks its change as the item's
-- making, so that the webhooks' outbox says `created` for it and for nothing else. (The outbox
-- used to read a version of 1 as made now: a category that predated every subscription, whose
-- version a change of its count leaves at 1, was announced as created on its first change.) The
-- triggers are named to run after the items' "<Item>_sync" ones (PostgreSQL runs a table's
-- triggers in the order of their names); an upsert all the same.
-- Events, venues and organizers (TG_ARGV[0]: the resource).
CREATE FUNCTION "sync_post_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES (TG_ARGV[0], NEW."id", NULL, false, NEW."status" = 'publish', NEW."authorId", EXTRACT(EPOCH FROM now())::integer, true)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = true;
  RETURN NULL;
END;
$$;

CREATE FUNCTION "sync_term_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES (CASE NEW."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, NEW."id", NULL, false, true, NULL, EXTRACT(EPOCH FROM now())::integer, true)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = true;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Event_sync_created" AFTER INSERT ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_created"('events');
CREATE TRIGGER "Venue_sync_created" AFTER INSERT ON "Venue"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_created"('venues');
CREATE TRIGGER "Organizer_sync_created" AFTER INSERT ON "Organizer"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_created"('organizers');
CREATE TRIGGER "Term_sync_created" AFTER INSERT ON "Term"
  FOR EACH ROW EXECUTE FUNCTION "sync_term_created"();

-- The same as before (20261126080000_close_write_transaction), but for the outbox's `created`,
-- which is now the change's own, and is cleared as the change takes its position.
CREATE OR REPLACE FUNCTION "close_write_transaction"() RETURNS void LANGUAGE plpgsql AS $$
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

  -- With what each item is as it commits: public or not, made by this transaction (its INSERT
  -- said so) or not, an event's terms (for the subscriptions' filters).
  INSERT INTO "WebhookOutbox" ("seq", "resource", "itemId", "visible", "created", "everPublic", "terms")
    SELECT "at", "c"."resource", "c"."itemId",
        CASE "c"."resource"
          WHEN 'events' THEN EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          WHEN 'venues' THEN EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          WHEN 'organizers' THEN EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "c"."itemId" AND "i"."status" = 'publish')
          ELSE EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "c"."itemId") END,
        "c"."created",
        "c"."everPublic",
        CASE WHEN "c"."resource" = 'events' THEN CAST((
          SELECT COALESCE(json_agg(json_build_object('taxonomy', "t"."taxonomy", 'id', "t"."id") ORDER BY "t"."id"), '[]'::json)
            FROM "EventTerm" "et" JOIN "Term" "t" ON "t"."id" = "et"."termId" WHERE "et"."eventId" = "c"."itemId") AS TEXT)
        ELSE '[]' END
      FROM "SyncChange" "c"
      WHERE "c"."seq" IS NULL AND EXISTS (SELECT 1 FROM "WebhookSubscription");

  -- An item not public now keeps the position it stopped being public at (see SyncChange.hiddenAt).
  UPDATE "SyncChange" SET "seq" = "at", "created" = false,
    "hiddenAt" = CASE WHEN (CASE "SyncChange"."resource"
        WHEN 'events' THEN EXISTS (SELECT 1 FROM "Event" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        WHEN 'venues' THEN EXISTS (SELECT 1 FROM "Venue" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        WHEN 'organizers' THEN EXISTS (SELECT 1 FROM "Organizer" "i" WHERE "i"."id" = "SyncChange"."itemId" AND "i"."status" = 'publish')
        ELSE EXISTS (SELECT 1 FROM "Term" "i" WHERE "i"."id" = "SyncChange"."itemId") END)
      THEN NULL ELSE COALESCE("hiddenAt", "at") END
  WHERE "seq" IS NULL;
END
$$;
