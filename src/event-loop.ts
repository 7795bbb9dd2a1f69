/**
 * Lets the event loop run what waits (other requests' I/O, timers) before going on: long work
 * done in slices calls it between them, so that no request holds the process.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
