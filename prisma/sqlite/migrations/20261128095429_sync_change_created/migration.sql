-- AlterTable
ALTER TABLE "SyncChange" ADD COLUMN "created" BOOLEAN NOT NULL DEFAULT false;

-- Written by hand (Prisma does not model triggers): an item's INSERT marks its change as the item's
-- making, so that the webhooks' outbox says `created` for it and for nothing else. (The outbox
-- used to read a version of 1 as made now: a category that predated every subscription, whose
-- version a change of its count leaves at 1, was announced as created on its first change.) An
-- upsert, whichever of this and the item's other INSERT trigger runs first.
CREATE TRIGGER "Event_sync_created" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES ('events', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER), 1)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = 1;
END;

CREATE TRIGGER "Venue_sync_created" AFTER INSERT ON "Venue" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES ('venues', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER), 1)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = 1;
END;

CREATE TRIGGER "Organizer_sync_created" AFTER INSERT ON "Organizer" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES ('organizers', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER), 1)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = 1;
END;

CREATE TRIGGER "Term_sync_created" AFTER INSERT ON "Term" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt", "created")
    VALUES (CASE new."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, new."id", NULL, 0, 1, NULL, CAST(strftime('%s', 'now') AS INTEGER), 1)
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "created" = 1;
END;
