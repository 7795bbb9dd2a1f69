import { RRule } from "rrule";

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

/** The dates (ms, floating) the rule gives; runs in the work thread (src/work/). */
export function walkRule({ rule, dtstart, until, limit }: RuleWalk): number[] {
  const dates: number[] = [];
  const options = { ...RRule.parseString(rule), dtstart: new Date(dtstart), until: new Date(until) };
  new RRule(options).all((date, index) => {
    if (index >= limit) return false;
    dates.push(date.getTime());
    return true;
  });
  return dates;
}
