import { firstFreeSlug, slugify } from "../../text/slug";

/**
 * Whether an error is the database refusing a duplicate value of a unique column. Prisma reports
 * it as P2002; through driver adapters the column names come in `meta.driverAdapterError`.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; meta?: { driverAdapterError?: { cause?: { kind?: string } } } } | null;
  return e?.code === "P2002" || e?.meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation";
}

const MAX_ATTEMPTS = 8;

/**
 * Runs a write whose slug was chosen free but may be taken by a concurrent write before it
 * commits: the database's unique index refuses the second one, and the write is tried again,
 * now seeing the other's slug and taking the next suffix.
 */
export async function retryOnSlugClash<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

/** The slug candidates' base: the slugified text, or a fallback for text with no letters. */
export function slugBase(text: string, fallback: string): string {
  return slugify(text) || fallback;
}

/** The first free slug for `base`, given a finder of the taken ones that start with it. */
export async function freeSlug(base: string, takenStartingWith: (base: string) => Promise<string[]>): Promise<string> {
  return firstFreeSlug(base, await takenStartingWith(base));
}
