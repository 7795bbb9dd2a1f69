import type { Database } from "../../db/database";
import { driverCause, lockFor, type Tx } from "../../db/transaction";
import { firstFreeSlug, slugify, type TakenAmong } from "../../text/slug";

/** Codes of a duplicate value refused by a unique index: Prisma's, SQLite's (better-sqlite3), PostgreSQL's. */
const UNIQUE_VIOLATION_CODES = new Set(["P2002", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY", "23505"]);

/** Whether an error is the database refusing a duplicate value of a unique column. */
export function isUniqueViolation(error: unknown): boolean {
  return (
    UNIQUE_VIOLATION_CODES.has((error as { code?: string } | null)?.code ?? "") ||
    driverCause(error)?.kind === "UniqueConstraintViolation"
  );
}

const MAX_ATTEMPTS = 8;

/**
 * Runs a write whose slug was chosen free but may be taken by a concurrent write before it
 * commits: the database's unique index refuses the second one, and the write is tried again
 * (after a short random pause), now seeing the other's slug and taking the next suffix.
 */
export async function retryOnSlugClash<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isUniqueViolation(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/**
 * The slug a write gives, if it makes one: as WordPress saves posts and terms, a slug of which
 * nothing is left once made a slug (`!!!`, `<b></b>`) is as if none were given, and the item's
 * is made from its name.
 */
export function givenSlug(slug: string | undefined): string | undefined {
  return slug !== undefined && slugify(slug) !== "" ? slug : undefined;
}

/** The slug candidates' base: the slugified text, or a fallback for text with no letters. */
export function slugBase(text: string, fallback: string): string {
  return slugify(text) || fallback;
}

/**
 * The first free slug for `base`. Writes that want slugs of the same base take turns (an
 * advisory lock on PostgreSQL, held until the transaction ends; SQLite writes are one at a
 * time anyway), so that fifty concurrent "Same title" events get `same-title` to
 * `same-title-50` at the first attempt, instead of racing for each suffix.
 */
export async function freeSlug(
  db: Database,
  tx: Tx,
  scope: string,
  base: string,
  takenAmong: TakenAmong,
): Promise<string> {
  await lockFor(db, tx, `slug:${scope}:${base}`);
  return firstFreeSlug(base, takenAmong);
}
