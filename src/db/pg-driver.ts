/**
 * PostgreSQL's driver and Prisma's adapter for it, loaded when first asked for: a service on
 * SQLite loads neither (70–90 ms of its start-up).
 */
let pg: typeof import("pg") | undefined;
let adapter: typeof import("@prisma/adapter-pg") | undefined;

export const pgDriver = (): typeof import("pg") => (pg ??= require("pg") as typeof import("pg"));

export const pgAdapter = (): typeof import("@prisma/adapter-pg") =>
  (adapter ??= require("@prisma/adapter-pg") as typeof import("@prisma/adapter-pg"));
