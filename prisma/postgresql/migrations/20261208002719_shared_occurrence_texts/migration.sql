-- An occurrence that follows its series shows the series' texts instead of a copy of them
-- (issue 60: one edit of a daily series rewrote and re-indexed hundreds of copies). Its own text
-- rows keep its slugs, and nothing else; the series' search document finds it.
ALTER TABLE "Event" ADD COLUMN     "textOwnerId" INTEGER;

CREATE INDEX "Event_textOwnerId_startsAt_idx" ON "Event"("textOwnerId", "startsAt");

ALTER TABLE "Event" ADD CONSTRAINT "Event_textOwnerId_fkey" FOREIGN KEY ("textOwnerId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand from here. A series' words are marked "series" and left out of the listed
-- index: a search finds the series by them, then its events (the series and the occurrences
-- that show its texts) in the window, from the events' own index (publicSearchSql in
-- src/resources/events/event-list-sql.ts).
ALTER TABLE "EventSearchWord" ADD COLUMN "series" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "EventSearchWord_series_idx" ON "EventSearchWord" ("term", "eventId") WHERE "series";

CREATE OR REPLACE FUNCTION "event_search_words"(ids INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Joined to the ids rather than compared with them (= ANY): a seed's statement brings 50,000.
  DELETE FROM "EventSearchWord" "s" USING unnest(ids) AS "i"("id") WHERE "s"."eventId" = "i"."id";
  INSERT INTO "EventSearchWord" ("term", "eventId", "startsAt", "endsAt", "listed", "series")
  SELECT chr(102 + "w"."languages") || "w"."word", "e"."id", "e"."startsAt", "e"."endsAt",
    ("e"."status" = 'publish' AND NOT "e"."hideFromListings" AND "e"."passwordHash" IS NULL AND "e"."recurrence" IS NULL),
    "e"."recurrence" IS NOT NULL
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
  WHERE (SELECT 1 FROM "EventSearchWordPart" "k" WHERE "k"."part" = substr("n"."word", 1, 16) AND "k"."word" = "n"."word" LIMIT 1) IS NULL
  ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE FUNCTION "event_search_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "EventSearch"
  SET "startsAt" = NEW."startsAt", "endsAt" = NEW."endsAt",
    "listed" = (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
  WHERE "eventId" = NEW."id";
  UPDATE "EventSearchWord"
  SET "startsAt" = NEW."startsAt", "endsAt" = NEW."endsAt",
    "listed" = (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL AND NEW."recurrence" IS NULL),
    "series" = NEW."recurrence" IS NOT NULL
  WHERE "eventId" = NEW."id";
  RETURN NULL;
END $$;

DROP TRIGGER "Event_search_follow" ON "Event";
CREATE TRIGGER "Event_search_follow" AFTER UPDATE OF "startsAt", "endsAt", "status", "hideFromListings", "passwordHash", "recurrence" ON "Event"
  FOR EACH ROW WHEN (
    OLD."startsAt" IS DISTINCT FROM NEW."startsAt" OR OLD."endsAt" IS DISTINCT FROM NEW."endsAt"
    OR (OLD."status" = 'publish' AND NOT OLD."hideFromListings" AND OLD."passwordHash" IS NULL)
      IS DISTINCT FROM (NEW."status" = 'publish' AND NOT NEW."hideFromListings" AND NEW."passwordHash" IS NULL)
    OR (OLD."recurrence" IS NULL) IS DISTINCT FROM (NEW."recurrence" IS NULL)
  )
  EXECUTE FUNCTION "event_search_follow"();

UPDATE "EventSearchWord" "w" SET "listed" = false, "series" = true
FROM "Event" "e" WHERE "e"."id" = "w"."eventId" AND "e"."recurrence" IS NOT NULL;

-- The occurrences whose texts are their series' (in the same languages) show the series' from now
-- on; those whose texts differ (made before an edit of the series) keep their own.
UPDATE "Event" "o" SET "textOwnerId" = "o"."parentId"
FROM "Event" "s"
WHERE "s"."id" = "o"."parentId" AND "s"."recurrence" IS NOT NULL AND "o"."recurrenceId" IS NOT NULL AND NOT "o"."detached"
  AND NOT EXISTS (
    SELECT 1 FROM "EventText" "a" LEFT JOIN "EventText" "b" ON "b"."eventId" = "s"."id" AND "b"."language" = "a"."language"
    WHERE "a"."eventId" = "o"."id" AND ("b"."eventId" IS NULL OR "a"."title" IS DISTINCT FROM "b"."title"
      OR "a"."description" IS DISTINCT FROM "b"."description" OR "a"."excerpt" IS DISTINCT FROM "b"."excerpt"))
  AND NOT EXISTS (
    SELECT 1 FROM "EventText" "b" WHERE "b"."eventId" = "s"."id"
      AND NOT EXISTS (SELECT 1 FROM "EventText" "a" WHERE "a"."eventId" = "o"."id" AND "a"."language" = "b"."language"));

UPDATE "EventText" SET "title" = NULL, "description" = NULL, "excerpt" = NULL, "searchText" = '', "sortKey" = ''
WHERE "eventId" IN (SELECT "id" FROM "Event" WHERE "textOwnerId" IS NOT NULL);

DELETE FROM "EventSearch" WHERE "eventId" IN (SELECT "id" FROM "Event" WHERE "textOwnerId" IS NOT NULL);
