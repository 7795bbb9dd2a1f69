import { startTracing } from "./tracing";

/**
 * The process's tracing, started as this module is loaded: server.ts imports it before anything
 * else, so that `http`, `express` and `pg` are instrumented when they are first required.
 */
export const tracing = startTracing();
