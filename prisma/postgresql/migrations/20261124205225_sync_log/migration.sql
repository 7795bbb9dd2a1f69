-- AlterTable
ALTER TABLE "Term" ADD COLUMN     "modifiedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

UPDATE "Term" SET "modifiedAt" = "createdAt";

-- CreateTable
CREATE TABLE "SyncChange" (
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "seq" INTEGER,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "everPublic" BOOLEAN NOT NULL DEFAULT false,
    "authorId" INTEGER,
    "changedAt" INTEGER NOT NULL,

    CONSTRAINT "SyncChange_pkey" PRIMARY KEY ("resource","itemId")
);

-- CreateTable
CREATE TABLE "SyncClock" (
    "id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "horizon" INTEGER NOT NULL,

    CONSTRAINT "SyncClock_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SyncChange_resource_seq_itemId_idx" ON "SyncChange"("resource", "seq", "itemId");

-- CreateIndex
CREATE INDEX "SyncChange_seq_idx" ON "SyncChange"("seq");

-- CreateIndex
CREATE INDEX "Term_taxonomy_modifiedAt_idx" ON "Term"("taxonomy", "modifiedAt");

-- Written by hand (Prisma does not model triggers): the change log of sync tokens. Every write of
-- an item, of its texts or (for events) of its links moves the item's row to "pending" (seq
-- NULL); the transaction gives its pending rows their position as it ends (src/db/transaction.ts).
-- A change of a linked venue, organizer or term is a change of that item, not of its events.
INSERT INTO "SyncClock" ("id", "seq", "horizon") VALUES (1, 0, 0);

-- Every item written before this migration starts at position 0.
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'events', "id", 0, false, "status" = 'publish', "authorId", EXTRACT(EPOCH FROM now())::integer FROM "Event";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'venues', "id", 0, false, "status" = 'publish', "authorId", EXTRACT(EPOCH FROM now())::integer FROM "Venue";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'organizers', "id", 0, false, "status" = 'publish', "authorId", EXTRACT(EPOCH FROM now())::integer FROM "Organizer";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT CASE "taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, "id", 0, false, true, NULL, EXTRACT(EPOCH FROM now())::integer FROM "Term";

-- Events, venues and organizers (TG_ARGV[0]: the resource).
CREATE FUNCTION "sync_post_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
      VALUES (TG_ARGV[0], OLD."id", NULL, true, OLD."status" = 'publish', OLD."authorId", EXTRACT(EPOCH FROM now())::integer)
      ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = true,
        "everPublic" = "SyncChange"."everPublic" OR EXCLUDED."everPublic", "changedAt" = EXCLUDED."changedAt";
  ELSE
    INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
      VALUES (TG_ARGV[0], NEW."id", NULL, false, NEW."status" = 'publish' OR (TG_OP = 'UPDATE' AND OLD."status" = 'publish'), NEW."authorId", EXTRACT(EPOCH FROM now())::integer)
      ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = false,
        "everPublic" = "SyncChange"."everPublic" OR EXCLUDED."everPublic", "authorId" = EXCLUDED."authorId", "changedAt" = EXCLUDED."changedAt";
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Event_sync" AFTER INSERT OR UPDATE OR DELETE ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_change"('events');
CREATE TRIGGER "Venue_sync" AFTER INSERT OR UPDATE OR DELETE ON "Venue"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_change"('venues');
CREATE TRIGGER "Organizer_sync" AFTER INSERT OR UPDATE OR DELETE ON "Organizer"
  FOR EACH ROW EXECUTE FUNCTION "sync_post_change"('organizers');

CREATE FUNCTION "sync_term_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  term RECORD;
BEGIN
  IF TG_OP = 'DELETE' THEN term := OLD; ELSE term := NEW; END IF;
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES (CASE term."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, term."id", NULL, TG_OP = 'DELETE', true, NULL, EXTRACT(EPOCH FROM now())::integer)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = EXCLUDED."deleted", "changedAt" = EXCLUDED."changedAt";
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Term_sync" AFTER INSERT OR UPDATE OR DELETE ON "Term"
  FOR EACH ROW EXECUTE FUNCTION "sync_term_change"();

-- Rows that belong to an item (TG_ARGV: the resource, or "terms" to read it from the row's
-- taxonomy; the column that holds the item's id).
CREATE FUNCTION "sync_part_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  part jsonb;
  item_resource text;
BEGIN
  IF TG_OP = 'DELETE' THEN part := to_jsonb(OLD); ELSE part := to_jsonb(NEW); END IF;
  item_resource := TG_ARGV[0];
  IF item_resource = 'terms' THEN
    item_resource := CASE part ->> 'taxonomy' WHEN 'category' THEN 'categories' ELSE 'tags' END;
  END IF;
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = EXTRACT(EPOCH FROM now())::integer
    WHERE "resource" = item_resource AND "itemId" = (part ->> TG_ARGV[1])::integer;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "EventText_sync" AFTER INSERT OR UPDATE OR DELETE ON "EventText"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('events', 'eventId');

CREATE TRIGGER "EventVenue_sync" AFTER INSERT OR UPDATE OR DELETE ON "EventVenue"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('events', 'eventId');

CREATE TRIGGER "EventOrganizer_sync" AFTER INSERT OR UPDATE OR DELETE ON "EventOrganizer"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('events', 'eventId');

CREATE TRIGGER "EventTerm_sync" AFTER INSERT OR UPDATE OR DELETE ON "EventTerm"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('events', 'eventId');

CREATE TRIGGER "VenueText_sync" AFTER INSERT OR UPDATE OR DELETE ON "VenueText"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('venues', 'venueId');

CREATE TRIGGER "OrganizerText_sync" AFTER INSERT OR UPDATE OR DELETE ON "OrganizerText"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('organizers', 'organizerId');

CREATE TRIGGER "TermText_sync" AFTER INSERT OR UPDATE OR DELETE ON "TermText"
  FOR EACH ROW EXECUTE FUNCTION "sync_part_change"('terms', 'termId');

-- The key that signs sync tokens (see src/resources/sync/sync-token.ts), 244 random bits.
INSERT INTO "SiteSecret" ("name", "value") VALUES ('sync-token-key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
