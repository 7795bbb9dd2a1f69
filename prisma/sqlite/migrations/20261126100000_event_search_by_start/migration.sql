-- Written by hand: each event's search document is now kept under a key that orders the index
-- as the event list is ordered (see src/resources/events/event-search-sql.ts), so that a search
-- reads its page in date order and counts its matches within a date window from the index alone:
--
--   (unlisted << 62) | (minute << 31) | id
--
-- where unlisted is 0 for an event everyone's lists show (published, not hidden, no password),
-- minute is the minute the event starts, counted from 0000-01-01T00:00Z (up to the year 4083),
-- and id its id. A change of any of them moves the document: this trigger takes the old one out
-- and notes the event in "EventSearchMoved", and the service writes its document again, from its
-- texts, before the transaction commits (SQLite cannot read a contentless document back).
--
-- The index is made again, empty; the migrator writes every event's document after this
-- migration (src/db/data-migrations.ts), in the same transaction.
DROP TRIGGER "Event_search_delete";
DROP TABLE "EventSearch";

CREATE VIRTUAL TABLE "EventSearch" USING fts5("tokens", content='', contentless_delete=1, detail='none', tokenize='ascii');

-- FTS5's view of the index's terms: a search looks up which terms its words' prefixes begin, and
-- then reads those terms' documents (see searchMatch in src/resources/events/event-list-sql.ts).
CREATE VIRTUAL TABLE "EventSearchVocab" USING fts5vocab("EventSearch", 'row');

CREATE TABLE "EventSearchMoved" ("eventId" INTEGER NOT NULL PRIMARY KEY);

CREATE TRIGGER "Event_search_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" =
    ((CASE WHEN old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr(old."startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | old."id";
END;

CREATE TRIGGER "Event_search_move" AFTER UPDATE OF "startsAt", "status", "hideFromListings", "passwordHash" ON "Event"
WHEN substr(old."startsAt", 1, 16) IS NOT substr(new."startsAt", 1, 16)
  OR (old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL)
    IS NOT (new."status" = 'publish' AND new."hideFromListings" = 0 AND new."passwordHash" IS NULL)
BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" =
    ((CASE WHEN old."status" = 'publish' AND old."hideFromListings" = 0 AND old."passwordHash" IS NULL THEN 0 ELSE 1 END) << 62)
    | (min(max(COALESCE((unixepoch(substr(old."startsAt", 1, 16)) + 62167219200) / 60, 0), 0), 2147483647) << 31)
    | old."id";
  INSERT OR IGNORE INTO "EventSearchMoved" ("eventId") VALUES (new."id");
END;
