// Driver adapters for the Prisma CLI only (the running service builds its own in src/db/).
// They work around bugs of the 6.19 adapters that only the CLI's schema engine hits;
// see ../shared/notes/toolchain.md §1c for how each was found.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

type AnyAdapter = any; // the adapters' internal connection objects are not exported as types

// The SQLite shadow database applies each migration file through executeRaw, and
// better-sqlite3 prepares one statement at a time: run argument-less SQL as a script.
export function sqliteCliAdapter(url: string): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3({ url });
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  (factory as AnyAdapter).connectToShadowDb = async () => {
    const adapter: AnyAdapter = await connectToShadowDb();
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = async (query: AnyAdapter) =>
      query.args.length === 0 ? (await adapter.executeScript(query.sql), 0) : executeRaw(query);
    return adapter;
  };
  return factory;
}

// adapter-pg cannot decode pg_catalog's `name` and `"char"` columns (prisma/orm#27403), which the
// schema engine reads while introspecting: report them as text.
const CATALOG_TYPE_REMAP: Record<number, number> = { 18: 25, 19: 25, 1002: 1009, 1003: 1009 };
let performIoPatched = false;

function patchCatalogTypes(adapter: AnyAdapter): void {
  if (performIoPatched) return;
  let proto = Object.getPrototypeOf(adapter);
  while (proto && !Object.prototype.hasOwnProperty.call(proto, "performIO")) proto = Object.getPrototypeOf(proto);
  if (!proto) throw new Error("@prisma/adapter-pg internals changed: performIO not found");
  const performIO = proto.performIO;
  proto.performIO = async function (this: unknown, query: unknown) {
    const result = await performIO.call(this, query);
    for (const field of result?.fields ?? []) {
      if (CATALOG_TYPE_REMAP[field.dataTypeID]) field.dataTypeID = CATALOG_TYPE_REMAP[field.dataTypeID];
    }
    return result;
  };
  performIoPatched = true;
}

function pgConfig(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    allowExitOnIdle: true,
  };
}

// The stock shadow database of adapter-pg is the main database when a connection string is
// used, and it is dropped while still connected: create and drop a real one instead.
export function pgCliAdapter(url: string): PrismaPg {
  const config = pgConfig(url);
  const factory: AnyAdapter = new PrismaPg(config);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    patchCatalogTypes(adapter);
    return adapter;
  };
  factory.connectToShadowDb = async () => {
    const admin = await connect();
    patchCatalogTypes(admin);
    const name = `prisma_shadow_${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
    await admin.executeScript(`CREATE DATABASE "${name}"`);
    const shadow: AnyAdapter = await new PrismaPg({ ...config, database: name }).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await admin.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.dispose();
    };
    return shadow;
  };
  return factory as PrismaPg;
}
