// The next door inherits the guard (issue 44). Hostile bodies are generated from the OpenAPI
// document itself: for every operation that takes a body, every content type it declares, the
// malformed and oversized forms below, anonymous and as the administrator. Each answer is a 4xx,
// the process answers /healthz throughout, and the event loop is never held for long. An operation
// or a content type added to the spec later is attacked here the day it is added. The feed reader
// is attacked the same way, with the feeds of the issue's rows. Runs in the timing phase (alone),
// as the other tests that time the event loop.
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { readFeedBounded } from "../../src/resources/imports/feed-reading";
import { UnreadableFeed } from "../../src/resources/imports/ical-reader";
import { specOperations } from "../support/spec-requests";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "../support/test-server";

jest.setTimeout(300_000);

const LIMIT = 64 * 1024;
/** The longest the event loop may be held: the issue's 200 ms, with room for a loaded CI machine. */
const LOOP_BOUND_MS = 400;

const document = JSON.parse(readFileSync(resolve(__dirname, "../../generated/openapi.json"), "utf8"));
const root = "/calendar/events/v1";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: String(LIMIT) });
  // Items with the id 1 the paths name, so that writes to one item reach their body.
  for (const [collection, body] of [
    ["venues", { venue: "Hall" }],
    ["organizers", { organizer: "Host" }],
    ["categories", { name: "Music" }],
    ["tags", { name: "Jazz" }],
    ["events", { title: "Night", start_date: "2027-01-01 20:00", end_date: "2027-01-01 22:00" }],
  ] as const)
    await server.raw("POST", `${root}/${collection}`, { body, headers: ADMIN_HEADERS });
});
afterAll(() => server.close());

/** Watches the event loop and /healthz while `run` goes on. */
async function watched<T>(run: () => Promise<T>): Promise<{ result: T; loopDelayMs: number; healthMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let done = false;
  let healthMs = 0;
  const probes = (async () => {
    while (!done) {
      const started = Date.now();
      const health = await server.raw("GET", "/healthz");
      if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
      healthMs = Math.max(healthMs, Date.now() - started);
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 50));
    }
  })();
  const result = await run();
  done = true;
  await probes;
  histogram.disable();
  return { result, loopDelayMs: histogram.max / 1e6, healthMs };
}

const multipart = (parts: string[], boundary = "zz") =>
  `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join("")}--${boundary}--\r\n`;
const field = (name: string, value = "x") => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
const file = (name: string, content: string) =>
  `Content-Disposition: form-data; name="${name}"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${content}`;

/** Malformed and oversized bodies of each content type, by name: [Content-Type, body]. */
const HOSTILE: Record<string, Record<string, [string, string]>> = {
  "application/json": {
    truncated: ["application/json", '{"title": "a'],
    "nested 100,000 deep": ["application/json", `{"title":${"[".repeat(100_000)}`],
    "NUL in text": ["application/json", '{"title":"a\\u0000b"}'],
    "lone surrogate": ["application/json", '{"title":"a\\ud800b"}'],
    "over the limit": ["application/json", JSON.stringify({ title: "x".repeat(LIMIT) })],
    "a number of 100,000 digits": ["application/json", `{"title":1${"0".repeat(100_000)}}`],
  },
  "application/x-www-form-urlencoded": {
    "nested 40 deep": ["application/x-www-form-urlencoded", `a${"[b]".repeat(40)}=1`],
    "1,001 fields": ["application/x-www-form-urlencoded", Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join("&")],
    "over the limit": ["application/x-www-form-urlencoded", `title=${"x".repeat(LIMIT)}`],
  },
  "multipart/form-data": {
    "a part without a name": [
      "multipart/form-data; boundary=zz",
      multipart(["Content-Disposition: form-data\r\n\r\nx"]),
    ],
    "an empty name": ["multipart/form-data; boundary=zz", multipart([field("")])],
    "a file without a name": [
      "multipart/form-data; boundary=zz",
      multipart([`Content-Disposition: form-data; filename="a"\r\n\r\nx`]),
    ],
    "no boundary": ["multipart/form-data", multipart([field("title")])],
    unterminated: ["multipart/form-data; boundary=zz", `--zz\r\n${field("title")}`],
    "no headers' end": ["multipart/form-data; boundary=zz", "--zz\r\nContent-Disposition: form-data; name=title"],
    "21 files": [
      "multipart/form-data; boundary=zz",
      multipart(Array.from({ length: 21 }, (_, i) => file(`f${i}`, "x"))),
    ],
    "2,001 parts": [
      "multipart/form-data; boundary=zz",
      multipart(Array.from({ length: 2001 }, (_, i) => field(`f${i}`))),
    ],
    "a 201-byte name": ["multipart/form-data; boundary=zz", multipart([field("n".repeat(201))])],
    "a file over the limit": ["multipart/form-data; boundary=zz", multipart([file("f", "x".repeat(LIMIT))])],
    "nested 40 deep": ["multipart/form-data; boundary=zz", multipart([field(`a${"[b]".repeat(40)}`)])],
  },
};

/** The operations that take a body, with the content types each declares. */
function bodyDoors(): Array<{ operationId: string; method: string; path: string; types: string[] }> {
  return specOperations(document).flatMap((operation) => {
    const raw = document.paths[operation.path][operation.method];
    let body = raw.requestBody;
    while (body?.$ref)
      body = body.$ref
        .split("/")
        .slice(1)
        .reduce((node: any, key: string) => node[key], document);
    if (!body) return [];
    return [
      {
        operationId: operation.operationId,
        method: operation.method.toUpperCase(),
        path: operation.path.replace(/\{[^}]+\}/g, "1"),
        types: Object.keys(body.content),
      },
    ];
  });
}

/** A request announcing a body over the limit, its head only: the answer must come without the body. */
function announcedOnly(method: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const url = new URL(`${server.origin}${path}`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: { ...headers, "Content-Length": String(512 * 1024 * 1024) },
      },
      (res) => (res.resume(), done(res.statusCode ?? 0)),
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      ["ECONNRESET", "EPIPE"].includes(error.code ?? "") ? undefined : fail(error),
    );
    req.write("{");
  });
}

describe("every operation that takes a body, every content type it declares", () => {
  const doors = bodyDoors();

  it("covers the writes of every resource, in JSON, form and multipart", () => {
    expect(doors.length).toBeGreaterThanOrEqual(15);
    for (const type of Object.keys(HOSTILE))
      expect(doors.filter((door) => door.types.includes(type)).length).toBeGreaterThan(0);
    // A content type the spec declares and this file has no hostile bodies for fails here.
    expect([...new Set(doors.flatMap((door) => door.types))].sort()).toEqual(Object.keys(HOSTILE).sort());
  });

  it("answers each hostile body with a 4xx, anonymous or signed in, without holding the process", async () => {
    const wrong: string[] = [];
    const { loopDelayMs, healthMs } = await watched(async () => {
      for (const door of doors) {
        for (const type of door.types) {
          for (const [name, [contentType, body]] of Object.entries(HOSTILE[type])) {
            for (const [caller, headers] of [
              ["anonymous", {}],
              ["administrator", ADMIN_HEADERS],
            ] as const) {
              const answer = await server.raw(door.method, `${root}${door.path}`, {
                rawBody: body,
                headers: { ...headers, "Content-Type": contentType },
              });
              if (answer.status < 400 || answer.status > 499 || typeof answer.body?.code !== "string")
                wrong.push(
                  `${door.operationId} ${type} ${name} (${caller}): ${answer.status} ${answer.text.slice(0, 120)}`,
                );
            }
          }
          for (const headers of [{}, ADMIN_HEADERS]) {
            const status = await announcedOnly(door.method, `${root}${door.path}`, {
              ...headers,
              "Content-Type": type,
            });
            if (status < 400 || status > 499) wrong.push(`${door.operationId} ${type} announcing 512 MiB: ${status}`);
          }
        }
      }
    });
    expect(wrong).toEqual([]);
    expect(loopDelayMs).toBeLessThan(LOOP_BOUND_MS);
    expect(healthMs).toBeLessThan(LOOP_BOUND_MS);
    expect((await server.raw("GET", "/healthz")).status).toBe(200);
  });

  it("reads form fields named after prototypes, or with broken escapes, as ordinary text: below 500, nothing polluted", async () => {
    const odd = ["__proto__[admin]=1&constructor[prototype][polluted]=1", "title=%E0%A4%A&status=%"];
    for (const door of doors.filter((candidate) => candidate.types.includes("application/x-www-form-urlencoded")))
      for (const body of odd) {
        const answer = await server.raw(door.method, `${root}${door.path}`, {
          rawBody: body,
          headers: { ...ADMIN_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
        });
        expect([door.operationId, body, answer.status < 500]).toEqual([door.operationId, body, true]);
      }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("extra and excluded dates past their caps", () => {
  it("are refused at once in Google's lines (60 lines of 1,000 EXDATEs, 1 MB), without holding the process", async () => {
    const big = await startTestServer({ BODY_LIMIT_BYTES: String(2 * 1024 * 1024) });
    try {
      const values = (count: number) =>
        Array.from({ length: count }, (_, i) => new Date(Date.UTC(2027, 0, 11) + i * 86_400_000))
          .map((day) => `${day.toISOString().slice(0, 10).replaceAll("-", "")}T190000`)
          .join(",");
      const series = (recurrence: unknown) => ({
        title: "Capped",
        start_date: "2027-01-04 19:00",
        end_date: "2027-01-04 20:00",
        recurrence,
      });
      const send = (recurrence: unknown) =>
        big.raw("POST", `${root}/events`, { body: series(recurrence), headers: ADMIN_HEADERS });
      // The operation's first request builds its validators (not the work measured here).
      await send(["RRULE:FREQ=WEEKLY;COUNT=2", `EXDATE:${values(2)}`]);
      const lines = ["RRULE:FREQ=WEEKLY;COUNT=10", ...Array.from({ length: 60 }, () => `EXDATE:${values(1000)}`)];
      const started = Date.now();
      const { result, loopDelayMs } = await watched(() => send(lines));
      expect([result.status, result.body.data?.details?.recurrence?.code]).toEqual([400, "rest_too_many_dates"]);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(loopDelayMs).toBeLessThan(LOOP_BOUND_MS);
    } finally {
      await big.close();
    }
  });
});

describe("the feed reader", () => {
  const calendar = (...components: string[]) =>
    ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...components, "END:VCALENDAR", ""].join("\r\n");
  const zone = (lines: string[]) =>
    [
      "BEGIN:VTIMEZONE",
      "TZID:Hostile",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0000",
      ...lines,
      "END:STANDARD",
      "END:VTIMEZONE",
    ].join("\r\n");
  const inZone =
    "BEGIN:VEVENT\r\nUID:z\r\nDTSTART;TZID=Hostile:20270101T100000\r\nDTEND;TZID=Hostile:20270101T110000\r\nEND:VEVENT";
  const dates = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => `${2028 + Math.floor(i / 8000)}0101T${String(i % 24).padStart(2, "0")}0000Z`,
    ).join(",");
  const FEEDS: Record<string, string> = {
    "a zone whose rule never matches": calendar(zone(["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"]), inZone),
    "a zone changing every second from 1601": calendar(zone(["RRULE:FREQ=SECONDLY"]), inZone),
    "a zone changing every hour from 1601": calendar(zone(["RRULE:FREQ=HOURLY"]), inZone),
    "a zone of 200,000 dates": calendar(zone([`RDATE:${dates(200_000)}`]), inZone),
    "500,000 EXDATE values": calendar(
      `BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20270104T190000Z\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\nEXDATE:${dates(500_000)}\r\nEND:VEVENT`,
    ),
    "100,000 VEVENTs": calendar(
      ...Array.from(
        { length: 100_000 },
        (_, i) => `BEGIN:VEVENT\r\nUID:m${i}\r\nDTSTART:20270101T100000Z\r\nEND:VEVENT`,
      ),
    ),
    "components nested 50,000 deep": calendar(`${"BEGIN:VEVENT\r\n".repeat(50_000)}${"END:VEVENT\r\n".repeat(50_000)}`),
    "one line of 8 MB": calendar(`BEGIN:VEVENT\r\nUID:l\r\nDESCRIPTION:${"x".repeat(8_000_000)}\r\nEND:VEVENT`),
    "not a calendar": "<html>".repeat(100_000),
    // Each set of rules is matched against every IANA zone (zone-matching.ts): a thousand of them.
    "1,000 zones of rules of their own, an event in each": calendar(
      ...Array.from({ length: 1_000 }, (_, i) =>
        [
          "BEGIN:VTIMEZONE",
          `TZID:Made-up ${i}`,
          "BEGIN:STANDARD",
          "DTSTART:16010101T030000",
          "TZOFFSETFROM:+0200",
          "TZOFFSETTO:+0100",
          `RRULE:FREQ=YEARLY;BYDAY=${1 + (i % 4)}${["SU", "MO", "TU", "WE", "TH", "FR", "SA"][i % 7]};BYMONTH=${1 + (i % 12)}`,
          "END:STANDARD",
          "BEGIN:DAYLIGHT",
          "DTSTART:16010101T020000",
          "TZOFFSETFROM:+0100",
          "TZOFFSETTO:+0200",
          `RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=${1 + (Math.floor(i / 12) % 12)}`,
          "END:DAYLIGHT",
          "END:VTIMEZONE",
          `BEGIN:VEVENT\r\nUID:made-up-${i}\r\nDTSTART;TZID=Made-up ${i}:20270601T100000\r\nEND:VEVENT`,
        ].join("\r\n"),
      ),
    ),
  };

  it.each(Object.keys(FEEDS))(
    "reads %s, or refuses it, within its bounds and without holding the process",
    async (name) => {
      const started = Date.now();
      const { result, loopDelayMs, healthMs } = await watched(() =>
        readFeedBounded({ text: FEEDS[name], siteZone: "UTC", maxEvents: 5000 }, 1, {
          deadlineMs: 3_000,
          memoryMb: 256,
        }).then(
          (reading) => ({ events: reading.events.length, problems: reading.problems.length }),
          (error: unknown) => {
            if (!(error instanceof UnreadableFeed)) throw error;
            return { refused: error.message };
          },
        ),
      );
      expect(result).toEqual(expect.any(Object));
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(loopDelayMs).toBeLessThan(LOOP_BOUND_MS);
      expect(healthMs).toBeLessThan(LOOP_BOUND_MS);
    },
  );
});
