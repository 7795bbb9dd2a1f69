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

/**
 * The first free slug among `base`, `base-2`, `base-3`... given the slugs already taken that
 * start with `base` (from one `slug = base OR slug LIKE 'base-%'` query).
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  let attempt = 1;
  while (used.has(slugCandidate(base, attempt))) attempt += 1;
  return slugCandidate(base, attempt);
}
