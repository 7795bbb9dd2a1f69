const MAX_SLUG_LENGTH = 190;

/**
 * A URL slug, as WordPress's sanitize_title makes one: accents removed, lower case, runs of
 * anything that is not a letter (of any script), digit, `_` or `-` turned into one `-`, no `-`
 * at either end.
 * May return "" (for input with no letters or digits at all).
 */
export function slugify(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .replace(/&[a-z]+;/g, "-")
      .replace(/[^\p{L}\p{N}_-]+/gu, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, MAX_SLUG_LENGTH)
      // Cut inside a pair of surrogates (a letter past the BMP), the half left is no character.
      .replace(/[\uD800-\uDBFF]$/, "")
      .replace(/-+$/g, "")
  );
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

/**
 * firstFreeSlug for many bases at once (a series' occurrences, hundreds of them): for each base, in
 * order, the first of its candidates that is not taken nor given to an earlier base. The candidates
 * of every base still without one are asked about together, in batches growing as firstFreeSlug's.
 */
export async function firstFreeSlugs(bases: string[], takenAmong: TakenAmong): Promise<string[]> {
  const given = new Set<string>();
  const slugs: string[] = [];
  let waiting = bases.map((base, index) => ({ base, index, first: 1 }));
  for (let size = 3; waiting.length > 0; size = Math.min(size * 4, MAX_BATCH)) {
    const candidatesOf = (item: { base: string; first: number }) =>
      Array.from({ length: size }, (_, i) => slugCandidate(item.base, item.first + i));
    const taken = new Set(await takenAmong(waiting.flatMap(candidatesOf)));
    const next: typeof waiting = [];
    for (const item of waiting) {
      const free = candidatesOf(item).find((candidate) => !taken.has(candidate) && !given.has(candidate));
      if (free === undefined) next.push({ ...item, first: item.first + size });
      else {
        slugs[item.index] = free;
        given.add(free);
      }
    }
    waiting = next;
  }
  return slugs;
}
