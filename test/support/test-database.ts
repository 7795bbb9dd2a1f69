import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { providerOf } from "../../src/db/database";
import { migrate } from "../../src/db/migrate";

/**
 * A database of its own for one test file, migrated like production. SQLite by default;
 * PostgreSQL when TEST_DATABASE_URL is a postgresql:// URL (the server and role in it are used to
 * create, and afterwards drop, a database named calendar_test_<random>).
 */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export function testDatabaseProvider(): "sqlite" | "postgresql" {
  return providerOf(process.env.TEST_DATABASE_URL ?? "file:") === "postgresql" ? "postgresql" : "sqlite";
}

export const TEST_DATABASE_PREFIX = "calendar_test_";

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl && testDatabaseProvider() === "postgresql") {
    const name = `${TEST_DATABASE_PREFIX}${randomBytes(6).toString("hex")}`;
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await migrate(url.toString());
    return {
      url: url.toString(),
      async drop() {
        const client = new Client({ connectionString: serverUrl });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const folder = mkdtempSync(join(tmpdir(), "calendar-test-"));
  const url = `file:${join(folder, "calendar.db")}`;
  await migrate(url);
  return {
    url,
    async drop() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
