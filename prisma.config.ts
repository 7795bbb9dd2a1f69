// Prisma CLI configuration. DB_PROVIDER picks the schema folder and its migrations
// (sqlite by default, or postgresql); DATABASE_URL is only needed by commands that
// connect: the migrations check (scripts/check-migrations.sh) creates and drops a shadow
// database on that server.
import { defineConfig } from "prisma/config";
import { pgCliAdapter, sqliteCliAdapter } from "./prisma/cli-adapters";

const provider = process.env.DB_PROVIDER === "postgresql" ? "postgresql" : "sqlite";
// SQLite needs no file for the CLI's diffs: its shadow database is in memory too.
const defaultUrl = provider === "postgresql" ? "postgresql://postgres@127.0.0.1:5432/postgres" : "file::memory:";
const url = process.env.DATABASE_URL ?? defaultUrl;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: `prisma/${provider}`,
  migrations: { path: `prisma/${provider}/migrations` },
  adapter: async () => (provider === "postgresql" ? pgCliAdapter(url) : sqliteCliAdapter(url)),
});
