// One guarded door for untrusted input (issue 44): what a hostile caller or feed sent, row by row,
// answers a 4xx (or completes) within bounds, and the service goes on. Bodies are read only once
// the caller may call the operation, under one limit for every content type; costly calendar work
// runs in a bounded thread; a password never comes back; browsers cannot be made to write with
// credentials they remembered.
import { request as httpRequest } from "node:http";
import { readFeed } from "../src/resources/imports/ical-reader";
import { createUser } from "../src/resources/users/user-admin";
import { startFeedServer, type FeedServer } from "./support/feed-server";
import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./support/test-server";

jest.setTimeout(60_000);

const root = "/calendar/events/v1";
let server: TestServer;
let feeds: FeedServer;
const logLines: string[] = [];
let editor: { bearer: Record<string, string>; basic: Record<string, string> };
let contributor: Record<string, string>;

beforeAll(async () => {
  feeds = await startFeedServer();
  server = await startTestServer(
    {
      BODY_LIMIT_BYTES: String(2 * 1024 * 1024),
      IMPORT_ALLOW_PRIVATE_SOURCES: "true",
      IMPORT_TIMEOUT_MS: "5000",
      IMPORT_RUN_WAIT_MS: "30000",
      IMPORT_MAX_EVENTS: "5000",
      CORS_ORIGINS: "https://app.example",
    },
    { logLines },
  );
  const user = await createUser(server.db, { login: "door-editor", role: "editor" });
  editor = {
    bearer: { Authorization: `Bearer ${user.api_key}` },
    basic: {
      Authorization: `Basic ${Buffer.from(`door-editor:${user.application_password}`).toString("base64")}`,
    },
  };
  const writer = await createUser(server.db, { login: "door-contributor", role: "contributor" });
  contributor = { Authorization: `Bearer ${writer.api_key}` };
});
afterAll(async () => {
  await server.close();
  await feeds.close();
});

const alive = async () => (await server.raw("GET", "/healthz")).status;

/** A multipart body of `parts` (each a header block and content), with boundary `zz`. */
function multipart(parts: Array<[string, string]>): string {
  return `${parts.map(([head, content]) => `--zz\r\n${head}\r\n\r\n${content}\r\n`).join("")}--zz--\r\n`;
}
const MULTIPART = { "Content-Type": "multipart/form-data; boundary=zz" };

/** The status of an administrator's multipart create sent chunked, with no length announced. */
function chunkedMultipartStatus(body: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const url = new URL(`${server.base}/events`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...MULTIPART, ...ADMIN_HEADERS, "Transfer-Encoding": "chunked" },
      },
      (res) => (res.resume(), resolve(res.statusCode ?? 0)),
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? undefined : reject(error),
    );
    req.end(body);
  });
}

/**
 * Sends a request's head and the first `sentBytes` of a body it announces as `declaredBytes`
 * long, and no more: resolves with the status when the answer comes, and whether the connection
 * was closed after it (the rest of the body is not waited for).
 */
function partialRequest(
  path: string,
  headers: Record<string, string>,
  declaredBytes: number,
  firstChunk: Buffer,
): Promise<{ status: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.origin}${path}`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "Content-Length": declaredBytes },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, closed: res.headers.connection === "close" }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? undefined : reject(error),
    );
    req.write(firstChunk);
  });
}

describe("bodies: read only once the caller may call the operation, under one limit", () => {
  it("answers a multipart part without a name with 400 rest_invalid_param, anonymous or not, and the process goes on", async () => {
    for (const head of ["Content-Disposition: form-data", 'Content-Disposition: form-data; name=""']) {
      const body = multipart([[head, "x"]]);
      const anonymous = await server.raw("POST", `${root}/events`, { rawBody: body, headers: MULTIPART });
      expect(anonymous.status).toBe(401);
      const signedIn = await server.raw("POST", `${root}/events`, {
        rawBody: body,
        headers: { ...MULTIPART, ...ADMIN_HEADERS },
      });
      expect([signedIn.status, signedIn.body.code, Object.keys(signedIn.body.data.params)]).toEqual([
        400,
        "rest_invalid_param",
        ["multipart/form-data"],
      ]);
      const file = multipart([[`${head}; filename="a.txt"\r\nContent-Type: text/plain`, "x"]]);
      const withFile = await server.raw("POST", `${root}/events`, {
        rawBody: file,
        headers: { ...MULTIPART, ...ADMIN_HEADERS },
      });
      expect(withFile.status).toBe(400);
    }
    expect(await alive()).toBe(200);
  });

  it("still reads a multipart create's fields, its files drained", async () => {
    const body = multipart([
      ['Content-Disposition: form-data; name="title"', "Multipart night"],
      ['Content-Disposition: form-data; name="start_date"', "2027-03-01 20:00"],
      ['Content-Disposition: form-data; name="end_date"', "2027-03-01 22:00"],
      ['Content-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png', "PNG...."],
    ]);
    const created = await server.raw("POST", `${root}/events`, {
      rawBody: body,
      headers: { ...MULTIPART, ...ADMIN_HEADERS },
    });
    expect([created.status, created.body.title]).toEqual([201, "Multipart night"]);
  });

  it("answers an anonymous write announcing 512 MiB with 401 at once, without reading it, and closes the connection", async () => {
    const head = Buffer.from('--zz\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\n\r\n');
    const started = Date.now();
    const answer = await partialRequest(`${root}/events`, MULTIPART, 512 * 1024 * 1024, head);
    expect(answer).toEqual({ status: 401, closed: true });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await alive()).toBe(200);
  });

  it("answers a signed-in write whose body is larger than BODY_LIMIT_BYTES with 413 before reading it, file parts counted", async () => {
    const head = Buffer.from('--zz\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\n\r\n');
    const declared = await partialRequest(`${root}/events`, { ...MULTIPART, ...ADMIN_HEADERS }, 64 * 1024 * 1024, head);
    // Answered at once; the connection stays while the rest is read and thrown away, for a bounded time
    // (test/body-refusals.test.ts), so that a client still sending reads the answer.
    expect(declared).toEqual({ status: 413, closed: false });
    // No length announced: the bytes are counted as they come, files included.
    const file = "x".repeat(2_200_000);
    const body = multipart([['Content-Disposition: form-data; name="f"; filename="big.bin"', file]]);
    expect(await chunkedMultipartStatus(body)).toBe(413);
    // Many parts, each well under the limit, that pass it together: the running count, not a part's size.
    const parts = Array.from({ length: 12 }, (_, i): [string, string] => [
      `Content-Disposition: form-data; name="f${i}"; filename="part${i}.bin"`,
      "y".repeat(200_000),
    ]);
    const many = await chunkedMultipartStatus(
      multipart([['Content-Disposition: form-data; name="title"', "Many parts"], ...parts]),
    );
    expect(many).toBe(413);
    for (const type of ["application/json", "application/x-www-form-urlencoded"]) {
      const large = await server.raw("POST", `${root}/events`, {
        rawBody: `title=${"x".repeat(2_200_000)}`,
        headers: { "Content-Type": type, ...ADMIN_HEADERS },
      });
      expect([type, large.status, large.body.code]).toEqual([type, 413, "rest_payload_too_large"]);
    }
    expect(await alive()).toBe(200);
  });

  it("answers more than 20 files, or a field name over 200 bytes, with 413", async () => {
    const files = multipart(
      Array.from({ length: 21 }, (_, index): [string, string] => [
        `Content-Disposition: form-data; name="f${index}"; filename="${index}.txt"`,
        "x",
      ]),
    );
    const tooMany = await server.raw("POST", `${root}/events`, {
      rawBody: files,
      headers: { ...MULTIPART, ...ADMIN_HEADERS },
    });
    expect(tooMany.status).toBe(413);
    const longName = multipart([[`Content-Disposition: form-data; name="${"n".repeat(201)}"`, "x"]]);
    const named = await server.raw("POST", `${root}/events`, {
      rawBody: longName,
      headers: { ...MULTIPART, ...ADMIN_HEADERS },
    });
    expect(named.status).toBe(413);
  });

  it("answers a malformed body of every declared type with a 4xx only once the caller may write", async () => {
    for (const [type, body] of [
      ["application/json", "{"],
      ["application/x-www-form-urlencoded", `a${"[b]".repeat(40)}=1`],
      ["multipart/form-data; boundary=zz", "--zz\r\nno headers end"],
      ["multipart/form-data", "no boundary"],
    ]) {
      const anonymous = await server.raw("POST", `${root}/venues`, {
        rawBody: body,
        headers: { "Content-Type": type },
      });
      expect([type, anonymous.status]).toEqual([type, 401]);
      const signedIn = await server.raw("POST", `${root}/venues`, {
        rawBody: body,
        headers: { "Content-Type": type, ...ADMIN_HEADERS },
      });
      expect([type, signedIn.status >= 400 && signedIn.status < 500]).toEqual([type, true]);
    }
    expect(await alive()).toBe(200);
  });
});

describe("extra and excluded dates: one cap for every form", () => {
  const series = (recurrence: unknown) => ({
    title: "Capped",
    start_date: "2027-01-04 19:00",
    end_date: "2027-01-04 20:00",
    recurrence,
  });
  const days = (count: number, from = Date.UTC(2027, 0, 11)) =>
    Array.from({ length: count }, (_, index) => new Date(from + index * 86_400_000).toISOString().slice(0, 10));
  const icalDays = (count: number) => days(count).map((day) => `${day.replaceAll("-", "")}T190000`);

  it("refuses more than 730 EXDATE or 366 RDATE values at once, as lines, add-on rules or the canonical form", async () => {
    const lines60k = [
      "RRULE:FREQ=WEEKLY;COUNT=10",
      ...Array.from({ length: 60 }, () => `EXDATE:${icalDays(1000).join(",")}`),
    ];
    const lines: unknown[] = [
      lines60k,
      ["RRULE:FREQ=WEEKLY;COUNT=10", `RDATE:${icalDays(367).join(",")}`],
      `RRULE:FREQ=WEEKLY;COUNT=10\nEXDATE:${icalDays(731).join(",")}`,
    ];
    // Each form's first request builds its validators (not the work measured here).
    for (const recurrence of [["RRULE:FREQ=WEEKLY;COUNT=2"], "RRULE:FREQ=WEEKLY;COUNT=2"])
      await server.raw("POST", `${root}/events`, { body: { ...series(recurrence), title: "" }, headers: contributor });
    // How long they take is test/timing/hostile-door.test.ts's to check.
    for (const recurrence of lines) {
      const refused = await server.raw("POST", `${root}/events`, { body: series(recurrence), headers: contributor });
      expect([refused.status, refused.body.data?.details?.recurrence?.code]).toEqual([400, "rest_too_many_dates"]);
    }
    // The add-on's forms, the canonical one and long texts are capped by the spec itself (maxItems, maxLength).
    const capped: unknown[] = [
      lines60k.join("\n"),
      { rules: [{ type: "Weekly" }], exclusions: days(731) },
      { rules: [{ type: "Weekly" }, ...days(366).map((date) => ({ type: "Date", date }))] },
      { rrule: "FREQ=WEEKLY;COUNT=3", exdate: days(731).map((day) => `${day} 19:00`) },
      { rrule: "FREQ=WEEKLY;COUNT=3", rdate: days(367).map((day) => `${day} 19:00`) },
    ];
    for (const recurrence of capped) {
      const refused = await server.raw("POST", `${root}/events`, { body: series(recurrence), headers: contributor });
      expect([refused.status, Object.keys(refused.body.data.params)]).toEqual([400, ["recurrence"]]);
    }
  });

  it("accepts exactly 730 EXDATE values", async () => {
    const created = await server.raw("POST", `${root}/events`, {
      body: series(["RRULE:FREQ=WEEKLY;COUNT=4", `EXDATE:${icalDays(730).join(",")}`]),
      headers: contributor,
    });
    expect(created.status).toBe(201);
  });
});

describe("credentials", () => {
  it("answers 403, not 401, to a signed-in caller without the right, whatever the scheme", async () => {
    for (const headers of [editor.bearer, editor.basic]) {
      for (const [method, path] of [
        ["GET", "/imports"],
        ["POST", "/imports"],
        ["GET", "/webhooks"],
      ]) {
        const answer = await server.raw(method, `${root}${path}`, {
          headers,
          body: method === "POST" ? {} : undefined,
        });
        expect([headers.Authorization.split(" ")[0], method, path, answer.status]).toEqual([
          headers.Authorization.split(" ")[0],
          method,
          path,
          403,
        ]);
      }
    }
    expect((await server.raw("GET", `${root}/imports`)).status).toBe(401);
  });

  it("asks for Bearer credentials only: no Basic challenge for a browser to prompt and remember", async () => {
    const answer = await server.raw("POST", `${root}/events`, { body: { title: "x" } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="calendar"');
  });

  it("never repeats a password in rest_url, the page links or Link, nor logs it, rest_route included", async () => {
    for (let index = 0; index < 3; index++)
      await server.raw("POST", `${root}/events`, {
        body: { title: `Secret gala ${index}`, start_date: "2027-05-01 20:00", end_date: "2027-05-01 22:00" },
        headers: ADMIN_HEADERS,
      });
    const listed = await server.raw("GET", `${root}/events?search=gala&per_page=1&page=2&password=hunter2`);
    expect(listed.status).toBe(200);
    const echoed = JSON.stringify([
      listed.body.rest_url,
      listed.body.next_rest_url,
      listed.body.previous_rest_url,
      listed.headers.get("link"),
    ]);
    expect(echoed).toContain("search=gala");
    expect(echoed).not.toContain("hunter");
    expect(echoed).not.toContain("password");
    await server.raw("GET", `/?rest_route=${encodeURIComponent(`${root}/events?password=hunter4&search=gala`)}`);
    await server.raw("GET", `/?rest_route=${root}/events&PassWord=hunter5`);
    await server.raw("GET", `${root}/events?password%5B0%5D=hunter6`);
    const logged = logLines.filter((line) => line.includes('"request"')).join("\n");
    expect(logged).toContain("rest_route");
    expect(logged).not.toMatch(/hunter/);
  });

  it("refuses a feed's redirect to a URL with credentials, and sends them nowhere", async () => {
    feeds.feeds.set("/plain.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nEND:VCALENDAR\r\n");
    feeds.redirects.set("/to-credentials.ics", feeds.urlOf("/plain.ics").replace("http://", "http://user:secret@"));
    const source = await server.raw("POST", `${root}/imports`, {
      body: { url: feeds.urlOf("/to-credentials.ics"), frequency: "manual" },
      headers: ADMIN_HEADERS,
    });
    expect(source.status).toBe(201);
    const run = await server.raw("POST", `${root}/imports/${source.body.id}/run`, { headers: ADMIN_HEADERS });
    expect([run.body.status, run.body.error]).toEqual(["failed", expect.stringMatching(/credentials/)]);
    expect(feeds.requests.filter((request) => request.headers.authorization !== undefined)).toEqual([]);
  });
});

/**
 * A request with exactly these headers (fetch sets Sec-Fetch-Mode and Origin itself, as a browser
 * does for a script): the forms a browser sends for a page's form or a `no-cors` fetch.
 */
function browserLike(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.origin}${path}`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: { ...headers, "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("writes a page on another site makes a browser send", () => {
  const event = { title: "Keep me", start_date: "2027-06-01 20:00", end_date: "2027-06-01 22:00" };
  let id: number;
  beforeAll(async () => {
    id = (await server.raw("POST", `${root}/events`, { body: event, headers: ADMIN_HEADERS })).body.id;
  });
  const deleteAs = (headers: Record<string, string>) =>
    browserLike("POST", `${root}/events/${id}?_method=DELETE`, { ...editor.basic, ...headers }, "");
  const form = { "Content-Type": "application/x-www-form-urlencoded" };

  it("are refused with 403 rest_cross_site_write: a form or no-cors fetch, or an unlisted origin with a simple body, in any mode", async () => {
    const forms: Array<Record<string, string>> = [
      {
        "Content-Type": "text/plain",
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Sec-Fetch-Mode": "no-cors",
      },
      { ...form, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" },
      {
        "Content-Type": "text/plain",
        Origin: "https://sub.example",
        "Sec-Fetch-Site": "same-site",
        "Sec-Fetch-Mode": "no-cors",
      },
      // A CORS fetch with a simple body needs no preflight: the browser sends it with the
      // credentials it remembered, and only hides the answer from the page.
      {
        "Content-Type": "text/plain",
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Sec-Fetch-Mode": "cors",
      },
      { ...form, Origin: "null", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors" },
      { "Content-Type": "multipart/form-data; boundary=x", Origin: "https://evil.example", "Sec-Fetch-Mode": "cors" },
      { Origin: "null", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors" },
      // Browsers that send no fetch metadata.
      { "Content-Type": "text/plain", Origin: "https://evil.example" },
      { Origin: "null" },
    ];
    for (const headers of forms) {
      const refused = await deleteAs(headers);
      expect([headers, refused.status, refused.body.code]).toEqual([headers, 403, "rest_cross_site_write"]);
    }
    expect((await server.raw("GET", `${root}/events/${id}`)).body.status).toBe("publish");
  });

  it("go through from server-side clients, CORS applications and the site's own pages", async () => {
    const patch = (headers: Record<string, string>, body: string) =>
      browserLike("PATCH", `${root}/events/${id}`, headers, body);
    const cors = await patch(
      {
        ...editor.bearer,
        "Content-Type": "application/json",
        Origin: "https://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Sec-Fetch-Mode": "cors",
      },
      JSON.stringify({ title: "Kept, by CORS" }),
    );
    expect(cors.status).toBe(200);
    const own = await patch(
      {
        ...editor.basic,
        ...form,
        Origin: server.origin,
        "Sec-Fetch-Site": "same-origin",
        "Sec-Fetch-Mode": "navigate",
      },
      "title=Kept%2C+by+the+site",
    );
    expect(own.status).toBe(200);
    const listed = await patch({ ...editor.basic, ...form, Origin: "https://app.example" }, "title=Listed+origin");
    expect(listed.status).toBe(200);
    const serverSide = await deleteAs({});
    expect(serverSide.status).toBe(200);
    // A DELETE is never sent without a preflight: through CORS, with no body, it goes through.
    const another = (await server.raw("POST", `${root}/events`, { body: event, headers: ADMIN_HEADERS })).body.id;
    const corsDelete = await browserLike(
      "DELETE",
      `${root}/events/${another}`,
      { ...editor.bearer, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors" },
      "",
    );
    expect(corsDelete.status).toBe(200);
  });
});

describe("feeds: every part of their reading bounded", () => {
  const calendar = (...components: string[]) =>
    ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...components, "END:VCALENDAR", ""].join("\r\n");
  const zone = (rule: string, extra: string[] = []) =>
    [
      "BEGIN:VTIMEZONE",
      "TZID:Hostile Zone",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0000",
      ...(rule ? [`RRULE:${rule}`] : []),
      ...extra,
      "END:STANDARD",
      "END:VTIMEZONE",
    ].join("\r\n");
  const vevent = (uid: string, lines: string[] = []) =>
    [
      "BEGIN:VEVENT",
      `UID:${uid}`,
      "DTSTART;TZID=Hostile Zone:20270101T100000",
      "DTEND;TZID=Hostile Zone:20270101T110000",
      `SUMMARY:${uid}`,
      ...lines,
      "END:VEVENT",
    ].join("\r\n");

  async function runFeed(path: string, text: string): Promise<RawResponse["body"]> {
    feeds.feeds.set(path, text);
    const source = await server.raw("POST", `${root}/imports`, {
      body: { url: feeds.urlOf(path), frequency: "manual" },
      headers: ADMIN_HEADERS,
    });
    const started = Date.now();
    const run = await server.raw("POST", `${root}/imports/${source.body.id}/run`, { headers: ADMIN_HEADERS });
    expect(run.status).toBe(200);
    return { ...run.body, tookMs: Date.now() - started };
  }

  it("does not use a VTIMEZONE whose rules never match or change more than yearly: its VEVENTs are problems", async () => {
    for (const [index, rule] of [
      "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
      "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
      "FREQ=SECONDLY",
      "FREQ=HOURLY",
      "FREQ=YEARLY;BYMONTH=3;BYSETPOS=9;BYDAY=SU",
      "FREQ=YEARLY;BYMONTH=3;BYDAY=9SU",
    ].entries()) {
      const run = await runFeed(`/zone-${index}.ics`, calendar(zone(rule), vevent(`zone-${index}`)));
      expect([rule, run.status, run.failed, run.errors[0].message]).toEqual([
        rule,
        "succeeded",
        1,
        expect.stringMatching(/VTIMEZONE "Hostile Zone" is not used/),
      ]);
      // Refused by reading the zone, not by the reading's deadline (IMPORT_READ_DEADLINE_MS, 10 s).
      expect(run.tookMs).toBeLessThan(8_000);
    }
    const dates = Array.from({ length: 200_000 }, (_, index) => `${1700 + Math.floor(index / 365)}0101T000000`);
    const listed = await runFeed(
      "/zone-dates.ics",
      calendar(zone("", [`RDATE:${dates.join(",")}`]), vevent("zone-dates")),
    );
    expect(listed.errors[0].message).toMatch(/more than 1000 dates/);
    expect(await alive()).toBe(200);
  });

  it("still reads an ordinary feed-defined zone (Outlook's custom zones)", async () => {
    const run = await runFeed("/zone-ok.ics", calendar(zone("FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"), vevent("zone-ok")));
    expect([run.status, run.created, run.failed]).toEqual(["succeeded", 1, 0]);
  });

  it("refuses a VEVENT with 500,000 EXDATE values as a problem of the run, at once", async () => {
    const values = Array.from(
      { length: 500_000 },
      (_, index) => `${2028 + Math.floor(index / 1000)}0101T${String(index % 24).padStart(2, "0")}0000Z`,
    );
    const text = calendar(
      [
        "BEGIN:VEVENT",
        "UID:many-exdates",
        "DTSTART:20270104T190000Z",
        "DTEND:20270104T200000Z",
        "RRULE:FREQ=WEEKLY;COUNT=5",
        `EXDATE:${values.join(",")}`,
        "SUMMARY:Many",
        "END:VEVENT",
      ].join("\r\n"),
    );
    const run = await runFeed("/exdates.ics", text);
    expect([run.status, run.failed, run.errors[0].message]).toEqual(["succeeded", 1, "more than 730 EXDATE values"]);
    expect(await alive()).toBe(200);
  });

  it("arranges thousands of cancelled overrides at once; past the EXDATE cap, the series is refused", async () => {
    const master = [
      "BEGIN:VEVENT",
      "UID:cancelled",
      "DTSTART:20270104T190000Z",
      "DTEND:20270104T200000Z",
      "RRULE:FREQ=DAILY;COUNT=5000",
      "SUMMARY:Daily",
      "END:VEVENT",
    ].join("\r\n");
    const overrides = Array.from({ length: 4999 }, (_, index) => {
      const day = new Date(Date.UTC(2027, 0, 5) + index * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "");
      return [
        "BEGIN:VEVENT",
        "UID:cancelled",
        `RECURRENCE-ID:${day}T190000Z`,
        `DTSTART:${day}T190000Z`,
        `DTEND:${day}T200000Z`,
        "STATUS:CANCELLED",
        "END:VEVENT",
      ].join("\r\n");
    });
    const run = await runFeed("/cancelled.ics", calendar(master, ...overrides));
    expect(run.tookMs).toBeLessThan(5_000);
    expect([run.status, run.created, run.errors[0]?.message]).toEqual([
      "succeeded",
      0,
      expect.stringMatching(/rest_too_many_dates/),
    ]);
  });

  it("refuses a feed of more VEVENTs than IMPORT_MAX_EVENTS while reading it; exactly that many is read", async () => {
    const minimal = (index: number) =>
      `BEGIN:VEVENT\r\nUID:m${index}\r\nDTSTART:20270101T100000Z\r\nSUMMARY:m\r\nEND:VEVENT`;
    const text = (count: number) => calendar(...Array.from({ length: count }, (_, index) => minimal(index)));
    const over = await runFeed("/many.ics", text(100_000));
    expect([over.status, over.error]).toEqual(["failed", "the feed has more than 5000 VEVENTs (IMPORT_MAX_EVENTS)"]);
    expect(over.tookMs).toBeLessThan(8_000);
    const read = (count: number) => readFeed({ text: text(count), siteZone: "UTC", maxEvents: 50 });
    expect(read(50).events).toHaveLength(50);
    expect(() => read(51)).toThrow("the feed has more than 50 VEVENTs (IMPORT_MAX_EVENTS)");
  });
});
