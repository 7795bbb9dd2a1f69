import { RRule } from "rrule";
import { MAX_WALK_STEPS } from "../../dates/recurrence-limits";

/** A rule's walk, as rule-expansion.ts asks the work thread for it. */
export interface RuleWalk {
  /** RRULE parts rrule reads (without UNTIL or COUNT: the walk is bounded by `until` and `limit`). */
  rule: string;
  /** The series' start and the walk's end, as floating wall clocks (UTC fields are the wall clock's), in ms. */
  dtstart: number;
  until: number;
  /** Most dates to give; the walk stops at the last. */
  limit: number;
}

/** The walk passed MAX_WALK_STEPS. */
export class WalkTooLong extends Error {
  override name = "WalkTooLong";
}

/** The dates (ms, floating) the rule gives; runs in the work thread (src/work/). */
export function walkRule({ rule, dtstart, until, limit }: RuleWalk): number[] {
  const dates: number[] = [];
  const walk = new RRule({ ...RRule.parseString(rule), dtstart: new Date(dtstart), until: new Date(until) });
  let steps = 0;
  // rrule keeps its loop to itself; the parts it reads at each step are the one place to count it.
  const counted = new Proxy(walk.options, {
    get(options, part) {
      if (++steps > MAX_WALK_STEPS) throw new WalkTooLong(`the walk took more than ${MAX_WALK_STEPS} steps`);
      return options[part as keyof typeof options];
    },
  });
  Object.defineProperty(walk, "options", { value: counted });
  walk.all((date, index) => {
    if (index >= limit) return false;
    dates.push(date.getTime());
    return true;
  });
  return dates;
}
