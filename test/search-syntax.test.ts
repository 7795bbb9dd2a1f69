// WordPress's search syntax, as the original's `search` reads it (WP_Query::parse_search): `-word`
// leaves out what holds the word, `"a phrase"` is one term, single letters and English stopwords are
// not looked for, a search of ten terms or more is looked for whole. On events (the index's words,
// then the text itself for phrases and terms left out) and on venues and organizers alike; the
// public search's fast path and the general one answer the same.
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
const base = "/calendar/events/v1";

const EVENTS = [
  { title: "Jazz night", description: "Live music on the river" },
  { title: "Night of jazz", description: "Quartet" },
  { title: "Museum night", description: "Open until midnight" },
  { title: "Night market", description: "Street food and music" },
  { title: "Morning jazz", description: "Coffee and a trio" },
  { title: "Greek: alpha beta gamma delta epsilon zeta eta theta iota kappa", description: "" },
];

beforeAll(async () => {
  server = await startTestServer();
  for (const [i, event] of EVENTS.entries()) {
    const created = await server.raw("POST", `${base}/events`, {
      body: { ...event, start_date: `2027-05-0${i + 1} 20:00`, end_date: `2027-05-0${i + 1} 22:00` },
      headers: ADMIN_HEADERS,
    });
    expect(created.status).toBe(201);
  }
  await server.raw("POST", `${base}/events`, {
    body: {
      title: "Secret jazz night",
      password: "open",
      start_date: "2027-05-09 20:00",
      end_date: "2027-05-09 22:00",
    },
    headers: ADMIN_HEADERS,
  });
  for (const venue of ["Jazz Hall", "Music Hall", "Old Jazz Club"])
    await server.raw("POST", `${base}/venues`, { body: { venue }, headers: ADMIN_HEADERS });
});
afterAll(() => server.close());

async function titles(search: string, extra = "", headers: Record<string, string> = {}): Promise<string[]> {
  const query = `search=${encodeURIComponent(search)}&start_date=2027-01-01&end_date=2027-12-31${extra}`;
  const response = await server.raw("GET", `${base}/events?${query}`, { headers });
  expect([search, response.status]).toEqual([search, 200]);
  expect(response.body.total).toBe(response.body.events.length);
  return response.body.events.map((event: { title: string }) => event.title);
}

describe("event search", () => {
  it.each([
    ["night", ["Jazz night", "Night of jazz", "Museum night", "Night market"]],
    ["night -music", ["Night of jazz", "Museum night"]],
    ["night -Music -museum", ["Night of jazz"]],
    ["-night -alpha", ["Morning jazz"]],
    ['"jazz night"', ["Jazz night"]],
    ["jazz night", ["Jazz night", "Night of jazz"]],
    ['"-jazz night" night', ["Night of jazz", "Museum night", "Night market"]],
    ["Night at the Museum", ["Museum night"]],
    ["jazz, trio+coffee", ["Morning jazz"]],
    ['"night of jazz" -quartet', []],
  ])("%s finds %j", async (search, expected) => {
    expect(await titles(search)).toEqual(expected);
    // The general way (a list the index cannot answer alone) finds the same.
    expect(await titles(search, "&featured=false")).toEqual(expected);
  });

  it("keeps password-protected events out of a search that only leaves out, unless opened", async () => {
    expect(await titles("-museum", "&per_page=50")).not.toContain("Secret jazz night");
    expect(await titles("-museum", "&per_page=50", ADMIN_HEADERS)).toContain("Secret jazz night");
  });

  it("looks for a search of ten terms or more whole", async () => {
    // Single letters are no terms: two terms, looked for each.
    expect(await titles("jazz night a b c d e f g h i j")).toEqual(["Jazz night", "Night of jazz"]);
    // Ten words, each in the title, but not as written: nothing; as written: found.
    expect(await titles("kappa iota theta eta zeta epsilon delta gamma beta alpha")).toEqual([]);
    expect(await titles("alpha beta gamma delta epsilon zeta eta theta iota kappa")).toEqual([EVENTS[5].title]);
  });
});

describe("venue search", () => {
  it.each([
    ["jazz", ["Jazz Hall", "Old Jazz Club"]],
    ["hall -music", ["Jazz Hall"]],
    ['"jazz club"', ["Old Jazz Club"]],
    ["-jazz", ["Music Hall"]],
  ])("%s finds %j", async (search, expected) => {
    const response = await server.raw(
      "GET",
      `${base}/venues?search=${encodeURIComponent(search)}&order=asc&orderby=title`,
    );
    expect(response.body.venues.map((venue: { venue: string }) => venue.venue).sort()).toEqual(expected);
  });
});
