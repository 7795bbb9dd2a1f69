-- CreateTable
CREATE TABLE "ImportSource" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "frequency" TEXT NOT NULL,
    "postStatus" TEXT NOT NULL,
    "categories" TEXT NOT NULL DEFAULT '[]',
    "tags" TEXT NOT NULL DEFAULT '[]',
    "language" TEXT NOT NULL,
    "onRemoved" TEXT NOT NULL DEFAULT 'trash',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "pausedReason" TEXT,
    "ownerId" INTEGER NOT NULL,
    "etag" TEXT,
    "lastModified" TEXT,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" DOUBLE PRECISION,
    "leaseUntil" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportSource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportRun" (
    "id" SERIAL NOT NULL,
    "sourceId" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "fetch" TEXT,
    "startedAt" DOUBLE PRECISION NOT NULL,
    "finishedAt" DOUBLE PRECISION,
    "leaseUntil" DOUBLE PRECISION,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "removed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "errors" TEXT NOT NULL DEFAULT '[]',
    "error" TEXT,

    CONSTRAINT "ImportRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportedItem" (
    "sourceId" INTEGER NOT NULL,
    "uid" TEXT NOT NULL,
    "recurrenceId" TEXT NOT NULL,
    "eventId" INTEGER,
    "digest" TEXT NOT NULL,

    CONSTRAINT "ImportedItem_pkey" PRIMARY KEY ("sourceId","uid","recurrenceId")
);

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE INDEX "ImportRun_sourceId_id_idx" ON "ImportRun"("sourceId", "id");

-- CreateIndex
CREATE INDEX "ImportedItem_eventId_idx" ON "ImportedItem"("eventId");

-- AddForeignKey
ALTER TABLE "ImportRun" ADD CONSTRAINT "ImportRun_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE SET NULL ON UPDATE CASCADE;
