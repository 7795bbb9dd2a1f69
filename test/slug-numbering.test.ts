// Free slugs, one at a time (an item's write) and many at once (a series' occurrences): `base`, then
// `base-2`, `base-3`…, the first that no item has, nor an earlier base of the same call was given.
import { firstFreeSlug, firstFreeSlugs } from "../src/text/slug";

/** A TakenAmong over a fixed set of slugs in use, counting the questions asked. */
function inUse(slugs: string[]) {
  const taken = new Set(slugs);
  const asked: number[] = [];
  return {
    asked,
    takenAmong: async (candidates: string[]) => {
      asked.push(candidates.length);
      return candidates.filter((candidate) => taken.has(candidate));
    },
  };
}

describe("firstFreeSlug", () => {
  it("gives the base when it is free, else the first free numbered one", async () => {
    expect(await firstFreeSlug("concert", inUse([]).takenAmong)).toBe("concert");
    expect(await firstFreeSlug("concert", inUse(["concert", "concert-2"]).takenAmong)).toBe("concert-3");
  });
});

describe("firstFreeSlugs", () => {
  it("numbers past every taken candidate, however far (base-4 and on too)", async () => {
    const used = inUse(["jam-2026-12-01", "jam-2026-12-01-2", "jam-2026-12-01-3", "jam-2026-12-01-4"]);
    expect(await firstFreeSlugs(["jam-2026-12-01"], used.takenAmong)).toEqual(["jam-2026-12-01-5"]);
  });

  it("gives each base its own slug, earlier bases first, when two bases are the same", async () => {
    const used = inUse(["jam"]);
    expect(await firstFreeSlugs(["jam", "jam", "talk"], used.takenAmong)).toEqual(["jam-2", "jam-3", "talk"]);
  });

  it("asks about every base's candidates together: one question when the first candidates do", async () => {
    const used = inUse(["a", "b-2"]);
    const bases = Array.from({ length: 100 }, (_, i) => `day-${i}`).concat(["a", "b"]);
    const slugs = await firstFreeSlugs(bases, used.takenAmong);
    expect(slugs.slice(-2)).toEqual(["a-2", "b"]);
    expect(used.asked).toHaveLength(1);
  });
});
