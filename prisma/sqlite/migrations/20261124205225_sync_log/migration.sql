-- CreateTable
CREATE TABLE "SyncChange" (
    "resource" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "seq" INTEGER,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "everPublic" BOOLEAN NOT NULL DEFAULT false,
    "authorId" INTEGER,
    "changedAt" INTEGER NOT NULL,

    PRIMARY KEY ("resource", "itemId")
);

-- CreateTable
CREATE TABLE "SyncClock" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "seq" INTEGER NOT NULL,
    "horizon" INTEGER NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Term" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "taxonomy" TEXT NOT NULL,
    "parentId" INTEGER,
    "count" INTEGER NOT NULL DEFAULT 0,
    "sourceLanguage" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "version" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "Term_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Term" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Term" ("count", "createdAt", "modifiedAt", "id", "parentId", "sourceLanguage", "taxonomy", "version") SELECT "count", "createdAt", "createdAt", "id", "parentId", "sourceLanguage", "taxonomy", "version" FROM "Term";
DROP TABLE "Term";
-- Written by hand: the term-count triggers on Event and EventTerm name "Term"; in legacy mode the
-- rename leaves them naming it, instead of failing on the table that is briefly missing.
PRAGMA legacy_alter_table=ON;
ALTER TABLE "new_Term" RENAME TO "Term";
PRAGMA legacy_alter_table=OFF;
CREATE INDEX "Term_taxonomy_parentId_idx" ON "Term"("taxonomy", "parentId");
CREATE INDEX "Term_taxonomy_count_idx" ON "Term"("taxonomy", "count");
CREATE INDEX "Term_taxonomy_modifiedAt_idx" ON "Term"("taxonomy", "modifiedAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "SyncChange_resource_seq_itemId_idx" ON "SyncChange"("resource", "seq", "itemId");

-- CreateIndex
CREATE INDEX "SyncChange_seq_idx" ON "SyncChange"("seq");

-- Written by hand (Prisma does not model triggers): the change log of sync tokens. Every write of
-- an item, of its texts or (for events) of its links moves the item's row to "pending" (seq
-- NULL); the transaction gives its pending rows their position as it ends (src/db/transaction.ts).
-- A change of a linked venue, organizer or term is a change of that item, not of its events.
INSERT INTO "SyncClock" ("id", "seq", "horizon") VALUES (1, 0, 0);

-- Every item written before this migration starts at position 0.
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'events', "id", 0, 0, "status" = 'publish', "authorId", CAST(strftime('%s', 'now') AS INTEGER) FROM "Event";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'venues', "id", 0, 0, "status" = 'publish', "authorId", CAST(strftime('%s', 'now') AS INTEGER) FROM "Venue";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT 'organizers', "id", 0, 0, "status" = 'publish', "authorId", CAST(strftime('%s', 'now') AS INTEGER) FROM "Organizer";
INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
  SELECT CASE "Term"."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, "id", 0, 0, 1, NULL, CAST(strftime('%s', 'now') AS INTEGER) FROM "Term";

CREATE TRIGGER "Event_sync_insert" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('events', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Event_sync_update" AFTER UPDATE ON "Event" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('events', new."id", NULL, 0, new."status" = 'publish' OR old."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Event_sync_delete" AFTER DELETE ON "Event" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('events', old."id", NULL, 1, old."status" = 'publish', old."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Venue_sync_insert" AFTER INSERT ON "Venue" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('venues', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Venue_sync_update" AFTER UPDATE ON "Venue" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('venues', new."id", NULL, 0, new."status" = 'publish' OR old."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Venue_sync_delete" AFTER DELETE ON "Venue" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('venues', old."id", NULL, 1, old."status" = 'publish', old."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Organizer_sync_insert" AFTER INSERT ON "Organizer" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('organizers', new."id", NULL, 0, new."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Organizer_sync_update" AFTER UPDATE ON "Organizer" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('organizers', new."id", NULL, 0, new."status" = 'publish' OR old."status" = 'publish', new."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Organizer_sync_delete" AFTER DELETE ON "Organizer" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES ('organizers', old."id", NULL, 1, old."status" = 'publish', old."authorId", CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "everPublic" = "everPublic" OR excluded."everPublic", "authorId" = excluded."authorId", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "EventText_sync_insert" AFTER INSERT ON "EventText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventText_sync_update" AFTER UPDATE ON "EventText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventText_sync_delete" AFTER DELETE ON "EventText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = old."eventId";
END;

CREATE TRIGGER "EventVenue_sync_insert" AFTER INSERT ON "EventVenue" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventVenue_sync_update" AFTER UPDATE ON "EventVenue" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventVenue_sync_delete" AFTER DELETE ON "EventVenue" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = old."eventId";
END;

CREATE TRIGGER "EventOrganizer_sync_insert" AFTER INSERT ON "EventOrganizer" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventOrganizer_sync_update" AFTER UPDATE ON "EventOrganizer" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventOrganizer_sync_delete" AFTER DELETE ON "EventOrganizer" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = old."eventId";
END;

CREATE TRIGGER "EventTerm_sync_insert" AFTER INSERT ON "EventTerm" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventTerm_sync_update" AFTER UPDATE ON "EventTerm" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = new."eventId";
END;

CREATE TRIGGER "EventTerm_sync_delete" AFTER DELETE ON "EventTerm" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'events' AND "itemId" = old."eventId";
END;

CREATE TRIGGER "VenueText_sync_insert" AFTER INSERT ON "VenueText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'venues' AND "itemId" = new."venueId";
END;

CREATE TRIGGER "VenueText_sync_update" AFTER UPDATE ON "VenueText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'venues' AND "itemId" = new."venueId";
END;

CREATE TRIGGER "VenueText_sync_delete" AFTER DELETE ON "VenueText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'venues' AND "itemId" = old."venueId";
END;

CREATE TRIGGER "OrganizerText_sync_insert" AFTER INSERT ON "OrganizerText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'organizers' AND "itemId" = new."organizerId";
END;

CREATE TRIGGER "OrganizerText_sync_update" AFTER UPDATE ON "OrganizerText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'organizers' AND "itemId" = new."organizerId";
END;

CREATE TRIGGER "OrganizerText_sync_delete" AFTER DELETE ON "OrganizerText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = 'organizers' AND "itemId" = old."organizerId";
END;

CREATE TRIGGER "Term_sync_insert" AFTER INSERT ON "Term" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES (CASE new."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, new."id", NULL, 0, 1, NULL, CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Term_sync_update" AFTER UPDATE ON "Term" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES (CASE new."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, new."id", NULL, 0, 1, NULL, CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "Term_sync_delete" AFTER DELETE ON "Term" BEGIN
  INSERT INTO "SyncChange" ("resource", "itemId", "seq", "deleted", "everPublic", "authorId", "changedAt")
    VALUES (CASE old."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END, old."id", NULL, 1, 1, NULL, CAST(strftime('%s', 'now') AS INTEGER))
    ON CONFLICT ("resource", "itemId") DO UPDATE SET "seq" = NULL, "deleted" = excluded."deleted", "changedAt" = excluded."changedAt";
END;

CREATE TRIGGER "TermText_sync_insert" AFTER INSERT ON "TermText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = CASE new."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END AND "itemId" = new."termId";
END;

CREATE TRIGGER "TermText_sync_update" AFTER UPDATE ON "TermText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = CASE new."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END AND "itemId" = new."termId";
END;

CREATE TRIGGER "TermText_sync_delete" AFTER DELETE ON "TermText" BEGIN
  UPDATE "SyncChange" SET "seq" = NULL, "changedAt" = CAST(strftime('%s', 'now') AS INTEGER) WHERE "resource" = CASE old."taxonomy" WHEN 'category' THEN 'categories' ELSE 'tags' END AND "itemId" = old."termId";
END;

-- The key that signs sync tokens (see src/resources/sync/sync-token.ts), 256 random bits.
INSERT INTO "SiteSecret" ("name", "value") VALUES ('sync-token-key', lower(hex(randomblob(32))));
