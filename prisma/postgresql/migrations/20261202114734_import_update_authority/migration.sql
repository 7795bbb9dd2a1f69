-- AlterTable
ALTER TABLE "ImportSource" ADD COLUMN     "updateAuthority" TEXT NOT NULL DEFAULT 'overwrite';

-- AlterTable
ALTER TABLE "ImportedItem" ADD COLUMN     "fields" TEXT;
