-- CreateTable
CREATE TABLE "ImportSource" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "nextRunAt" REAL,
    "leaseUntil" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ImportRun" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sourceId" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "fetch" TEXT,
    "startedAt" REAL NOT NULL,
    "finishedAt" REAL,
    "leaseUntil" REAL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "removed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "errors" TEXT NOT NULL DEFAULT '[]',
    "error" TEXT,
    CONSTRAINT "ImportRun_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ImportedItem" (
    "sourceId" INTEGER NOT NULL,
    "uid" TEXT NOT NULL,
    "recurrenceId" TEXT NOT NULL,
    "eventId" INTEGER,
    "digest" TEXT NOT NULL,

    PRIMARY KEY ("sourceId", "uid", "recurrenceId"),
    CONSTRAINT "ImportedItem_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ImportedItem_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE INDEX "ImportRun_sourceId_id_idx" ON "ImportRun"("sourceId", "id");

-- CreateIndex
CREATE INDEX "ImportedItem_eventId_idx" ON "ImportedItem"("eventId");
