-- Written by hand: the event search index's tokens now carry their text's languages (see
-- src/text/search-tokens.ts), so that a search is answered by the index alone. The index is made
-- again, empty, as 20261121030000_event_search made it: writing every document over the old ones
-- would leave the old ones' deletions in the index, which made each search read twice as much.
-- The migrator writes every event's document after this migration (src/db/data-migrations.ts),
-- in the same transaction.
DROP TRIGGER "Event_search_delete";
DROP TABLE "EventSearch";

CREATE VIRTUAL TABLE "EventSearch" USING fts5("tokens", content='', contentless_delete=1, detail='none', tokenize='ascii');

CREATE TRIGGER "Event_search_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" = old."id";
END;
