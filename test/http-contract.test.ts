// What holds for every route: language prefixes and i18n_language, the error envelope and its
// localized messages, unknown routes and methods, and a configurable REST root.
import bundled from "../generated/openapi.json";
import { DETAIL_CODES } from "../src/http/detail-codes";
import { ERRORS } from "../src/http/errors";
import { startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("languages", () => {
  it.each(["en", "pt-br", "es"])("serves every route under /%s, answering in that language", async (language) => {
    const response = await server.raw("GET", `/${language}/calendar/events/v1/tags`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-language")).toBe(language);
    expect(response.body.rest_url).toBe(`${server.origin}/${language}/calendar/events/v1/tags?page=1&per_page=10`);
  });

  it("answers at the REST root in the default language", async () => {
    const response = await server.raw("GET", "/calendar/events/v1/tags");
    expect(response.headers.get("content-language")).toBe("en");
  });

  it("lets i18n_language win over the prefix, and keeps it in links", async () => {
    const response = await server.raw("GET", "/es/calendar/events/v1/tags?i18n_language=pt-br");
    expect(response.headers.get("content-language")).toBe("pt-br");
    expect(response.body.rest_url).toBe(
      `${server.origin}/pt-br/calendar/events/v1/tags?page=1&per_page=10&i18n_language=pt-br`,
    );
  });

  it("answers an unknown language prefix with 404 rest_no_route", async () => {
    const response = await server.raw("GET", "/fr/calendar/events/v1/tags");
    expect(response.status).toBe(404);
    expect(response.body.code).toBe("rest_no_route");
  });

  it("rejects an unknown i18n_language with 400", async () => {
    const response = await server.raw("GET", "/calendar/events/v1/tags?i18n_language=fr");
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.data.params)).toEqual(["i18n_language"]);
  });

  it.each([
    ["es", "Parámetro(s) no válido(s): per_page", "Parámetro no válido.", "Debe ser un número entero."],
    ["pt-br", "Parâmetro(s) inválido(s): per_page", "Parâmetro inválido.", "Deve ser um número inteiro."],
    ["en", "Invalid parameter(s): per_page", "Invalid parameter.", "Must be an integer."],
  ])(
    "words error messages in the request language (%s); codes stay the same",
    async (language, message, param, detail) => {
      const response = await server.raw("GET", `/${language}/calendar/events/v1/categories?per_page=x`);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-language")).toBe(language);
      expect(response.body).toEqual({
        code: "rest_invalid_param",
        message,
        data: {
          status: 400,
          params: { per_page: param },
          details: { per_page: { code: "rest_invalid_type", message: detail } },
        },
      });
    },
  );

  it("localizes domain errors too", async () => {
    const response = await server.raw("GET", "/es/calendar/events/v1/categories/77");
    expect(response.body).toEqual({
      code: "rest-category-not-found",
      message: "La categoría con ID 77 no existe.",
      data: { status: 404 },
    });
  });
});

describe("routes and methods", () => {
  it("answers an unknown path with 404 rest_no_route in the envelope", async () => {
    for (const path of [
      "/calendar/events/v1/nope",
      "/calendar/events/v2/tags",
      "/nothing-here",
      "/calendar/events/v1/categories/1/extra",
    ]) {
      const response = await server.raw("GET", path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        code: "rest_no_route",
        message: "No route was found matching the URL and request method.",
        data: { status: 404 },
      });
    }
  });

  it("answers a method the path lacks with 405 rest_no_route and Allow", async () => {
    const response = await server.raw("DELETE", "/calendar/events/v1/categories");
    expect(response.status).toBe(405);
    expect(response.body.code).toBe("rest_no_route");
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  it("sends no X-Powered-By, and a request id on every response", async () => {
    const response = await server.raw("GET", "/calendar/events/v1/tags");
    expect(response.headers.get("x-powered-by")).toBeNull();
    expect(response.headers.get("x-request-id")).toMatch(/^[\w-]+$/);
  });

  it("answers HEAD wherever GET answers", async () => {
    for (const path of ["/calendar/events/v1", "/calendar/events/v1/doc", "/es/calendar/events/v1/categories"]) {
      const response = await fetch(`${server.origin}${path}`, { method: "HEAD" });
      expect(response.status).toBe(200);
    }
  });

  it("accepts reserved characters unencoded in free-text and list values, as people type them", async () => {
    for (const query of ["search=rock+roll", "search=http://one.com/(a)", "search=a@b.c", "slug=a:b"]) {
      const response = await server.raw("GET", `/calendar/events/v1/tags?hide_empty=false&${query}`);
      expect(response.status).toBe(200);
    }
  });

  it("repeats a sane client request id, and replaces a strange one", async () => {
    const given = await server.raw("GET", "/calendar/events/v1/tags", { headers: { "X-Request-Id": "trace-123" } });
    expect(given.headers.get("x-request-id")).toBe("trace-123");
    const strange = await server.raw("GET", "/calendar/events/v1/tags", { headers: { "X-Request-Id": "a b<c>" } });
    expect(strange.headers.get("x-request-id")).not.toBe("a b<c>");
  });
});

describe("a configured REST root", () => {
  let wp: TestServer;
  beforeAll(async () => {
    wp = await startTestServer({ REST_ROOT: "/wp-json" });
  });
  afterAll(() => wp.close());

  it("serves the namespace under it, at the root and under language prefixes", async () => {
    const root = await wp.raw("GET", "/wp-json/calendar/events/v1/tags");
    expect(root.status).toBe(200);
    expect(root.body.rest_url).toBe(`${wp.origin}/wp-json/calendar/events/v1/tags?page=1&per_page=10`);
    const prefixed = await wp.raw("GET", "/es/wp-json/calendar/events/v1/doc");
    expect(prefixed.body.servers[0].url).toBe(`${wp.origin}/es/wp-json/calendar/events/v1`);
    expect((await wp.raw("GET", "/calendar/events/v1/tags")).status).toBe(404);
  });
});

describe("error codes", () => {
  it("are declared once, in the registries, and the document lists exactly those", () => {
    expect([...bundled.components.schemas.ErrorCode.enum].sort()).toEqual(Object.keys(ERRORS).sort());
    expect([...bundled.components.schemas.ErrorDetailCode.enum].sort()).toEqual(Object.keys(DETAIL_CODES).sort());
  });

  it("come with a message in the request language, as the document's examples show", async () => {
    const spanish = await server.raw("GET", "/es/calendar/events/v1/events?per_page=abc");
    expect(spanish.body).toEqual({
      code: "rest_invalid_param",
      message: "Parámetro(s) no válido(s): per_page",
      data: {
        status: 400,
        params: { per_page: expect.any(String) },
        details: { per_page: { code: "rest_invalid_type", message: expect.any(String) } },
      },
    });
    const english = await server.raw("GET", "/calendar/events/v1/events?per_page=abc");
    expect(english.body).toEqual(
      bundled.components.responses.BadRequest.content["application/json"].examples.invalidParam.value,
    );
  });
});
