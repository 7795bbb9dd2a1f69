// The namespace index and /doc: both are derived from the OpenAPI document, never hand-written.
import type { components } from "../generated/api-types";
import bundled from "../generated/openapi.json";
import { startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

/** Every (path, METHOD) pair of the spec: the source of truth the index must mirror. */
function specOperations(): Array<[string, string]> {
  return Object.entries(bundled.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method): [string, string] => [path, method.toUpperCase()]),
  );
}

function routeKey(path: string): string {
  const pattern =
    path === "/" ? "" : path.replace(/\./g, "\\.").replace("{id}", "(?P<id>\\d+)").replace("{slug}", "(?P<slug>[^/]+)");
  return `/calendar/events/v1${pattern}`;
}

describe("GET /calendar/events/v1 (the namespace index)", () => {
  it("lists exactly the routes and methods of the spec", async () => {
    const { data, response } = await server.api.GET("/");
    expect(response.status).toBe(200);
    expect(data?.namespace).toBe("calendar/events/v1");
    const expected = new Map<string, string[]>();
    for (const [path, method] of specOperations())
      expected.set(routeKey(path), [...(expected.get(routeKey(path)) ?? []), method]);
    expect(Object.keys(data!.routes).sort()).toEqual([...expected.keys()].sort());
    for (const [key, methods] of expected) expect(data!.routes[key].methods).toEqual(methods);
  });

  it("answers at the root without a trailing slash, validated like any route", async () => {
    expect((await server.raw("GET", "/calendar/events/v1")).status).toBe(200);
    expect((await server.raw("GET", "/calendar/events/v1/")).status).toBe(200);
    expect((await server.raw("GET", "/calendar/events/v1?foo=1")).status).toBe(200);
    const bad = await server.raw("GET", "/calendar/events/v1?i18n_language=xx");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data.params)).toEqual(["i18n_language"]);
  });

  it("groups the methods that share arguments into one endpoint, with each argument's schema", async () => {
    const { data } = await server.api.GET("/");
    const item = data!.routes["/calendar/events/v1/categories/(?P<id>\\d+)"];
    expect(item.endpoints.map((endpoint) => endpoint.methods)).toEqual([["GET"], ["POST", "PUT", "PATCH"], ["DELETE"]]);
    const edit = item.endpoints[1].args;
    expect(edit.id).toMatchObject({ type: "integer", required: true });
    expect(edit.name).toMatchObject({ type: "string", minLength: 1, required: false });
    expect(edit.i18n_language).toMatchObject({ enum: ["en", "pt-br", "es"], required: false });
    const create = data!.routes["/calendar/events/v1/categories"].endpoints[1];
    expect(create.methods).toEqual(["POST"]);
    expect(create.args.name.required).toBe(true);
    const list = data!.routes["/calendar/events/v1/categories"].endpoints[0].args;
    expect(list.per_page).toMatchObject({ type: "integer", default: 10, minimum: 1 });
    expect(list.include).toMatchObject({ type: "array", items: { type: "string" } });
  });

  it("links routes without parameters to themselves, and the index up to the REST root, keeping the language prefix", async () => {
    const { data } = await server.apiIn("es").GET("/");
    expect(data!.routes["/calendar/events/v1/tags"]._links!.self![0].href).toBe(
      `${server.origin}/es/calendar/events/v1/tags`,
    );
    expect(data!.routes["/calendar/events/v1/tags/(?P<id>\\d+)"]._links).toBeUndefined();
    expect(data!._links.up[0].href).toBe(`${server.origin}/es/`);
  });
});

describe("GET /calendar/events/v1/doc", () => {
  it("serves the OpenAPI document as JSON, with servers[0].url the REST base asked for", async () => {
    const { data: body, response } = await server.api.GET("/doc");
    const data = body as components["schemas"]["OpenApiDocument"];
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(data).toMatchObject({
      openapi: "3.1.0",
      info: { version: expect.any(String), title: expect.any(String), description: expect.any(String) },
    });
    expect(data!.servers).toEqual([{ url: server.base }]);
    expect(Object.keys(data!.paths)).toEqual(Object.keys(bundled.paths));
    expect(data!.paths).toHaveProperty("/categories.get");
    expect(data!.components).toHaveProperty("schemas.ErrorResponse");
  });

  it("gives the language prefix in servers[0].url when asked under one", async () => {
    const { data } = await server.apiIn("pt-br").GET("/doc");
    expect((data as components["schemas"]["OpenApiDocument"]).servers[0].url).toBe(
      `${server.origin}/pt-br/calendar/events/v1`,
    );
  });

  it("renders a self-contained HTML page for Accept: text/html", async () => {
    const response = await server.raw("GET", "/es/calendar/events/v1/doc", {
      headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.text).toMatch(/^<!DOCTYPE html>/i);
    expect(response.text).toContain(`${server.origin}/es/calendar/events/v1`);
    expect(response.text).not.toContain("__CALENDAR_API_BASE__");
    // Nothing is loaded from elsewhere: no external scripts, styles or images.
    expect(response.text).not.toMatch(/<script[^>]+src=/i);
    expect(response.text).not.toMatch(/<link[^>]+href=["']?https?:/i);
    expect(response.text).not.toMatch(/<img[^>]+src=["']?https?:/i);
  });

  it("does not echo a strange Host header into the page", async () => {
    const { request } = await import("node:http");
    const body: string = await new Promise((resolve, reject) => {
      const url = new URL(`${server.base}/doc`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { Host: 'evil"><script>alert(1)</script>', Accept: "text/html" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve(text));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(body).not.toContain("<script>alert(1)</script>");
  });
});
