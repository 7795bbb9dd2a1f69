-- CreateTable
CREATE TABLE "SiteSecret" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL
);

-- Written by hand: the salt of event passwords, 256 random bits (SQLite's randomblob draws from
-- a generator seeded by the operating system's entropy).
INSERT INTO "SiteSecret" ("name", "value") VALUES ('event-password-salt', lower(hex(randomblob(32))));
