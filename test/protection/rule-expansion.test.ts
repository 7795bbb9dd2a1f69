// Rule expansion in a worker thread under a deadline (src/resources/events/rule-expansion.ts): the
// deadline is the walk's, counted from when the thread takes the job, not from when it was posted,
// so that a thread starting on a busy machine (loading rrule) does not refuse a rule of three dates.
import { expandRule, ExpansionTooCostly } from "../../src/resources/events/rule-expansion";

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

  it("still stops a walk that outlasts the deadline", async () => {
    const never = {
      rule: "FREQ=DAILY;INTERVAL=7;BYDAY=MO",
      dtstart: new Date(Date.UTC(2026, 11, 1, 20)),
      until: new Date(Date.UTC(9999, 0, 1)),
      limit: 10,
    };
    const refused = expandRule(never);
    await expect(refused).rejects.toBeInstanceOf(ExpansionTooCostly);
    await expect(refused).rejects.toThrow("The rule's expansion took longer than 250 ms.");
    // And the next rule, on a thread started afresh, is expanded.
    await expect(expandRule(weekly)).resolves.toHaveLength(3);
  });
});
