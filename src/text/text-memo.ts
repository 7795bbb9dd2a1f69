/**
 * A pure text transformation remembered for the texts it last saw. Representations run the same
 * stored descriptions through the same transformations on every read (a venue embedded in every
 * event of a page, the same page asked for again and again); what only changes when the text is
 * written need not be worked out again per request. Bounded in entries and in the length of the
 * texts it keeps, so that no input can grow it without limit; the oldest entry goes first.
 */
export function rememberedText<R>(transform: (text: string) => R, maxEntries = 2_000, maxLength = 4_096): (text: string) => R {
  const remembered = new Map<string, R>();
  return (text) => {
    if (text.length > maxLength) return transform(text);
    const known = remembered.get(text);
    if (known !== undefined || remembered.has(text)) return known as R;
    const result = transform(text);
    if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value!);
    remembered.set(text, result);
    return result;
  };
}
