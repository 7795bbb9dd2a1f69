import { Prisma } from "../../generated/prisma/sqlite/client";
import type { Database } from "./database";

/**
 * A secret of the site that every instance shares (SiteSecret, made once by a migration), read
 * once per process. `purpose` names it in the error a database that was not migrated gives.
 */
export async function siteSecret(db: Database, name: string, purpose: string): Promise<Buffer> {
  const [row] = await db.direct.rows<{ value: string }>(
    Prisma.sql`SELECT "value" FROM "SiteSecret" WHERE "name" = ${name}`,
  );
  if (!row) throw new Error(`${purpose} is missing: the database was not migrated (npm run migrate)`);
  return Buffer.from(row.value, "utf8");
}
