// Rule expansion in a worker thread (src/resources/events/rule-expansion.ts), bounded by the steps
// of its walk (MAX_WALK_STEPS), not by the clock: a busy process refuses no rule of three dates, and
// a walk that gives dates too rarely is refused by its count, however fast the machine.
import { MAX_WALK_STEPS } from "../../src/dates/recurrence-limits";
import { expandRule, ExpansionTooCostly } from "../../src/resources/events/rule-expansion";
import { walkRule, WalkTooLong } from "../../src/resources/events/rule-walk";

/** Holds this thread's event loop for `ms`, as a busy process would while a job is posted. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the event loop is held: the thread's messages and the timers wait
  }
}

const weekly = {
  rule: "FREQ=WEEKLY",
  dtstart: new Date(Date.UTC(2026, 11, 1, 20)),
  until: new Date(Date.UTC(2027, 11, 1)),
  limit: 3,
};

describe("rule expansion", () => {
  it("gives the rule's dates from the start, at most the limit, none past the end", async () => {
    const dates = await expandRule({ ...weekly, limit: 100, until: new Date(Date.UTC(2026, 11, 22, 20)) });
    expect(dates.map((date) => date.toISOString())).toEqual([
      "2026-12-01T20:00:00.000Z",
      "2026-12-08T20:00:00.000Z",
      "2026-12-15T20:00:00.000Z",
      "2026-12-22T20:00:00.000Z",
    ]);
    const limited = await expandRule({ ...weekly, rule: "FREQ=DAILY;BYDAY=MO,FR", limit: 2 });
    expect(limited.map((date) => date.toISOString())).toEqual(["2026-12-04T20:00:00.000Z", "2026-12-07T20:00:00.000Z"]);
    await expect(expandRule({ ...weekly, limit: 0 })).resolves.toEqual([]);
  });

  it("expands rules sent at once one after another, each with its own dates", async () => {
    const rules = ["FREQ=WEEKLY", "FREQ=MONTHLY", "FREQ=YEARLY", "FREQ=DAILY;INTERVAL=2"];
    const expanded = await Promise.all(
      rules.map((rule) => expandRule({ ...weekly, rule, limit: 2, until: new Date(Date.UTC(2030, 0, 1)) })),
    );
    expect(expanded.map((dates) => dates[1]!.toISOString().slice(0, 10))).toEqual([
      "2026-12-08",
      "2027-01-01",
      "2027-12-01",
      "2026-12-03",
    ]);
  });

  it("refuses a rule rrule cannot read with rrule's words, and goes on with the next", async () => {
    const refused = expandRule({ ...weekly, rule: "FREQ=FORTNIGHTLY" });
    const next = expandRule(weekly);
    await expect(refused).rejects.toThrow(/^Invalid frequency/);
    await expect(refused).rejects.not.toBeInstanceOf(ExpansionTooCostly);
    await expect(next).resolves.toHaveLength(3);
  });

  it("gives a quick rule's dates even when the process is busy past the deadline just after posting it", async () => {
    for (let round = 0; round < 2; round += 1) {
      const dates = expandRule(weekly);
      busy(400);
      await expect(dates).resolves.toHaveLength(3);
    }
  });

  it("stops a walk past its steps, whatever the time it took", async () => {
    const never = {
      rule: "FREQ=DAILY;INTERVAL=7;BYDAY=MO",
      dtstart: new Date(Date.UTC(2026, 11, 1, 20)),
      until: new Date(Date.UTC(9999, 0, 1)),
      limit: 10,
    };
    const refused = expandRule(never);
    await expect(refused).rejects.toBeInstanceOf(ExpansionTooCostly);
    await expect(refused).rejects.toThrow(`The rule's expansion takes more than ${MAX_WALK_STEPS} steps.`);
    await expect(expandRule(weekly)).resolves.toHaveLength(3);
  });

  it("counts steps: the same walk is refused, or given, whether it took long or not", () => {
    // In this thread (the walk itself): three centuries of a daily rule with filters pass, two thousand years do not.
    const feb29 = "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO";
    const from = (year: number) => {
      const start = new Date(Date.UTC(2000, 0, 1, 10));
      start.setUTCFullYear(year);
      return start.getTime();
    };
    const until = Date.UTC(2028, 11, 31);
    expect(walkRule({ rule: feb29, dtstart: from(1800), until, limit: 1000 }).length).toBeGreaterThan(5);
    expect(() => walkRule({ rule: feb29, dtstart: from(1), until, limit: 1000 })).toThrow(WalkTooLong);
    expect(walkRule({ rule: "FREQ=YEARLY", dtstart: from(1850), until, limit: 1000 })).toHaveLength(179);
  });
});
