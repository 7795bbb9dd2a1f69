-- Written by hand (Prisma does not model these): the search of published events everyone may see
-- answered by B-tree index-only scans, in date order, with exact totals (issue 46). GIN gives
-- matches in no order and no count without reading each match's row (1.5 kB of tokens): at
-- 1,000,000 events a word in one event of seven read 150,000 rows, seconds. See
-- publicSearchSql in src/resources/events/event-list-sql.ts.
--
-- "EventSearchWord": one row for each distinct word of an event's search texts (see
-- src/text/search-text.ts), its "term" the word after a letter for the set of the event's
-- languages whose text holds it (as the search tokens' marks, src/text/search-tokens.ts), with
-- the event's start, end and whether everyone's lists show it. A word's listed events lie
-- together in its index, in start order, with their ends: a search counts and pages them there.
CREATE TABLE "EventSearchWord" (
    "term" TEXT COLLATE "C" NOT NULL,
    "eventId" INTEGER NOT NULL,
    "startsAt" TIMESTAMP(3) NOT NULL,
    "endsAt" TIMESTAMP(3) NOT NULL,
    "listed" BOOLEAN NOT NULL,
    CONSTRAINT "EventSearchWord_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- "EventSearchWordPart": the pieces of every word ever indexed (its suffixes, cut to 16
-- characters: TOKEN_CHARS), by which a search word becomes the words that contain it. Words
-- stay when no event holds them any more: they then find no event.
CREATE TABLE "EventSearchWordPart" (
    "part" TEXT COLLATE "C" NOT NULL,
    "word" TEXT COLLATE "C" NOT NULL,
    CONSTRAINT "EventSearchWordPart_pkey" PRIMARY KEY ("part", "word")
);

-- An event's words, from its texts: the distinct words of each language's search text (its first
-- 2,000 words, each cut to 500 characters: a document's bounds, as search-tokens.ts bounds tokens,
-- and what a B-tree entry holds), each marked with the languages whose text holds it. Its new
-- words' parts are added.
CREATE FUNCTION "event_search_words"(ids INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Joined to the ids rather than compared with them (= ANY): a seed's statement brings 50,000.
  DELETE FROM "EventSearchWord" "s" USING unnest(ids) AS "i"("id") WHERE "s"."eventId" = "i"."id";
  INSERT INTO "EventSearchWord" ("term", "eventId", "startsAt", "endsAt", "listed")
  SELECT chr(102 + "w"."languages") || "w"."word", "e"."id", "e"."startsAt", "e"."endsAt",
    ("e"."status" = 'publish' AND NOT "e"."hideFromListings" AND "e"."passwordHash" IS NULL)
  FROM (
    SELECT "t"."eventId", left("u"."word", 500) AS "word",
      bit_or(CASE "t"."language" WHEN 'en' THEN 1 WHEN 'pt-br' THEN 2 ELSE 4 END) AS "languages"
    FROM unnest(ids) AS "i"("id")
    JOIN "EventText" "t" ON "t"."eventId" = "i"."id"
    CROSS JOIN LATERAL unnest((string_to_array("t"."searchText", ' '))[1:2000]) AS "u"("word")
    WHERE "u"."word" <> '' AND "t"."language" IN ('en', 'pt-br', 'es')
    GROUP BY 1, 2
  ) "w" JOIN "Event" "e" ON "e"."id" = "w"."eventId";
  INSERT INTO "EventSearchWordPart" ("part", "word")
  SELECT DISTINCT substr("n"."word", "p", 16), "n"."word"
  FROM (
    SELECT DISTINCT substr("s"."term", 2) AS "word"
    FROM unnest(ids) AS "i"("id") JOIN "EventSearchWord" "s" ON "s"."eventId" = "i"."id"
  ) "n" CROSS JOIN LATERAL generate_series(1, least(length("n"."word"), 1000)) AS "p"
  -- A known word's parts are there: its first is looked up, word by word (as a subquery, not a
  -- join, which the planner made a merge with every part there is: 40 ms for one event).
  WHERE (SELECT 1 FROM "EventSearchWordPart" "k" WHERE "k"."part" = substr("n"."word", 1, 16) AND "k"."word" = "n"."word" LIMIT 1) IS NULL
  ON CONFLICT DO NOTHING;
END $$;

-- Filled for the events there are, then kept by the texts' writes (statement triggers: an event's
-- texts are written together) and the events' own changes (event_search_follow, below).
SELECT "event_search_words"(ARRAY(SELECT "id" FROM "Event"));

CREATE INDEX "EventSearchWord_listed_idx" ON "EventSearchWord" ("term", "startsAt", "eventId") INCLUDE ("endsAt") WHERE "listed";
CREATE INDEX "EventSearchWord_eventId_idx" ON "EventSearchWord" ("eventId");

-- An upsert of texts fires the INSERT and the UPDATE triggers, one of them for no row.
CREATE FUNCTION "event_search_words_of_texts"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids INTEGER[] := ARRAY(SELECT DISTINCT "eventId" FROM "changed_texts");
BEGIN
  IF cardinality(ids) > 0 THEN
    PERFORM "event_search_words"(ids);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "EventText_search_words_insert" AFTER INSERT ON "EventText"
  REFERENCING NEW TABLE AS "changed_texts" FOR EACH STATEMENT EXECUTE FUNCTION "event_search_words_of_texts"();
CREATE TRIGGER "EventText_search_words_update" AFTER UPDATE ON "EventText"
  REFERENCING NEW TABLE AS "changed_texts" FOR EACH STATEMENT EXECUTE FUNCTION "event_search_words_of_texts"();
CREATE TRIGGER "EventText_search_words_delete" AFTER DELETE ON "EventText"
  REFERENCING OLD TABLE AS "changed_texts" FOR EACH STATEMENT EXECUTE FUNCTION "event_search_words_of_texts"();

-- The events' starts, ends and listing, followed by their words as by their documents.
CREATE OR REPLACE FUNCTION "event_search_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "EventSearch"
  SET "startsAt" = NEW."startsAt", "endsAt" = NEW."endsAt",
    "listed" = (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
  WHERE "eventId" = NEW."id";
  UPDATE "EventSearchWord"
  SET "startsAt" = NEW."startsAt", "endsAt" = NEW."endsAt",
    "listed" = (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
  WHERE "eventId" = NEW."id";
  RETURN NULL;
END $$;
