// SQLite's writer commits the transactions that wait together at once (src/db/driver-transaction.ts):
// each one still succeeds or fails alone, and what one that fails did is not kept.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sqliteWriter, type DriverWriter } from "../src/db/driver-transaction";

const PAGE = 4096;
const FRAME = 24 + PAGE;

describe("SQLite's writer", () => {
  let folder: string;
  let path: string;
  let writer: DriverWriter;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), "group-commit-"));
    path = join(folder, "writes.db");
    writer = sqliteWriter(
      path,
      1_000,
      `PRAGMA page_size = ${PAGE}; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;`,
    );
    await writer.transact((tx) =>
      tx.$executeRawUnsafe(`CREATE TABLE "Written" ("id" INTEGER PRIMARY KEY, "name" TEXT)`),
    );
    const other = new BetterSqlite3(path);
    other.pragma("wal_checkpoint(TRUNCATE)");
    other.close();
  });

  afterEach(async () => {
    await writer.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const names = () =>
    new BetterSqlite3(path, { readonly: true })
      .prepare(`SELECT "name" FROM "Written" ORDER BY "id"`)
      .all()
      .map((row) => (row as { name: string }).name);
  const walFrames = () => (statSync(`${path}-wal`).size - 32) / FRAME;

  it("commits the writes that wait together once, and keeps nothing of the one that fails", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        writer.transact(async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO "Written" ("name") VALUES (?)`, `write ${i}`);
          if (i === 3) throw new Error("refused");
          return i;
        }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled").map((outcome) => outcome.value)).toEqual([
      0, 1, 2, 4, 5,
    ]);
    expect(names()).toEqual(["write 0", "write 1", "write 2", "write 4", "write 5"]);
    // One commit writes the table's page once; a commit each would have written it five times.
    expect(walFrames()).toBeLessThan(3);
  });

  it("commits a write asked for while a group runs in a group of its own, after it", async () => {
    const order: string[] = [];
    let later: Promise<unknown> | undefined;
    await writer.transact(async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO "Written" ("name") VALUES ('first')`);
      later = writer.transact(async (inner) => {
        order.push("second runs");
        await inner.$executeRawUnsafe(`INSERT INTO "Written" ("name") VALUES ('second')`);
      });
      order.push("first ends");
    });
    await later;
    expect(order).toEqual(["first ends", "second runs"]);
    expect(names()).toEqual(["first", "second"]);
  });
});
