-- Each item counts its writes (Event.version and its twins), and venues and organizers get a slug
-- per language, as events and terms have. Written by hand: Prisma would rebuild the four tables
-- to add the columns, which drops their triggers; SQLite adds a NOT NULL column with a default
-- in place.

-- AlterTable
ALTER TABLE "Event" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Venue" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Organizer" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Term" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "VenueText" ADD COLUMN "slug" TEXT;

-- AlterTable
ALTER TABLE "OrganizerText" ADD COLUMN "slug" TEXT;

-- The slug each venue and organizer had becomes its slug in the language it was written in.
UPDATE "VenueText" SET "slug" = (SELECT "v"."slug" FROM "Venue" "v" WHERE "v"."id" = "VenueText"."venueId")
  WHERE "language" = (SELECT "v"."sourceLanguage" FROM "Venue" "v" WHERE "v"."id" = "VenueText"."venueId");
UPDATE "OrganizerText" SET "slug" = (SELECT "o"."slug" FROM "Organizer" "o" WHERE "o"."id" = "OrganizerText"."organizerId")
  WHERE "language" = (SELECT "o"."sourceLanguage" FROM "Organizer" "o" WHERE "o"."id" = "OrganizerText"."organizerId");

-- CreateIndex
CREATE INDEX "OrganizerText_slug_idx" ON "OrganizerText"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "OrganizerText_language_slug_key" ON "OrganizerText"("language", "slug");

-- CreateIndex
CREATE INDEX "VenueText_slug_idx" ON "VenueText"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "VenueText_language_slug_key" ON "VenueText"("language", "slug");
