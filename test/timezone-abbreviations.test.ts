// timezone_abbr is the time zone database's abbreviation, as the original's PHP gives it (JST for
// Tokyo, -03 for São Paulo, CET and CEST for Paris), not Intl's `GMT+9` (issue 59): on the item, the
// by-slug item, the lists that show it, a series' occurrences, and for rows an earlier release wrote.
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const base = "/calendar/events/v1";
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Event = { id: number; slug: string; timezone: string; timezone_abbr: string; start_date: string };
const send = (method: string, path: string, body?: unknown) =>
  server.raw(method, `${base}${path}`, { body, headers: ADMIN_HEADERS });

// What PHP 8.2 answers with `date_create($start, new DateTimeZone($zone))->format('T')` (tz data 2025b).
const PHP_ANSWERS: Array<[zone: string, start: string, abbreviation: string]> = [
  ["Asia/Tokyo", "2027-01-15 19:00:00", "JST"],
  ["America/Sao_Paulo", "2027-01-15 19:00:00", "-03"],
  ["Europe/Paris", "2027-01-15 19:00:00", "CET"],
  ["Europe/Paris", "2027-07-15 19:00:00", "CEST"],
  ["America/New_York", "2027-07-15 19:00:00", "EDT"],
  ["Australia/Sydney", "2027-01-15 19:00:00", "AEDT"],
  ["Asia/Kathmandu", "2027-01-15 19:00:00", "+0545"],
  ["Asia/Kolkata", "2027-01-15 19:00:00", "IST"],
  ["Europe/Lisbon", "2027-01-15 19:00:00", "WET"],
  ["Pacific/Marquesas", "2027-01-15 19:00:00", "-0930"],
  ["UTC", "2027-01-15 19:00:00", "UTC"],
  ["Etc/GMT-2", "2027-01-15 19:00:00", "+02"],
  // Past the data's last listed change (2037), the zone's rules still name the season.
  ["Europe/Paris", "2045-07-15 19:00:00", "CEST"],
  ["Europe/Paris", "2045-01-15 19:00:00", "CET"],
];

describe("timezone_abbr", () => {
  it.each(PHP_ANSWERS)(
    "is the tz database's for %s at %s: %s, on the item, by slug and in the list",
    async (zone, start, abbreviation) => {
      const created = await send("POST", "/events", {
        title: `Abbreviation ${zone} ${start}`,
        start_date: start,
        end_date: start.replace(/ 19:/, " 21:"),
        timezone: zone,
      });
      expect(created.status).toBe(201);
      const event = created.body as Event;
      expect(event.timezone_abbr).toBe(abbreviation);
      expect((await send("GET", `/events/${event.id}`)).body.timezone_abbr).toBe(abbreviation);
      expect((await send("GET", `/events/by-slug/${event.slug}`)).body.timezone_abbr).toBe(abbreviation);
      const year = start.slice(0, 4);
      const list = await send("GET", `/events?start_date=${year}-01-01&end_date=${year}-12-31&per_page=50`);
      const listed = (list.body.events as Event[]).find((item) => item.id === event.id);
      expect(listed?.timezone_abbr).toBe(abbreviation);
    },
  );

  it("names each occurrence of a series by its own season (CET in winter, CEST in summer)", async () => {
    const created = await send("POST", "/events", {
      title: "Monthly in Paris",
      start_date: "2027-01-10 19:00:00",
      end_date: "2027-01-10 21:00:00",
      timezone: "Europe/Paris",
      recurrence: { rrule: "FREQ=MONTHLY;COUNT=8" },
    });
    expect(created.status).toBe(201);
    const list = await send("GET", `/events?start_date=2027-01-01&end_date=2027-08-31&per_page=50&search=Monthly`);
    const seasons = (list.body.events as Event[]).map((item) => [item.start_date.slice(0, 7), item.timezone_abbr]);
    expect(seasons).toEqual([
      ["2027-01", "CET"],
      ["2027-02", "CET"],
      ["2027-03", "CET"],
      ["2027-04", "CEST"],
      ["2027-05", "CEST"],
      ["2027-06", "CEST"],
      ["2027-07", "CEST"],
      ["2027-08", "CEST"],
    ]);
  });

  it("is read from the data, not from what an earlier release stored (GMT+9)", async () => {
    const created = await send("POST", "/events", {
      title: "Stored by an earlier release",
      start_date: "2027-03-01 19:00:00",
      end_date: "2027-03-01 21:00:00",
      timezone: "Asia/Tokyo",
    });
    const id = (created.body as Event).id;
    await server.db.write.event.update({ where: { id }, data: { timezoneAbbr: "GMT+9" } });
    expect((await send("GET", `/events/${id}`)).body.timezone_abbr).toBe("JST");
    expect((await server.db.write.event.findUnique({ where: { id } }))?.timezoneAbbr).toBe("GMT+9");
  });
});
