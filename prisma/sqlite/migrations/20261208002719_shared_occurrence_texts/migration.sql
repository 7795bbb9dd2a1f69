-- An occurrence that follows its series shows the series' texts instead of a copy of them
-- (issue 60: one edit of a daily series rewrote and re-indexed hundreds of copies). Its own text
-- rows keep its slugs, and nothing else; the series' search document finds it.
-- Added in place (Prisma would make the table again, and lose its triggers).
ALTER TABLE "Event" ADD COLUMN "textOwnerId" INTEGER REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE INDEX "Event_textOwnerId_startsAt_idx" ON "Event"("textOwnerId", "startsAt");

-- Written by hand from here. A series' document is kept under the key -id, below every listed
-- or unlisted event's (see src/resources/events/event-search-sql.ts): a search finds the series
-- there, then its events (the series and the occurrences that show its texts) in the window, from
-- the events' own index (publicSearchSql in src/resources/events/event-list-sql.ts).
DROP TRIGGER "Event_search_delete";
DROP TRIGGER "Event_search_move";

CREATE TRIGGER "Event_search_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" = CASE WHEN old."recurrence" IS NOT NULL THEN -old."id" ELSE
    ((CASE WHEN old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr(old."startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | old."id" END;
END;

CREATE TRIGGER "Event_search_move" AFTER UPDATE OF "startsAt", "status", "hideFromListings", "passwordHash", "recurrence" ON "Event"
WHEN (old."recurrence" IS NULL) IS NOT (new."recurrence" IS NULL)
  OR (new."recurrence" IS NULL AND (substr(old."startsAt", 1, 16) IS NOT substr(new."startsAt", 1, 16)
    OR (old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL)
      IS NOT (new."status" = 'publish' AND new."hideFromListings" = 0 AND new."passwordHash" IS NULL)))
BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" = CASE WHEN old."recurrence" IS NOT NULL THEN -old."id" ELSE
    ((CASE WHEN old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr(old."startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | old."id" END;
  INSERT OR IGNORE INTO "EventSearchMoved" ("eventId") VALUES (new."id");
END;

-- The series' documents leave their keys of before; the migrator writes them under their new
-- ones (src/db/data-migrations.ts), as the service writes a moved document.
DELETE FROM "EventSearch" WHERE "rowid" IN (SELECT
    ((CASE WHEN "status" = 'publish' AND "hideFromListings" = 0 AND "passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr("startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | "id" FROM "Event" WHERE "recurrence" IS NOT NULL);
INSERT OR IGNORE INTO "EventSearchMoved" ("eventId") SELECT "id" FROM "Event" WHERE "recurrence" IS NOT NULL;

-- The occurrences whose texts are their series' (in the same languages) show the series' from now
-- on; those whose texts differ (made before an edit of the series) keep their own.
UPDATE "Event" SET "textOwnerId" = "parentId"
WHERE "recurrenceId" IS NOT NULL AND "detached" = 0
  AND "parentId" IN (SELECT "id" FROM "Event" WHERE "recurrence" IS NOT NULL)
  AND NOT EXISTS (
    SELECT 1 FROM "EventText" "a" LEFT JOIN "EventText" "b" ON "b"."eventId" = "Event"."parentId" AND "b"."language" = "a"."language"
    WHERE "a"."eventId" = "Event"."id" AND ("b"."eventId" IS NULL OR "a"."title" IS NOT "b"."title"
      OR "a"."description" IS NOT "b"."description" OR "a"."excerpt" IS NOT "b"."excerpt"))
  AND NOT EXISTS (
    SELECT 1 FROM "EventText" "b" WHERE "b"."eventId" = "Event"."parentId"
      AND NOT EXISTS (SELECT 1 FROM "EventText" "a" WHERE "a"."eventId" = "Event"."id" AND "a"."language" = "b"."language"));

DELETE FROM "EventSearch" WHERE "rowid" IN (SELECT
    ((CASE WHEN "status" = 'publish' AND "hideFromListings" = 0 AND "passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr("startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | "id" FROM "Event" WHERE "textOwnerId" IS NOT NULL);

UPDATE "EventText" SET "title" = NULL, "description" = NULL, "excerpt" = NULL, "searchText" = '', "sortKey" = ''
WHERE "eventId" IN (SELECT "id" FROM "Event" WHERE "textOwnerId" IS NOT NULL);
