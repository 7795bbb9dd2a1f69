// Rule expansion in a worker thread under a deadline (src/resources/events/rule-expansion.ts): the
// deadline is the walk's, counted from when the thread takes the job, not from when it was posted,
// so that a thread starting on a busy machine (loading rrule) does not refuse a rule of three dates.
import { expandRule, ExpansionTooCostly } from "../src/resources/events/rule-expansion";

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
    await expect(expandRule(never)).rejects.toBeInstanceOf(ExpansionTooCostly);
    // And the next rule, on a thread started afresh, is expanded.
    await expect(expandRule(weekly)).resolves.toHaveLength(3);
  });
});
