import type { Database } from "./database";

/**
 * A secret of the site that every instance shares (SiteSecret, made once by a migration), read
 * once per process. `purpose` names it in the error a database that was not migrated gives.
 */
export function siteSecret(db: Database, name: string, purpose: string): Promise<Buffer> {
  return db.read.siteSecret.findUnique({ where: { name }, select: { value: true } }).then((row) => {
    if (!row) throw new Error(`${purpose} is missing: the database was not migrated (npm run migrate)`);
    return Buffer.from(row.value, "utf8");
  });
}
