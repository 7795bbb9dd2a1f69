-- Each item counts its writes (Event.version and its twins), and venues and organizers get a slug
-- per language, as events and terms have.

-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Organizer" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "OrganizerText" ADD COLUMN     "slug" TEXT;

-- AlterTable
ALTER TABLE "Term" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Venue" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "VenueText" ADD COLUMN     "slug" TEXT;

-- The slug each venue and organizer had becomes its slug in the language it was written in.
UPDATE "VenueText" SET "slug" = "v"."slug" FROM "Venue" "v"
  WHERE "v"."id" = "VenueText"."venueId" AND "VenueText"."language" = "v"."sourceLanguage";
UPDATE "OrganizerText" SET "slug" = "o"."slug" FROM "Organizer" "o"
  WHERE "o"."id" = "OrganizerText"."organizerId" AND "OrganizerText"."language" = "o"."sourceLanguage";

-- CreateIndex
CREATE INDEX "OrganizerText_slug_idx" ON "OrganizerText"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "OrganizerText_language_slug_key" ON "OrganizerText"("language", "slug");

-- CreateIndex
CREATE INDEX "VenueText_slug_idx" ON "VenueText"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "VenueText_language_slug_key" ON "VenueText"("language", "slug");
