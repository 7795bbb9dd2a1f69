// npm run differential -- [--report file.md]: the same requests to the original (WordPress + The
// Events Calendar, `tribe/events/v1`, assembled by ../shared/tools/original/) and to this service,
// statuses, shapes and values compared. A development tool, not part of the tests: CI cannot
// assemble the original.
//
// Both sides are given the same small data set through their own REST APIs first (venues,
// organizers, categories and tags made by name, events), and ids are mapped through it: a request
// names items by their role in the data set (`{event:jazz}`), each side gets its own id. Every
// difference is either one of the departures written down in DEPARTURES (each with where the docs
// say it) or reported as undocumented; the run fails while any is.
//
// Environment: ORIGINAL_URL (default http://127.0.0.1:18600/wp-json/tribe/events/v1),
// ORIGINAL_AUTH (`admin:<application password>`, default from ORIGINAL_ROOT/app-password.txt),
// OURS_URL (default http://127.0.0.1:8080/calendar/events/v1), OURS_TOKEN (CALENDAR_ADMIN_TOKEN).
import { readFileSync, writeFileSync } from "node:fs";
import { DEPARTURES, departureOf } from "./departures";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Side {
  name: "original" | "ours";
  base: string;
  headers: Record<string, string>;
  ids: Map<string, number>;
}

const originalRoot = process.env.ORIGINAL_ROOT ?? "/tmp/orig-root";
const original: Side = {
  name: "original",
  base: process.env.ORIGINAL_URL ?? "http://127.0.0.1:18600/wp-json/tribe/events/v1",
  headers: {
    Authorization: `Basic ${Buffer.from(process.env.ORIGINAL_AUTH ?? `admin:${readFileSync(`${originalRoot}/app-password.txt`, "utf8").trim()}`).toString("base64")}`,
  },
  ids: new Map(),
};
const ours: Side = {
  name: "ours",
  base: process.env.OURS_URL ?? "http://127.0.0.1:8080/calendar/events/v1",
  headers: { Authorization: `Bearer ${process.env.OURS_TOKEN ?? ""}` },
  ids: new Map(),
};

interface Answer {
  status: number;
  body: Json;
}

async function call(side: Side, method: string, path: string, body?: Json): Promise<Answer> {
  const url = `${side.base}${path.replace("{run}", RUN).replace(/\{(\w+):([\w-]+)\}/g, (_, kind: string, name: string) => String(side.ids.get(`${kind}:${name}`) ?? 0))}`;
  const response = await fetch(url, {
    method,
    headers: { ...side.headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(mapIds(side, body)),
  });
  const text = await response.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // Not JSON: compared as text.
  }
  return { status: response.status, body: parsed };
}

/** `"{venue:hall}"` strings in a body become the side's id of that item. */
function mapIds(side: Side, value: Json): Json {
  if (typeof value === "string") {
    if (value === "{name:music}") return `Differential music ${RUN}`;
    const match = /^\{(\w+):([\w-]+)\}$/.exec(value);
    return match ? (side.ids.get(`${match[1]}:${match[2]}`) ?? 0) : value;
  }
  if (Array.isArray(value)) return value.map((item) => mapIds(side, item));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapIds(side, item)]));
  return value;
}

// Tomorrow and the day after, at 10:00, on both sides (their site time zones are UTC).
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Names both sides' items share in this run (the original keeps what earlier runs made). */
const RUN = Date.now().toString(36);

/** The data set both sides get: what each request below names. */
async function seed(side: Side): Promise<void> {
  const made = async (kind: string, name: string, path: string, body: Json) => {
    const answer = await call(side, "POST", path, body);
    if (answer.status >= 300)
      throw new Error(
        `${side.name}: seeding ${kind} ${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    side.ids.set(`${kind}:${name}`, (answer.body as { id: number }).id);
  };
  const unique = RUN;
  await made("venue", "hall", "/venues", {
    venue: `Differential hall ${unique}`,
    address: "1 Main St",
    city: "Springfield",
    state: "IL",
    country: "United States",
    zip: "62701",
  });
  await made("organizer", "society", "/organizers", {
    organizer: `Differential society ${unique}`,
    email: "society@example.test",
    phone: "555-0100",
  });
  await made("category", "music", "/categories", { name: `Differential music ${unique}` });
  await made("tag", "jazz", "/tags", { name: `differential-jazz-${unique}` });
  await made("event", "jazz", "/events", {
    title: `Differential jazz night ${unique}`,
    description: "<p>An evening of jazz.</p>",
    start_date: `${day(1)} 10:00:00`,
    end_date: `${day(1)} 12:00:00`,
    venue: "{venue:hall}",
    organizer: ["{organizer:society}"],
    categories: ["{category:music}"],
    tags: ["{tag:jazz}"],
    cost: "10",
    featured: true,
  });
  await made("event", "free", "/events", {
    title: `Differential free talk ${unique}`,
    start_date: `${day(2)} 10:00:00`,
    end_date: `${day(2)} 11:00:00`,
    cost: "0",
  });
}

interface Case {
  name: string;
  method: string;
  path: string;
  body?: Json;
}

/** Every route, the filters, the write forms and the errors. */
const CASES: Case[] = [
  { name: "namespace index", method: "GET", path: "/" },
  { name: "an event", method: "GET", path: "/events/{event:jazz}" },
  { name: "an event free of cost", method: "GET", path: "/events/{event:free}" },
  { name: "an unknown event", method: "GET", path: "/events/999999" },
  { name: "events of a category", method: "GET", path: "/events?categories={category:music}" },
  { name: "events of a tag", method: "GET", path: "/events?tags={tag:jazz}" },
  { name: "events of a venue", method: "GET", path: "/events?venue={venue:hall}" },
  { name: "events of an organizer", method: "GET", path: "/events?organizer={organizer:society}" },
  { name: "featured events of this run", method: "GET", path: "/events?featured=true&search={run}" },
  { name: "events by search", method: "GET", path: "/events?search={run}" },
  { name: "events of an unknown category", method: "GET", path: "/events?categories=999999" },
  { name: "a bad per_page", method: "GET", path: "/events?per_page=abc" },
  {
    name: "events starting after tomorrow",
    method: "GET",
    path: `/events?starts_after=${day(1)} 12:00:00&search={run}`,
  },
  { name: "a page of events", method: "GET", path: "/events?per_page=1&page=2&search={run}" },
  { name: "a page past the last", method: "GET", path: "/events?per_page=10&page=9&search={run}" },
  { name: "draft events", method: "GET", path: "/events?status=draft&search={run}" },
  { name: "an event by an unknown slug", method: "GET", path: "/events/by-slug/no-such-event-anywhere" },
  { name: "a venue", method: "GET", path: "/venues/{venue:hall}" },
  { name: "an unknown venue", method: "GET", path: "/venues/999999" },
  { name: "an organizer", method: "GET", path: "/organizers/{organizer:society}" },
  { name: "a category", method: "GET", path: "/categories/{category:music}" },
  { name: "a tag", method: "GET", path: "/tags/{tag:jazz}" },
  { name: "venues", method: "GET", path: "/venues?search={run}" },
  { name: "organizers", method: "GET", path: "/organizers?search={run}" },
  { name: "categories", method: "GET", path: "/categories?search={run}" },
  { name: "tags", method: "GET", path: "/tags?search={run}" },
  {
    name: "an update",
    method: "POST",
    path: "/events/{event:jazz}",
    body: { title: "Differential jazz night, renamed" },
  },
  { name: "an event without dates", method: "POST", path: "/events", body: { title: "No dates" } },
  {
    name: "an event with an unknown venue",
    method: "POST",
    path: "/events",
    body: { title: "Lost", start_date: `${day(3)} 10:00:00`, end_date: `${day(3)} 11:00:00`, venue: 999999 },
  },
  {
    name: "an event with an inline venue",
    method: "POST",
    path: "/events",
    body: {
      title: "Inline",
      start_date: `${day(3)} 10:00:00`,
      end_date: `${day(3)} 11:00:00`,
      venue: { venue: "Differential inline hall", state: "IL" },
    },
  },
  { name: "a category of a name taken", method: "POST", path: "/categories", body: { name: "{name:music}" } },
  { name: "a venue without a name", method: "POST", path: "/venues", body: { city: "Nowhere" } },
  { name: "a delete", method: "DELETE", path: "/events/{event:free}" },
];

// Fields that differ by nature: ids, addresses and times of each side's own making.
const OWN_FIELDS =
  /^(id|global_id|global_id_lineage|author|date|date_utc|modified|modified_utc|url|rest_url|next_rest_url|previous_rest_url|slug|json_ld\.(url|@id)|.*\.(id|url|rest_url|global_id|global_id_lineage|author|date|date_utc|modified|modified_utc|slug|term_taxonomy_id|urls\.self|urls\.collection)|urls\.self|urls\.collection|term_taxonomy_id)$/;

/** A side's own origin and namespace, in any string, as `<api>` and `<site>`: the rest is compared. */
function withoutOrigin(side: Side, value: Json): Json {
  const api = side.base;
  const site = new URL(side.base).origin;
  if (typeof value === "string") return value.split(api).join("<api>").split(site).join("<site>");
  if (Array.isArray(value)) return value.map((item) => withoutOrigin(side, item));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutOrigin(side, item)]));
  return value;
}

interface Difference {
  path: string;
  original: Json | undefined;
  ours: Json | undefined;
}

function differences(a: Json | undefined, b: Json | undefined, path = ""): Difference[] {
  if (OWN_FIELDS.test(path.replace(/^\./, "").replace(/\[\d+\]/g, ""))) return [];
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) =>
      differences(a[key], b[key], `${path}.${key}`),
    );
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, index) => differences(item, b[index], `${path}[${index}]`));
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [{ path: path.replace(/^\./, "") || "(body)", original: a, ours: b }];
}

async function main(): Promise<void> {
  const reportFile = process.argv.includes("--report") ? process.argv[process.argv.indexOf("--report") + 1] : null;
  await seed(original);
  await seed(ours);
  const lines: string[] = [
    "# Differential run against the original",
    "",
    `${new Date().toISOString()}: ${CASES.length} requests to both.`,
    "",
  ];
  let undocumented = 0;
  for (const testCase of CASES) {
    const [theirsRaw, mineRaw] = [
      await call(original, testCase.method, testCase.path, testCase.body),
      await call(ours, testCase.method, testCase.path, testCase.body),
    ];
    const theirs = { ...theirsRaw, body: withoutOrigin(original, theirsRaw.body) };
    const mine = { ...mineRaw, body: withoutOrigin(ours, mineRaw.body) };
    const found: Difference[] =
      theirs.status === mine.status ? [] : [{ path: "(status)", original: theirs.status, ours: mine.status }];
    // An error is compared by its code; a success by its fields.
    if (theirs.status < 300 && mine.status < 300) found.push(...differences(theirs.body, mine.body));
    else if (theirs.status >= 300 && mine.status >= 300)
      found.push(
        ...differences(
          (theirs.body as { code?: Json }).code ?? null,
          (mine.body as { code?: Json }).code ?? null,
          "code",
        ),
      );
    lines.push(`## ${testCase.name}: ${testCase.method} ${testCase.path} → ${theirs.status} / ${mine.status}`);
    for (const difference of found) {
      const departure = departureOf(testCase.name, difference.path, difference.original, difference.ours);
      if (!departure) undocumented += 1;
      lines.push(
        `- ${departure ? "departure" : "**UNDOCUMENTED**"} \`${difference.path}\`: original ${JSON.stringify(difference.original)?.slice(0, 120)}, ours ${JSON.stringify(difference.ours)?.slice(0, 120)}${departure ? ` (${departure.reason})` : ""}`,
      );
    }
    if (found.length === 0) lines.push("- same");
    lines.push("");
  }
  lines.push(`${undocumented} undocumented differences; ${DEPARTURES.length} departures written down.`);
  const report = lines.join("\n");
  if (reportFile) writeFileSync(reportFile, report);
  console.log(report);
  process.exitCode = undocumented > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
