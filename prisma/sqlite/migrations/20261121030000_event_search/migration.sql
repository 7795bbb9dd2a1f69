-- Written by hand (Prisma does not model full-text tables): the search index of events. One
-- document per event (rowid = the event's id), holding the search tokens of all its languages'
-- texts (see src/text/search-tokens.ts), which the service writes with the texts. Contentless:
-- the texts stay in "EventText" only. The migrator fills it for existing events after this
-- migration (src/db/data-migrations.ts); `npm run cli -- search:rebuild` does it again.
CREATE VIRTUAL TABLE "EventSearch" USING fts5("tokens", content='', contentless_delete=1, detail='none', tokenize='ascii');

CREATE TRIGGER "Event_search_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventSearch" WHERE "rowid" = old."id";
END;
