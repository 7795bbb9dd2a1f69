// Prisma CLI configuration. DB_PROVIDER picks the schema folder and its migrations
// (sqlite by default, or postgresql); DATABASE_URL is only needed by commands that
// connect (the migrations check uses a scratch database, see scripts/check-migrations.sh).
import { defineConfig } from "prisma/config";
import { pgCliAdapter, sqliteCliAdapter } from "./prisma/cli-adapters";

const provider = process.env.DB_PROVIDER === "postgresql" ? "postgresql" : "sqlite";
const defaultUrl = provider === "postgresql" ? "postgresql://postgres@127.0.0.1:5432/postgres" : "file:./data/prisma-cli.db";
const url = process.env.DATABASE_URL ?? defaultUrl;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: `prisma/${provider}`,
  migrations: { path: `prisma/${provider}/migrations` },
  adapter: async () => (provider === "postgresql" ? pgCliAdapter(url) : sqliteCliAdapter(url)),
});
