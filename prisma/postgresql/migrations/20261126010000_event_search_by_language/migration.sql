-- Written by hand: the event search index's tokens now carry their text's languages (see
-- src/text/search-tokens.ts), so that a search is answered by the index alone. The documents are
-- emptied here; the migrator writes every event's document after this migration
-- (src/db/data-migrations.ts), in the same transaction.
TRUNCATE "EventSearch";
