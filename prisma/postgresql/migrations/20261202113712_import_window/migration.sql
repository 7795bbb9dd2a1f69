-- AlterTable
ALTER TABLE "ImportSource" ADD COLUMN     "window" TEXT;
