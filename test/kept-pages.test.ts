// An anonymous reader's page is found again by the request as it came, within the second and
// while the data is as it was (src/http/listing.ts, PageKeysByRequest), without its filters being
// read again: what a later request gets is what reading them again would give. And a kept page is
// sent with the headers it was first sent with, the REST root's link among them.
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const base = "/calendar/events/v1";
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const write = (method: string, path: string, body: unknown) =>
  server.raw(method, `${base}${path}`, { body, headers: ADMIN_HEADERS });
const read = (path: string) => server.raw("GET", `${base}${path}`);
const titles = (body: { events: Array<{ title: string }> }) => body.events.map((event) => event.title);

it("sends a kept page with the REST root's link beside its page links", async () => {
  for (const title of ["Kept one", "Kept two"])
    await write("POST", "/events", { title, start_date: "2027-03-05 10:00", end_date: "2027-03-05 11:00" });
  const first = await read("/events?per_page=1");
  const again = await read("/events?per_page=1");
  for (const answer of [first, again]) {
    expect(answer.headers.get("Link")).toContain('rel="https://api.w.org/"');
    expect(answer.headers.get("Link")).toContain('rel="next"');
  }
  expect(again.text).toBe(first.text);
});

it("reads a request's filters again once the data changed, within the same second", async () => {
  // One second throughout: the process's clock stands still (timers run as ever).
  jest.useFakeTimers({
    now: Date.now(),
    doNotFake: [
      "nextTick",
      "setImmediate",
      "clearImmediate",
      "setInterval",
      "clearInterval",
      "setTimeout",
      "clearTimeout",
      "queueMicrotask",
      "hrtime",
      "performance",
    ],
  });
  const jazz = (await write("POST", "/categories", { name: "Jazz" })).body as { id: number };
  const blues = (await write("POST", "/categories", { name: "Blues" })).body as { id: number };
  await write("POST", "/events", {
    title: "Jazz night",
    start_date: "2027-03-06 20:00",
    end_date: "2027-03-06 22:00",
    categories: [jazz.id],
  });
  await write("POST", "/events", {
    title: "Blues night",
    start_date: "2027-03-07 20:00",
    end_date: "2027-03-07 22:00",
    categories: [blues.id],
  });
  const byName = "/events?categories=jazz";
  expect(titles((await read(byName)).body)).toEqual(["Jazz night"]);
  expect(titles((await read(byName)).body)).toEqual(["Jazz night"]);
  // The slug `jazz` now names the other category; a page for that category's id is kept first.
  await write("PATCH", `/categories/${jazz.id}`, { slug: "jazz-old" });
  await write("PATCH", `/categories/${blues.id}`, { slug: "jazz" });
  expect(titles((await read(`/events?categories=${jazz.id}`)).body)).toEqual(["Jazz night"]);
  expect(titles((await read(byName)).body)).toEqual(["Blues night"]);
  jest.useRealTimers();
});

it("reads a relative date again in the next second", async () => {
  const path = "/events?strict_dates=true&start_date=now&end_date=%2B1%20year";
  const first = await read(path);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const later = await read(path);
  // `now` is read to the second, and repeated in the links as read.
  expect(later.body.rest_url).not.toBe(first.body.rest_url);
});
