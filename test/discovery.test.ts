// WordPress's API discovery: every answer names the REST root (`Link: <…>; rel="https://api.w.org/"`),
// and the REST index answers there, at `/wp-json/` and at `/?rest_route=/`, as WordPress's does;
// a client that discovers the API as WordPress clients do (the site's Link, then the index's
// routes) reaches the events. Responses are validated against the spec by the test server.
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

const DISCOVERY = /<([^>]+)>; rel="https:\/\/api\.w\.org\/"/;

describe("with the REST root at /", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    for (const title of ["First", "Second"])
      await server.raw("POST", "/calendar/events/v1/events", {
        body: { title, start_date: "2027-06-01 10:00", end_date: "2027-06-01 11:00" },
        headers: ADMIN_HEADERS,
      });
  });
  afterAll(() => server.close());

  it.each([
    "/",
    "/wp-json",
    "/wp-json/",
    "/?rest_route=/",
    "/index.php?rest_route=/",
    "/calendar/events/v1/rest-index",
  ])("answers the REST index at %s", async (path) => {
    const index = await server.raw("GET", path);
    expect([path, index.status]).toEqual([path, 200]);
    expect(index.body).toMatchObject({
      name: "Events",
      url: server.origin,
      namespaces: ["calendar/events/v1"],
      timezone_string: expect.any(String),
      _links: { help: [{ href: `${server.origin}/calendar/events/v1/doc` }] },
    });
    expect(index.body.routes["/"]._links.self).toEqual([{ href: `${server.origin}/` }]);
    expect(index.body.routes["/calendar/events/v1/events"].methods).toEqual(["GET", "POST"]);
  });

  it("in the request's language, with its prefix", async () => {
    const index = await server.raw("GET", "/es/wp-json/");
    expect([index.status, index.body.name, index.headers.get("Content-Language")]).toEqual([200, "Eventos", "es"]);
    expect(index.headers.get("Link")).toBe(`<${server.origin}/es/>; rel="https://api.w.org/"`);
    expect(index.body.routes["/"]._links.self).toEqual([{ href: `${server.origin}/es/` }]);
  });

  it("names the REST root in every answer: items, errors, pages beside their next and prev links", async () => {
    for (const path of ["/calendar/events/v1/events/999999", "/calendar/events/v1/doc", "/nowhere"]) {
      const answer = await server.raw("GET", path);
      expect([path, DISCOVERY.exec(answer.headers.get("Link") ?? "")?.[1]]).toEqual([path, `${server.origin}/`]);
    }
    const page = await server.raw("GET", "/calendar/events/v1/events?per_page=1&start_date=2027-01-01");
    const links = page.headers.get("Link") ?? "";
    expect(links).toMatch(DISCOVERY);
    expect(links).toMatch(/rel="next"/);
  });

  it("lets a WordPress client discover the API and read events, as node-wpapi's discover does", async () => {
    const head = await fetch(`${server.origin}/`, { method: "HEAD" });
    const root = DISCOVERY.exec(head.headers.get("Link") ?? "")![1];
    const index = (await (await fetch(root)).json()) as {
      routes: Record<string, { _links?: { self: Array<{ href: string }> } }>;
    };
    const events = index.routes["/calendar/events/v1/events"]._links!.self[0].href;
    const listed = (await (await fetch(`${events}?start_date=2027-01-01`)).json()) as {
      events: Array<{ title: string }>;
    };
    expect(listed.events.map((event) => event.title)).toEqual(["First", "Second"]);
  });

  it("leaves other methods at the REST root unrouted", async () => {
    const posted = await server.raw("POST", "/wp-json/", { body: {}, headers: ADMIN_HEADERS });
    expect(posted.status).toBe(404);
  });
});

describe("with REST_ROOT=/wp-json", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ REST_ROOT: "/wp-json" });
  });
  afterAll(() => server.close());

  it("names /wp-json/ as the REST root, answers the index there, and nothing at /", async () => {
    const index = await server.raw("GET", "/wp-json/");
    expect(index.status).toBe(200);
    expect(index.headers.get("Link")).toBe(`<${server.origin}/wp-json/>; rel="https://api.w.org/"`);
    expect(index.body.routes["/"]._links.self).toEqual([{ href: `${server.origin}/wp-json/` }]);
    expect((await server.raw("GET", "/?rest_route=/")).status).toBe(200);
    expect((await server.raw("GET", "/")).status).toBe(404);
    const namespace = await server.raw("GET", "/wp-json/calendar/events/v1/");
    expect(namespace.body._links.up).toEqual([{ href: `${server.origin}/wp-json/` }]);
  });
});
