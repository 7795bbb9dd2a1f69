// npm run seed:examples: makes, on a fresh instance, the items the API document's examples name,
// so that every operation's examples run as they are written (contract-testing tools send them:
// docs/development.md, "Contract-testing your integration"). Through the REST API, as an
// administrator: CALENDAR_URL (default http://localhost:8080) and CALENDAR_ADMIN_TOKEN.
//
// The examples name ids 3, 4, 5, 7, 8, 12, 24 (a tag), 31 and 32, the slugs `blue-note` (item 11, so
// that an example deleting by slug and one deleting by id each find theirs), `concerts`, `music`,
// `live-music` and `outdoors`, and event 12's password `letmein`. Ids are given in order from 1 on
// a fresh database, so the seed refuses an instance that holds anything already.

/** What the examples name, by kind: the id (in making order) and what it is made with. */
const CATEGORY_NAMES: Record<number, string> = { 3: "Concerts", 4: "Music", 5: "Live music", 6: "Outdoors" };
// Categories and tags share one sequence of ids: tags are 13 to 24 (the examples name tag 24), and
// the slugs the term lists' examples name are in both taxonomies.
const TAG_NAMES: Record<number, string> = { 13: "Outdoors", 14: "Concerts", 15: "Music" };
const ITEMS = 12;
const BY_SLUG = 11;
const EVENTS = 32;

interface Seeder {
  post(path: string, body: object): Promise<{ id: number; slug?: string }>;
  total(path: string): Promise<number>;
}

function seederOf(baseUrl: string, token: string): Seeder {
  const api = `${baseUrl.replace(/\/$/, "")}/calendar/events/v1`;
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  return {
    async post(path, body) {
      const response = await fetch(`${api}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      const answer = (await response.json()) as { id: number; slug?: string; message?: string };
      if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${answer.message ?? ""}`);
      return answer;
    },
    async total(path) {
      const response = await fetch(`${api}${path}`, { headers });
      if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
      return Number(response.headers.get("X-WP-Total") ?? "0");
    },
  };
}

/** Makes `count` items of a kind in order, checking each got the id the examples expect. */
async function makeInOrder(count: number, make: (id: number) => Promise<{ id: number }>, idsBefore = 0): Promise<void> {
  for (let id = idsBefore + 1; id <= idsBefore + count; id++) {
    const made = await make(id);
    if (made.id !== id) throw new Error(`expected id ${id}, got ${made.id}: seed a fresh database`);
  }
}

export async function seedExamples(baseUrl: string, token: string): Promise<void> {
  const seeder = seederOf(baseUrl, token);
  const held = await Promise.all(
    ["/events?starts_after=1970-01-01", "/venues", "/organizers"]
      .map((path) => `${path}${path.includes("?") ? "&" : "?"}status=publish,future,draft,pending,private,trash`)
      .map((path) => seeder.total(path)),
  );
  const terms = await Promise.all(["/categories", "/tags"].map((path) => seeder.total(`${path}?hide_empty=false`)));
  if ([...held, ...terms].some((total) => total > 0)) throw new Error("the instance holds items: seed a fresh one");

  await makeInOrder(ITEMS, (id) => seeder.post("/categories", { name: CATEGORY_NAMES[id] ?? `Category ${id}` }));
  await makeInOrder(ITEMS, (id) => seeder.post("/tags", { name: TAG_NAMES[id] ?? `Tag ${id}` }), ITEMS);
  await makeInOrder(ITEMS, (id) =>
    seeder.post("/venues", { venue: id === BY_SLUG ? "Blue Note" : `Venue ${id}`, city: "New York", country: "US" }),
  );
  await makeInOrder(ITEMS, (id) =>
    seeder.post("/organizers", { organizer: id === BY_SLUG ? "Blue Note" : `Organizer ${id}` }),
  );
  await makeInOrder(EVENTS, (id) =>
    seeder.post("/events", {
      title: id === BY_SLUG ? "Blue Note" : `Event ${id}`,
      start_date: `2026-12-${String((id % 28) + 1).padStart(2, "0")} 20:00:00`,
      end_date: `2026-12-${String((id % 28) + 1).padStart(2, "0")} 22:00:00`,
      ...(id === ITEMS ? { password: "letmein" } : {}),
      venue: [3],
      organizer: [7, 8],
      categories: [4, 5],
      tags: [13],
    }),
  );
  await makeInOrder(ITEMS, (id) =>
    seeder.post("/webhooks", { url: `https://hooks.example.org/calendar/${id}`, event_types: ["event.created"] }),
  );
  await makeInOrder(ITEMS, (id) =>
    seeder.post("/imports", { url: `https://calendar.example.org/feed-${id}.ics`, frequency: "manual" }),
  );
}

if (require.main === module) {
  const token = process.env.CALENDAR_ADMIN_TOKEN;
  if (!token) {
    console.error("set CALENDAR_ADMIN_TOKEN to the instance's administrator key");
    process.exit(1);
  }
  seedExamples(process.env.CALENDAR_URL ?? "http://localhost:8080", token).then(
    () => console.log("the items the API document's examples name are made"),
    (error: Error) => {
      console.error(`seed:examples: ${error.message}`);
      process.exit(1);
    },
  );
}
