import type { Logger } from "./logger";
import { RecentValues } from "../text/text-memo";

/**
 * Stored values a representation cannot show: a row written before a door checked what it now
 * checks (an image URL no parser reads, stored by an earlier release or restored from a backup).
 * The item is shown without the field rather than answered with a 500 for every reader; the
 * operator learns of it once per item and field (per process), not once per read.
 */

let logger: Logger | null = null;
const reported = new RecentValues<true>(1_000);

/** Where the reports go: the service's log (app.ts sets it). */
export function reportStoredValuesTo(target: Logger): void {
  logger = target;
}

/** Reports a stored value that could not be shown; it is left out of the representation. */
export function unreadableStoredValue(item: string, field: string, value: unknown): void {
  const key = `${item} ${field}`;
  let first = false;
  reported.valueOf(key, () => {
    first = true;
    return true;
  });
  if (first)
    logger?.warn(
      { item, field, value: String(value).slice(0, 200) },
      "a stored value cannot be shown: the field is left out of the item's representation",
    );
}
