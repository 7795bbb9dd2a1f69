// An override of a series' first occurrence (issue 47): the series from its next occurrence, as
// the rule, its COUNT, UNTIL, extra and excluded dates give it. Through the import, see
// imports.test.ts; here the cases a feed may combine.
import { withFirstOccurrencesSplit } from "../src/resources/imports/first-occurrences";
import type { FeedEvent } from "../src/resources/imports/feed-event";

const event = (fields: Partial<FeedEvent>): FeedEvent => ({
  uid: "series@example.org",
  recurrenceId: null,
  timezone: "Europe/Lisbon",
  allDay: false,
  startLocal: "2027-01-05 19:00:00",
  endLocal: "2027-01-05 21:00:00",
  recurrence: null,
  title: "Series",
  description: null,
  url: null,
  image: null,
  location: null,
  geo: null,
  organizer: null,
  categories: [],
  cancelled: false,
  ...fields,
});

const firstEdited = (recurrence: FeedEvent["recurrence"], series: Partial<FeedEvent> = {}) =>
  withFirstOccurrencesSplit([
    event({ recurrence, ...series }),
    event({
      recurrenceId: series.startLocal ?? "2027-01-05 19:00:00",
      startLocal: "2027-01-05 20:00:00",
      title: "Edited",
    }),
  ]);

const seriesOf = (events: FeedEvent[]) => events.find((item) => item.recurrence !== null);

describe("a series whose first occurrence is overridden", () => {
  it("starts at the rule's next date, COUNT less the dates passed, the edited first an event of its own", () => {
    const events = firstEdited({ rrule: "FREQ=WEEKLY;COUNT=4", rdate: [], exdate: ["2027-01-12 19:00:00"] });
    // The 12th is excluded: the series starts on the 19th, two of four passed (the 5th and the 12th).
    expect(seriesOf(events)).toMatchObject({
      startLocal: "2027-01-19 19:00:00",
      endLocal: "2027-01-19 21:00:00",
      // Its weekday, which came from its start, written out.
      recurrence: { rrule: "FREQ=WEEKLY;COUNT=2;BYDAY=TU", exdate: [] },
    });
    expect(events.find((item) => item.firstOfSeries)).toMatchObject({
      title: "Edited",
      recurrenceId: "2027-01-05 19:00:00",
      startLocal: "2027-01-05 20:00:00",
    });
  });

  it("starts at an extra date before the rule's next, keeping COUNT and UNTIL", () => {
    const until = firstEdited({
      rrule: "FREQ=MONTHLY;UNTIL=20270601T000000Z",
      rdate: ["2027-01-20 19:00:00", "2027-03-20 19:00:00"],
      exdate: [],
    });
    expect(seriesOf(until)).toMatchObject({
      startLocal: "2027-01-20 19:00:00",
      recurrence: { rrule: "FREQ=MONTHLY;UNTIL=20270601T000000Z;BYMONTHDAY=5", rdate: ["2027-03-20 19:00:00"] },
    });
    const counted = firstEdited({ rrule: "FREQ=DAILY;COUNT=3", rdate: ["2027-01-05 22:00:00"], exdate: [] });
    expect(seriesOf(counted)).toMatchObject({
      startLocal: "2027-01-05 22:00:00",
      recurrence: { rrule: "FREQ=DAILY;COUNT=3" },
    });
  });

  it("is its overrides alone when the rule gives no other date, and is left whole when its rule cannot be walked", () => {
    const alone = firstEdited({ rrule: "FREQ=WEEKLY;UNTIL=20270106T000000Z", rdate: [], exdate: [] });
    expect(alone).toEqual([expect.objectContaining({ title: "Edited", firstOfSeries: true })]);
    const unwalkable = firstEdited({ rrule: "FREQ=WEEKLY;BYWHATEVER=1", rdate: [], exdate: [] });
    expect(unwalkable.map((item) => [item.title, item.firstOfSeries])).toEqual([
      ["Series", undefined],
      ["Edited", undefined],
    ]);
  });

  it("leaves series whose first occurrence is not overridden as they are", () => {
    const events = [
      event({ recurrence: { rrule: "FREQ=WEEKLY", rdate: [], exdate: [] } }),
      event({ recurrenceId: "2027-01-12 19:00:00", startLocal: "2027-01-12 20:00:00" }),
    ];
    expect(withFirstOccurrencesSplit(events)).toEqual(events);
  });
});
