-- Written by hand (Prisma does not model text-search columns): the search index of events. One
-- document per event, holding the search tokens of all its languages' texts (see
-- src/text/search-tokens.ts) as a tsvector, which the service writes with the texts; GIN finds
-- tokens by prefix. The migrator fills it for existing events after this migration
-- (src/db/data-migrations.ts); `npm run cli -- search:rebuild` does it again.
CREATE TABLE "EventSearch" (
    "eventId" INTEGER NOT NULL,
    "tokens" tsvector NOT NULL,

    CONSTRAINT "EventSearch_pkey" PRIMARY KEY ("eventId"),
    CONSTRAINT "EventSearch_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Without GIN's pending list (fastupdate), a write updates the index at once, and searches do
-- not scan the list of recent writes (which, until a vacuum, doubled the index's part of a search).
CREATE INDEX "EventSearch_tokens_idx" ON "EventSearch" USING gin ("tokens") WITH (fastupdate = off);
