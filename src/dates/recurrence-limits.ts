/**
 * How many extra and excluded dates a series may list, in every form a rule reaches the service:
 * the canonical `{rrule, rdate, exdate}` (the spec's maxItems), RFC 5545 lines, the recurrence
 * add-on's rules and exclusions, and a feed's VEVENT. Counted before any value is read as a date
 * (each costs a time-zone conversion), so that a list past the cap is refused at once.
 */
export const MAX_RDATES = 366;
export const MAX_EXDATES = 730;

/**
 * The most steps a walk may take. A step is one read of the rule's parts: rrule reads them for
 * every day it looks at (is it in BYMONTH, BYDAY...) and for every period it moves on by, so the
 * count is the walk's work, whatever the machine's speed or load. 2,000,000 steps are about
 * 110,000 days looked at by a daily rule with filters (three centuries), more for weekly, monthly
 * and yearly rules (a yearly rule from 1850 takes 460,000); a rule that gives dates rarely or
 * never from an early start (the 29th of February on a Monday, from the year 1) passes it and is
 * refused, on a quiet machine and a busy one alike.
 */
export const MAX_WALK_STEPS = 2_000_000;

/** The most dates (RDATE values) a feed's VTIMEZONE may list for its changes of offset. */
export const MAX_ZONE_DATES = 1_000;

/**
 * How many values an RFC 5545 content line lists (`EXDATE;TZID=X:a,b,c` lists 3): the commas after
 * the colon that ends its name and parameters (one inside a quoted parameter does not end them).
 * Counted on the text, before any value is read as a date.
 */
export function contentLineValueCount(line: string): number {
  let quoted = false;
  let at = 0;
  for (; at < line.length; at++) {
    const char = line[at];
    if (char === '"') quoted = !quoted;
    else if (char === ":" && !quoted) break;
  }
  let count = 1;
  for (let comma = line.indexOf(",", at); comma >= 0; comma = line.indexOf(",", comma + 1)) count += 1;
  return count;
}
