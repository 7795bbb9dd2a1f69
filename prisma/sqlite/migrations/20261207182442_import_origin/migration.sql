-- CreateTable
CREATE TABLE "ImportOrigin" (
    "scope" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "itemId" INTEGER NOT NULL,
    "owned" BOOLEAN NOT NULL,
    "digests" TEXT NOT NULL DEFAULT '{}',

    PRIMARY KEY ("scope", "kind", "origin")
);

-- CreateIndex
CREATE INDEX "ImportOrigin_kind_origin_idx" ON "ImportOrigin"("kind", "origin");

-- CreateIndex
CREATE INDEX "ImportOrigin_kind_itemId_idx" ON "ImportOrigin"("kind", "itemId");

-- The venues and organizers REST sources brought: the site that brought each is not known (the
-- scope ''): the first source whose site brings it again takes it as its own. Their digests were
-- of no language: the next run writes each once. The events' scopes are their sources' sites,
-- which only the service computes (DATA_MIGRATIONS in src/db/data-migrations.ts).
INSERT INTO "ImportOrigin" ("scope", "kind", "origin", "itemId", "owned", "digests")
SELECT '', "kind", "origin", "itemId", 1, '{}' FROM "ImportedLinkedItem";

-- DropTable
DROP TABLE "ImportedLinkedItem";
