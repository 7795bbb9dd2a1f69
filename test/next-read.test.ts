// The change log's clock read by the representation cache (src/sync/next-read.ts): callers that
// ask together share one read, and none is given a read that began before it asked.
import { NextRead } from "../src/sync/next-read";

/** A read that ends when told to, counting how many began. */
function controlledReads() {
  const ends: Array<(value: number) => void> = [];
  let began = 0;
  return {
    read: () =>
      new Promise<number>((resolve) => {
        began += 1;
        const number = began;
        ends.push(() => resolve(number));
      }),
    began: () => began,
    endNext: () => ends.shift()!(0),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("a read shared by callers that ask together", () => {
  it("is one read for the callers of one moment", async () => {
    const reads = controlledReads();
    const shared = new NextRead(reads.read);
    const answers = Promise.all([shared.get(), shared.get(), shared.get()]);
    await tick();
    expect(reads.began()).toBe(1);
    reads.endNext();
    expect(await answers).toEqual([1, 1, 1]);
  });

  it("gives a caller who asks while a read is under way the next read, shared with the others who ask meanwhile", async () => {
    const reads = controlledReads();
    const shared = new NextRead(reads.read);
    const first = shared.get();
    await tick();
    // The first read has begun: these two must not have it (it may predate a commit they follow).
    const second = shared.get();
    const third = shared.get();
    await tick();
    expect(reads.began()).toBe(1);
    reads.endNext();
    await tick();
    expect(reads.began()).toBe(2);
    reads.endNext();
    expect([await first, await second, await third]).toEqual([1, 2, 2]);
  });

  it("fails only the callers of a read that failed", async () => {
    let calls = 0;
    const shared = new NextRead(async () => {
      calls += 1;
      if (calls === 1) throw new Error("database away");
      return calls;
    });
    await expect(shared.get()).rejects.toThrow("database away");
    await expect(shared.get()).resolves.toBe(2);
  });
});
