-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "User" (
    "id" SERIAL NOT NULL,
    "login" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "email" TEXT,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "keyId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApplicationPassword" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApplicationPassword_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" SERIAL NOT NULL,
    "authorId" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "passwordHash" TEXT,
    "sourceLanguage" TEXT NOT NULL,
    "postDate" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" TIMESTAMP(3) NOT NULL,
    "startLocal" TEXT NOT NULL,
    "endLocal" TEXT NOT NULL,
    "startsAt" TIMESTAMP(3) NOT NULL,
    "endsAt" TIMESTAMP(3) NOT NULL,
    "timezone" TEXT NOT NULL,
    "timezoneAbbr" TEXT NOT NULL,
    "allDay" BOOLEAN NOT NULL DEFAULT false,
    "cost" TEXT,
    "website" TEXT,
    "image" TEXT,
    "showMap" BOOLEAN NOT NULL DEFAULT true,
    "showMapLink" BOOLEAN NOT NULL DEFAULT true,
    "hideFromListings" BOOLEAN NOT NULL DEFAULT false,
    "sticky" BOOLEAN NOT NULL DEFAULT false,
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "ticketed" BOOLEAN NOT NULL DEFAULT false,
    "parentId" INTEGER,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EventText" (
    "id" SERIAL NOT NULL,
    "eventId" INTEGER NOT NULL,
    "language" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "excerpt" TEXT,
    "slug" TEXT,
    "searchText" TEXT NOT NULL,
    "sortKey" TEXT NOT NULL,

    CONSTRAINT "EventText_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Venue" (
    "id" SERIAL NOT NULL,
    "authorId" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "sourceLanguage" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "postDate" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" TIMESTAMP(3) NOT NULL,
    "address" TEXT,
    "city" TEXT,
    "country" TEXT,
    "province" TEXT,
    "state" TEXT,
    "zip" TEXT,
    "phone" TEXT,
    "stateprovince" TEXT,
    "website" TEXT,
    "image" TEXT,
    "showMap" BOOLEAN NOT NULL DEFAULT true,
    "showMapLink" BOOLEAN NOT NULL DEFAULT true,
    "geoLat" DOUBLE PRECISION,
    "geoLng" DOUBLE PRECISION,

    CONSTRAINT "Venue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VenueText" (
    "id" SERIAL NOT NULL,
    "venueId" INTEGER NOT NULL,
    "language" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "searchText" TEXT NOT NULL,
    "sortKey" TEXT NOT NULL,

    CONSTRAINT "VenueText_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Organizer" (
    "id" SERIAL NOT NULL,
    "authorId" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "sourceLanguage" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "postDate" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" TIMESTAMP(3) NOT NULL,
    "phone" TEXT,
    "website" TEXT,
    "email" TEXT,
    "image" TEXT,

    CONSTRAINT "Organizer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrganizerText" (
    "id" SERIAL NOT NULL,
    "organizerId" INTEGER NOT NULL,
    "language" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "searchText" TEXT NOT NULL,
    "sortKey" TEXT NOT NULL,

    CONSTRAINT "OrganizerText_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Term" (
    "id" SERIAL NOT NULL,
    "taxonomy" TEXT NOT NULL,
    "parentId" INTEGER,
    "count" INTEGER NOT NULL DEFAULT 0,
    "sourceLanguage" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Term_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TermText" (
    "id" SERIAL NOT NULL,
    "termId" INTEGER NOT NULL,
    "taxonomy" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "slug" TEXT,
    "searchText" TEXT NOT NULL,
    "sortKey" TEXT NOT NULL,
    "slugKey" TEXT NOT NULL,

    CONSTRAINT "TermText_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EventVenue" (
    "eventId" INTEGER NOT NULL,
    "venueId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "EventVenue_pkey" PRIMARY KEY ("eventId","venueId")
);

-- CreateTable
CREATE TABLE "EventOrganizer" (
    "eventId" INTEGER NOT NULL,
    "organizerId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "EventOrganizer_pkey" PRIMARY KEY ("eventId","organizerId")
);

-- CreateTable
CREATE TABLE "EventTerm" (
    "eventId" INTEGER NOT NULL,
    "termId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "EventTerm_pkey" PRIMARY KEY ("eventId","termId")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_login_key" ON "User"("login");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyId_key" ON "ApiKey"("keyId");

-- CreateIndex
CREATE INDEX "ApiKey_userId_idx" ON "ApiKey"("userId");

-- CreateIndex
CREATE INDEX "ApplicationPassword_userId_idx" ON "ApplicationPassword"("userId");

-- CreateIndex
CREATE INDEX "Event_status_startsAt_id_idx" ON "Event"("status", "startsAt", "id");

-- CreateIndex
CREATE INDEX "Event_startsAt_id_idx" ON "Event"("startsAt", "id");

-- CreateIndex
CREATE INDEX "Event_endsAt_idx" ON "Event"("endsAt");

-- CreateIndex
CREATE INDEX "Event_parentId_idx" ON "Event"("parentId");

-- CreateIndex
CREATE INDEX "Event_authorId_idx" ON "Event"("authorId");

-- CreateIndex
CREATE INDEX "EventText_slug_idx" ON "EventText"("slug");

-- CreateIndex
CREATE INDEX "EventText_language_sortKey_idx" ON "EventText"("language", "sortKey");

-- CreateIndex
CREATE UNIQUE INDEX "EventText_eventId_language_key" ON "EventText"("eventId", "language");

-- CreateIndex
CREATE UNIQUE INDEX "EventText_language_slug_key" ON "EventText"("language", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "Venue_slug_key" ON "Venue"("slug");

-- CreateIndex
CREATE INDEX "Venue_status_postDate_idx" ON "Venue"("status", "postDate");

-- CreateIndex
CREATE INDEX "Venue_postDate_idx" ON "Venue"("postDate");

-- CreateIndex
CREATE INDEX "Venue_geoLat_geoLng_idx" ON "Venue"("geoLat", "geoLng");

-- CreateIndex
CREATE INDEX "VenueText_language_sortKey_idx" ON "VenueText"("language", "sortKey");

-- CreateIndex
CREATE UNIQUE INDEX "VenueText_venueId_language_key" ON "VenueText"("venueId", "language");

-- CreateIndex
CREATE UNIQUE INDEX "Organizer_slug_key" ON "Organizer"("slug");

-- CreateIndex
CREATE INDEX "Organizer_status_postDate_idx" ON "Organizer"("status", "postDate");

-- CreateIndex
CREATE INDEX "Organizer_postDate_idx" ON "Organizer"("postDate");

-- CreateIndex
CREATE INDEX "OrganizerText_language_sortKey_idx" ON "OrganizerText"("language", "sortKey");

-- CreateIndex
CREATE UNIQUE INDEX "OrganizerText_organizerId_language_key" ON "OrganizerText"("organizerId", "language");

-- CreateIndex
CREATE INDEX "Term_taxonomy_parentId_idx" ON "Term"("taxonomy", "parentId");

-- CreateIndex
CREATE INDEX "Term_taxonomy_count_idx" ON "Term"("taxonomy", "count");

-- CreateIndex
CREATE INDEX "TermText_taxonomy_slug_idx" ON "TermText"("taxonomy", "slug");

-- CreateIndex
CREATE INDEX "TermText_language_sortKey_idx" ON "TermText"("language", "sortKey");

-- CreateIndex
CREATE UNIQUE INDEX "TermText_termId_language_key" ON "TermText"("termId", "language");

-- CreateIndex
CREATE UNIQUE INDEX "TermText_taxonomy_language_slug_key" ON "TermText"("taxonomy", "language", "slug");

-- CreateIndex
CREATE INDEX "EventVenue_venueId_eventId_idx" ON "EventVenue"("venueId", "eventId");

-- CreateIndex
CREATE INDEX "EventOrganizer_organizerId_eventId_idx" ON "EventOrganizer"("organizerId", "eventId");

-- CreateIndex
CREATE INDEX "EventTerm_termId_eventId_idx" ON "EventTerm"("termId", "eventId");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApplicationPassword" ADD CONSTRAINT "ApplicationPassword_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Event"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventText" ADD CONSTRAINT "EventText_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Venue" ADD CONSTRAINT "Venue_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "VenueText" ADD CONSTRAINT "VenueText_venueId_fkey" FOREIGN KEY ("venueId") REFERENCES "Venue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Organizer" ADD CONSTRAINT "Organizer_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrganizerText" ADD CONSTRAINT "OrganizerText_organizerId_fkey" FOREIGN KEY ("organizerId") REFERENCES "Organizer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Term" ADD CONSTRAINT "Term_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Term"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TermText" ADD CONSTRAINT "TermText_termId_fkey" FOREIGN KEY ("termId") REFERENCES "Term"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventVenue" ADD CONSTRAINT "EventVenue_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventVenue" ADD CONSTRAINT "EventVenue_venueId_fkey" FOREIGN KEY ("venueId") REFERENCES "Venue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventOrganizer" ADD CONSTRAINT "EventOrganizer_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventOrganizer" ADD CONSTRAINT "EventOrganizer_organizerId_fkey" FOREIGN KEY ("organizerId") REFERENCES "Organizer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventTerm" ADD CONSTRAINT "EventTerm_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EventTerm" ADD CONSTRAINT "EventTerm_termId_fkey" FOREIGN KEY ("termId") REFERENCES "Term"("id") ON DELETE CASCADE ON UPDATE CASCADE;
