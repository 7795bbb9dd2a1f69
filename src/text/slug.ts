const MAX_SLUG_LENGTH = 190;

/**
 * A URL slug, as WordPress's sanitize_title makes one: accents removed, lower case, runs of
 * anything that is not a letter (of any script), digit, `_` or `-` turned into one `-`, no `-`
 * at either end.
 * May return "" (for input with no letters or digits at all).
 */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/&[a-z]+;/g, "-")
    .replace(/[^\p{L}\p{N}_-]+/gu, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, "");
}

/** The candidates for a unique slug: `base`, `base-2`, `base-3`, ... */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}

/** Which of the candidate slugs are in use. */
export type TakenAmong = (candidates: string[]) => Promise<string[]>;

// Candidates asked about at once, at most: Prisma caps the parameters of one SQLite query at 999.
const MAX_BATCH = 256;

/**
 * The first free slug among `base`, `base-2`, `base-3`... It asks which candidates are taken
 * with equality lookups on the unique slug index (a prefix query, `LIKE 'base-%'`, cannot use
 * that index on SQLite nor under most PostgreSQL collations, and scanned every slug), in batches
 * growing fourfold, so that even thousands of items with one title take a few queries.
 */
export async function firstFreeSlug(base: string, takenAmong: TakenAmong): Promise<string> {
  for (let first = 1, size = 16; ; first += size, size = Math.min(size * 4, MAX_BATCH)) {
    const candidates = Array.from({ length: size }, (_, i) => slugCandidate(base, first + i));
    const taken = new Set(await takenAmong(candidates));
    const free = candidates.find((candidate) => !taken.has(candidate));
    if (free !== undefined) return free;
  }
}
