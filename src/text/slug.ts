/**
 * Slugs as WordPress makes them (`sanitize_title`, in its "save" context), so that a client holding
 * the original's slug finds the same item here: accented Latin letters lose their accents (WordPress's
 * `remove_accents` table), tags are stripped, letters are lower-cased, every other character past
 * ASCII is kept as its UTF-8 octets percent-encoded in lower case (`🎷` is `%f0%9f%8e%b7`), octets
 * already percent-encoded are kept, and all that is left but `a-z`, `0-9`, `_` and `-` is dropped;
 * white space and `.` become `-`. At most 200 characters, as WordPress's `post_name` column.
 */

export const MAX_SLUG_LENGTH = 200;

/** WordPress's `remove_accents`, for text in Normalization Form C: each ASCII text, and the characters it stands for. */
const WITHOUT_ACCENTS: Record<string, string> = {
  "": "£",
  A: "ÀÁÂÃÄÅĀĂĄǍẠẢẤẦẨẪẬẮẰẲẴẶ",
  AE: "Æ",
  C: "ÇĆĈĊČ",
  D: "ÐĎĐ",
  E: "ÈÉÊËĒĔĖĘĚƏẸẺẼẾỀỂỄỆ€",
  G: "ĜĞĠĢ",
  H: "ĤĦ",
  I: "ÌÍÎÏĨĪĬĮİǏỈỊ",
  IJ: "Ĳ",
  J: "Ĵ",
  K: "Ķ",
  L: "ĹĻĽĿŁ",
  N: "ÑŃŅŇŊ",
  O: "ÒÓÔÕÖØŌŎŐƠǑỌỎỐỒỔỖỘỚỜỞỠỢ",
  OE: "Œ",
  R: "ŔŖŘ",
  S: "ŚŜŞŠȘ",
  T: "ŢŤŦȚ",
  TH: "Þ",
  U: "ÙÚÛÜŨŪŬŮŰŲƯǓǕǗǙǛỤỦỨỪỬỮỰ",
  W: "Ŵ",
  Y: "ÝŶŸỲỴỶỸ",
  Z: "ŹŻŽ",
  a: "ªàáâãäåāăąǎɑạảấầẩẫậắằẳẵặ",
  ae: "æ",
  c: "çćĉċč",
  d: "ðďđ",
  e: "èéêëēĕėęěǝẹẻẽếềểễệ",
  g: "ĝğġģ",
  h: "ĥħ",
  i: "ìíîïĩīĭįıǐỉị",
  ij: "ĳ",
  j: "ĵ",
  k: "ķĸ",
  l: "ĺļľŀł",
  n: "ñńņňŉŋ",
  o: "ºòóôõöøōŏőơǒọỏốồổỗộớờởỡợ",
  oe: "œ",
  r: "ŕŗř",
  s: "ßśŝşšſș",
  t: "ţťŧț",
  th: "þ",
  u: "ùúûüũūŭůűųưǔǖǘǚǜụủứừửữự",
  w: "ŵ",
  y: "ýÿŷỳỵỷỹ",
  z: "źżž",
};

const ACCENT_FREE = new Map(
  Object.entries(WITHOUT_ACCENTS).flatMap(([ascii, letters]) => [...letters].map((letter) => [letter, ascii] as const)),
);

function removeAccents(text: string): string {
  if (!/[\u0080-\uffff]/.test(text)) return text;
  return [...text.normalize("NFC")].map((char) => ACCENT_FREE.get(char) ?? char).join("");
}

/** PHP's `strip_tags`: a `<` not followed by white space opens a tag that ends at a `>` outside quotes (or the text's end). */
function stripTags(text: string): string {
  let kept = "";
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] !== "<" || i + 1 >= text.length || /\s/.test(text[i + 1])) {
      kept += text[i];
      continue;
    }
    if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    let quote: string | null = null;
    for (i += 1; i < text.length; i += 1) {
      const char = text[i];
      if (quote) quote = char === quote ? null : quote;
      else if (char === '"' || char === "'") quote = char;
      else if (char === ">") break;
    }
  }
  return kept;
}

/** UTF-8 octets of every character past ASCII, as `%xx` in lower case, up to `length` characters in all (no character cut). */
function encodeBeyondAscii(text: string, length: number): string {
  let encoded = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    // A lone surrogate is no character: WordPress leaves text that is not UTF-8 to the last filter, which drops it.
    const part = code < 0x80 ? char : code >= 0xd800 && code <= 0xdfff ? "" : encodeURIComponent(char).toLowerCase();
    if (encoded.length + part.length > length) break;
    encoded += part;
  }
  return encoded;
}

// Octets that stand for spaces and dashes of other widths (to `-`), marks and invisible characters (dropped), `×` (to `x`).
const AS_DASH = [
  "%c2%a0",
  "%e2%80%91",
  "%e2%80%93",
  "%e2%80%94",
  "&nbsp;",
  "&#8209;",
  "&#160;",
  "&ndash;",
  "&#8211;",
  "&mdash;",
  "&#8212;",
  "/",
];
const DROPPED = [
  ["%c2%ad", "%c2%a1", "%c2%bf", "%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba"],
  ["%e2%80%98", "%e2%80%99", "%e2%80%9c", "%e2%80%9d", "%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f"],
  ["%e2%80%a2", "%c2%a9", "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2", "%c2%b4", "%cb%8a", "%cc%81", "%cd%81"],
  ["%cc%80", "%cc%84", "%cc%8c", "%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f", "%e2%80%aa"],
  ["%e2%80%ab", "%e2%80%ac", "%e2%80%ad", "%e2%80%ae", "%ef%bb%bf", "%ef%bf%bc"],
].flat();
const WIDE_SPACES = [
  ["%e2%80%80", "%e2%80%81", "%e2%80%82", "%e2%80%83", "%e2%80%84", "%e2%80%85", "%e2%80%86", "%e2%80%87"],
  ["%e2%80%88", "%e2%80%89", "%e2%80%8a", "%e2%80%a8", "%e2%80%a9", "%e2%80%af"],
].flat();

const replaceAll = (text: string, parts: string[], by: string) =>
  parts.reduce((all, part) => all.split(part).join(by), text);

/**
 * The slug of a text, as WordPress makes it when it saves one (`sanitize_title`), or, with
 * `forLookup`, as it reads one asked for (its "query" context: accents are kept, as encoded
 * octets, and only the cleaning is done). `""` when nothing is left.
 */
export function slugify(text: string, forLookup = false): string {
  let slug = stripTags(forLookup ? text : removeAccents(text))
    .replace(/%([a-fA-F0-9]{2})/g, "---$1---")
    .replace(/%/g, "")
    .replace(/---([a-fA-F0-9]{2})---/g, "%$1");
  slug = encodeBeyondAscii(slug.toLowerCase(), MAX_SLUG_LENGTH).toLowerCase();
  if (!forLookup) {
    slug = replaceAll(replaceAll(replaceAll(slug, AS_DASH, "-"), DROPPED, ""), WIDE_SPACES, "-")
      .split("%c3%97")
      .join("x");
  }
  return slug
    .replace(/&.+?;/g, "")
    .replace(/\./g, "-")
    .replace(/[^%a-z0-9 _-]/g, "")
    .replace(/\s+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The slugs a lookup of `asked` may match, most exact first: as WordPress reads a slug asked for
 * (lower case, characters past ASCII percent-encoded: `Event-%F0%9F%8E%B7` and `event-🎷` are
 * `event-%f0%9f%8e%b7`), as it would make one of it (accents removed: `Música` is `musica`), and
 * either decoded, as slugs made before they were percent-encoded are kept (`東京`).
 */
export function slugLookupKeys(asked: string): string[] {
  const keys = [slugify(asked, true), slugify(asked)].filter((key) => key !== "");
  const decoded = keys.map((key) => {
    try {
      return decodeURIComponent(key);
    } catch {
      return key;
    }
  });
  return [...new Set([...keys, ...decoded])];
}

/**
 * The candidates for a unique slug: `base`, `base-2`, `base-3`, ...; a base too long for its suffix
 * is cut (never inside a `%xx` octet), as WordPress cuts it, so that every slug fits.
 */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  if (base.length + suffix.length <= MAX_SLUG_LENGTH) return `${base}${suffix}`;
  const cut = base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/%[0-9a-f]?$/, "");
  return `${cut.replace(/-+$/, "")}${suffix}`;
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
