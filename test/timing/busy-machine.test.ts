// A bound counts work, not the clock (issue 57): with both cores of the machine kept busy by two
// spinning threads, every rule an honest writer sends is still taken, and the rules that walk too
// far are refused for their count of steps, as on a quiet machine. Before, the walk's bound was
// 250 ms of the clock, and a busy machine refused `FREQ=WEEKLY;COUNT=6`.
import { Worker } from "node:worker_threads";
import { createUser } from "../../src/resources/users/user-admin";
import { startTestServer, type TestServer } from "../support/test-server";

jest.setTimeout(180_000);

const root = "/calendar/events/v1";
let server: TestServer;
let writer: Record<string, string>;
let spinners: Worker[] = [];

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: "0" });
  const user = await createUser(server.db, { login: "busy-writer", role: "contributor" });
  writer = { Authorization: `Bearer ${user.api_key}` };
  spinners = [0, 1].map(() => new Worker("for (;;) {}", { eval: true }));
});
afterAll(async () => {
  await Promise.all(spinners.map((spinner) => spinner.terminate()));
  await server?.close();
});

const series = (title: string, start: string, rrule: string) => ({
  title,
  start_date: `${start} 19:00`,
  end_date: `${start} 21:00`,
  recurrence: { rrule },
});

const HONEST = [
  series("Six weeks of classes", "2027-01-05", "FREQ=WEEKLY;COUNT=6"),
  series("Daily standup", "2026-12-01", "FREQ=DAILY"),
  series("First Thursday talks", "2026-12-03", "FREQ=MONTHLY;BYDAY=1TH;COUNT=24"),
  series("Weekdays, twice a week", "2027-02-01", "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20280201T000000Z"),
  series("Founders' day since 1850", "1850-06-01", "FREQ=YEARLY"),
  series("Leap-day Mondays since 1800", "1800-01-01", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO"),
];

const COSTLY = [
  series("Leap-day Mondays since the year 1", "0001-01-01", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO"),
  series("Never", "2026-12-01", "FREQ=DAILY;INTERVAL=7;BYDAY=MO"),
];

describe("with every core busy", () => {
  it("takes every rule an honest writer sends, several at once", async () => {
    const answers = await Promise.all(
      HONEST.map((body) => server.raw("POST", `${root}/events`, { body, headers: writer })),
    );
    expect(answers.map((answer) => [answer.status, answer.body.data?.details?.recurrence?.code ?? null])).toEqual(
      HONEST.map(() => [201, null]),
    );
  });

  it("refuses the rules that walk too far for their steps, as on a quiet machine", async () => {
    const answers = await Promise.all(
      [...COSTLY, ...HONEST.slice(0, 2)].map((body) =>
        server.raw("POST", `${root}/events`, { body: { ...body, title: `${body.title} again` }, headers: writer }),
      ),
    );
    expect(answers.map((answer) => [answer.status, answer.body.data?.details?.recurrence?.code ?? null])).toEqual([
      [400, "rest_recurrence_too_costly"],
      [400, "rest_recurrence_too_costly"],
      [201, null],
      [201, null],
    ]);
  });
});
