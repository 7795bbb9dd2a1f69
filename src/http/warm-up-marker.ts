import { randomBytes } from "node:crypto";

/**
 * The mark of this process's own warm-up requests (src/http/warm-up.ts): a header carrying a
 * secret of the process, by which the request log, the metrics and tracing leave them out. Apart
 * from warm-up.ts so that tracing, loaded before anything else, can read it without loading http.
 */
export const WARM_UP_HEADER = "x-calendar-warm-up";
export const WARM_UP_SECRET = randomBytes(16).toString("hex");

export function isWarmUpMessage(headers: Record<string, string | string[] | undefined>): boolean {
  return headers[WARM_UP_HEADER] === WARM_UP_SECRET;
}
