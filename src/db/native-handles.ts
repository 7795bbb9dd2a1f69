import BetterSqlite3 from "better-sqlite3";

/**
 * On Node 24 (24.21), a better-sqlite3 object (a database, a statement, an iterator) that the
 * garbage collector frees can abort the process: Node's `ObjectWrap` destructor, compiled into
 * the addon from Node 24's headers, removes an environment cleanup hook, and looks the environment
 * up from whatever context is current then; during a collection there may be none, or a `vm`
 * context (Jest's) that has no environment: `Assertion failed: (env) != nullptr` in
 * RemoveEnvironmentCleanupHook, from Database::~Database or Statement::~Statement. Until Node or
 * better-sqlite3 changes, every such object is kept for the life of the process on Node 24 and
 * later: none is ever collected. The cost is the statements the caches evict (a few kilobytes each,
 * and as many as the distinct statements the service runs); the databases live as long anyway.
 */
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

type Methods = Record<string | symbol, unknown>;
type Method = ((...args: unknown[]) => unknown) & { keeping?: boolean };

const kept = new Set<unknown>();

/** Wraps `holder[name]` so that what it makes, and `this`, are kept (once per holder). */
function keepWhatItMakes(holder: Methods, name: string): void {
  const original = holder[name] as Method | undefined;
  if (typeof original !== "function" || original.keeping) return;
  holder[name] = Object.assign(
    function (this: unknown, ...args: unknown[]) {
      kept.add(this);
      const made = original.apply(this, args);
      if (made !== null && typeof made === "object") {
        kept.add(made);
        // A statement's iterators are native objects too.
        keepWhatItMakes(Object.getPrototypeOf(made) as Methods, "iterate");
      }
      return made;
    },
    { keeping: true },
  );
}

/**
 * Keeps every better-sqlite3 object of the process alive, on Node 24 and later. The JavaScript
 * Database wraps a native one (under a symbol) whose `prepare` makes every statement, also those
 * `pragma` makes for itself; its class is reached from the first database used.
 */
export function keepNativeHandles(): void {
  if (NODE_MAJOR < 24) return;
  const database = BetterSqlite3.prototype as unknown as Methods;
  for (const name of [
    "prepare",
    "exec",
    "pragma",
    "transaction",
    "function",
    "aggregate",
    "table",
    "backup",
    "serialize",
  ]) {
    const original = database[name] as Method | undefined;
    if (typeof original !== "function" || original.keeping) continue;
    database[name] = Object.assign(
      function (this: Methods, ...args: unknown[]) {
        kept.add(this);
        for (const symbol of Object.getOwnPropertySymbols(this)) {
          const native = this[symbol];
          if (native !== null && typeof native === "object" && typeof (native as Methods).prepare === "function") {
            kept.add(native);
            keepWhatItMakes(Object.getPrototypeOf(native) as Methods, "prepare");
          }
        }
        return original.apply(this, args);
      },
      { keeping: true },
    );
  }
}
