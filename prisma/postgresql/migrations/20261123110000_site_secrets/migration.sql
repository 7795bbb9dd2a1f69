-- CreateTable
CREATE TABLE "SiteSecret" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "SiteSecret_pkey" PRIMARY KEY ("name")
);

-- Written by hand: the salt of event passwords, 244 random bits (gen_random_uuid draws from the
-- server's strong random source).
INSERT INTO "SiteSecret" ("name", "value") VALUES ('event-password-salt', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
