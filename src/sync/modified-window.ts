import { parseDateInput } from "../dates/date-input";
import type { ParamProblems } from "../http/errors";

/** Items last written after `after` and before `before` (instants; either may be absent). */
export interface ModifiedWindow {
  after?: Date;
  before?: Date;
}

/**
 * `modified_after` and `modified_before`, in any date form the other date parameters take, read
 * in the site time zone when they give no offset; compared exactly (not by whole days), as
 * WordPress compares them. A date that cannot be read is reported on its parameter.
 */
export function modifiedWindowOf(
  query: { modified_after?: string; modified_before?: string },
  siteTimezone: string,
  now: Date,
  problems: ParamProblems,
): ModifiedWindow {
  const window: ModifiedWindow = {};
  for (const [param, bound] of [
    ["modified_after", "after"],
    ["modified_before", "before"],
  ] as const) {
    const value = query[param];
    if (value === undefined) continue;
    const parsed = parseDateInput(value, siteTimezone, now);
    if (parsed) window[bound] = parsed.toJSDate();
    else problems.add(param, "rest_invalid_date");
  }
  return window;
}
