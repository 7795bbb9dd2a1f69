/**
 * Values made from a key, kept for the keys last asked for: at most `maxEntries`, the oldest going
 * first, so that no stream of keys can grow it without limit.
 */
export class RecentValues<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  valueOf(key: string, make: () => V): V {
    if (this.values.has(key)) return this.values.get(key)!;
    const value = make();
    if (this.values.size >= this.maxEntries) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, value);
    return value;
  }

  forget(key: string): void {
    this.values.delete(key);
  }
}

/**
 * A pure text transformation remembered for the texts it last saw. Representations run the same
 * stored descriptions through the same transformations on every read (a venue embedded in every
 * event of a page, the same page asked for again and again); what only changes when the text is
 * written need not be worked out again per request. Bounded in entries and in the length of the
 * texts it keeps.
 */
export function rememberedText<R>(
  transform: (text: string) => R,
  maxEntries = 2_000,
  maxLength = 4_096,
): (text: string) => R {
  const remembered = new RecentValues<R>(maxEntries);
  return (text) => (text.length > maxLength ? transform(text) : remembered.valueOf(text, () => transform(text)));
}
