// Limits and headers: health probes, security headers, CORS, the rate limit, and the server's
// answers to slow, oversized and broken requests (which never reach a route).
import { readFileSync, renameSync } from "node:fs";
import { connect } from "node:net";
import { resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { Client } from "pg";
import { sqlitePath } from "../src/db/database";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "./support/test-server";

const document = JSON.parse(readFileSync(resolve(__dirname, "../generated/openapi.json"), "utf8"));
const ajv = new Ajv2020({ strict: false });
ajv.addSchema(document, "openapi.json");

/** Validates a body against the schema of an operation's response, as the spec declares it. */
function expectSpecResponse(path: string, status: string, body: unknown): void {
  const pointer = `openapi.json#/paths/${path.replace(/\//g, "~1")}/get/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  expect(validate(body) ? null : validate.errors).toBeNull();
}

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
function rawExchange(server: TestServer, bytes: string, options: { keepOpenMs?: number } = {}): Promise<string> {
  const { port, hostname } = new URL(server.origin);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(bytes);
      if (options.keepOpenMs === undefined) return;
      setTimeout(() => socket.destroy(new Error(`still open after ${options.keepOpenMs} ms`)), options.keepOpenMs);
    });
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("close", () => done(received));
    socket.on("error", fail);
  });
}

function bodyOf(response: string): any {
  return JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));
}

describe("health probes", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: "2" });
  });
  afterAll(() => server.close());

  it("answer at the origin, outside the namespace and the rate limit, for orchestrators", async () => {
    for (let i = 0; i < 5; i += 1) {
      const health = await server.raw("GET", "/healthz");
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: "ok" });
      expectSpecResponse("/healthz", "200", health.body);
      const ready = await server.raw("GET", "/readyz");
      expect(ready.status).toBe(200);
      expectSpecResponse("/readyz", "200", ready.body);
    }
    expect((await server.raw("GET", "/es/healthz")).status).toBe(404);
  });

  it("answer in the namespace too, where the document puts them and generated clients call them", async () => {
    const unlimited = await startTestServer();
    try {
      const doc = await unlimited.raw("GET", "/calendar/events/v1/doc");
      expect(doc.body.paths["/readyz"].servers).toBeUndefined();
      expect(doc.body.servers[0].url).toBe(unlimited.base);
      for (const base of ["/calendar/events/v1", "/es/calendar/events/v1"]) {
        const health = await unlimited.raw("GET", `${base}/healthz`);
        expect(health.status).toBe(200);
        expect(health.body).toEqual({ status: "ok" });
        const ready = await unlimited.raw("GET", `${base}/readyz`);
        expect(ready.status).toBe(200);
        expectSpecResponse("/readyz", "200", ready.body);
      }
      const index = await unlimited.raw("GET", "/calendar/events/v1");
      expect(Object.keys(index.body.routes)).toEqual(
        expect.arrayContaining(["/calendar/events/v1/healthz", "/calendar/events/v1/readyz"]),
      );
    } finally {
      await unlimited.close();
    }
  });

  /** Makes the database unreachable for new connections until the returned function is called. */
  async function cutOff(target: TestServer): Promise<() => Promise<void>> {
    await target.db.read.$disconnect();
    if (target.db.provider === "sqlite") {
      const path = sqlitePath(target.config.databaseUrl);
      renameSync(path, `${path}.away`);
      return async () => renameSync(`${path}.away`, path);
    }
    const name = new URL(target.config.databaseUrl).pathname.slice(1);
    const admin = new Client({ connectionString: target.config.databaseUrl.replace(/\/[^/]*$/, "/postgres") });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    return async () => {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    };
  }

  it("report a database that cannot be reached with 503 rest_not_ready", async () => {
    const broken = await startTestServer();
    try {
      const restore = await cutOff(broken);
      const ready = await broken.raw("GET", "/readyz");
      await restore();
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ code: "rest_not_ready", data: { status: 503 } });
      expectSpecResponse("/readyz", "503", ready.body);
      expect((await broken.raw("GET", "/healthz")).status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});

describe("security headers", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("come with every answer, errors included, and no X-Powered-By", async () => {
    for (const path of ["/calendar/events/v1/events", "/calendar/events/v1/nowhere", "/healthz"]) {
      const { headers } = await server.raw("GET", path);
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      expect(headers.get("x-frame-options")).toBe("DENY");
      expect(headers.get("referrer-policy")).toBe("no-referrer");
      expect(headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(headers.get("x-request-id")).toBeTruthy();
      expect(headers.get("x-powered-by")).toBeNull();
      expect(headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("let the HTML documentation run its own inline code, and add HSTS behind a trusted HTTPS proxy", async () => {
    const proxied = await startTestServer({ TRUST_PROXY: "loopback" });
    try {
      const page = await proxied.raw("GET", "/calendar/events/v1/doc", {
        headers: { Accept: "text/html", "X-Forwarded-Proto": "https" },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("script-src 'unsafe-inline'");
      expect(page.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
    } finally {
      await proxied.close();
    }
  });
});

describe("CORS", () => {
  it("lets any origin read by default, exposing the paging headers, and answers preflights", async () => {
    const server = await startTestServer();
    try {
      const list = await server.raw("GET", "/calendar/events/v1/tags", {
        headers: { Origin: "https://widgets.example.org" },
      });
      expect(list.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = list.headers.get("access-control-expose-headers")!.split(", ");
      expect(exposed).toEqual(
        // The tag an If-Match needs and a new item's address too, for browser applications that write.
        expect.arrayContaining([
          "X-TEC-Total",
          "X-TEC-TotalPages",
          "X-WP-Total",
          "X-WP-TotalPages",
          "Link",
          "ETag",
          "Location",
        ]),
      );
      const preflight = await server.raw("OPTIONS", "/calendar/events/v1/events", {
        headers: {
          Origin: "https://widgets.example.org",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/i);
      // Without an Origin, nothing of CORS is added.
      expect(
        (await server.raw("GET", "/calendar/events/v1/tags")).headers.get("access-control-allow-origin"),
      ).toBeNull();
    } finally {
      await server.close();
    }
  });

  it("allows only the configured origins when given a list", async () => {
    const server = await startTestServer({ CORS_ORIGINS: "https://calendar.example.org, https://admin.example.org" });
    try {
      const allowed = await server.raw("GET", "/calendar/events/v1/tags", {
        headers: { Origin: "https://admin.example.org" },
      });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://admin.example.org");
      expect(allowed.headers.get("vary")).toMatch(/Origin/);
      const other = await server.raw("GET", "/calendar/events/v1/tags", {
        headers: { Origin: "https://evil.example.com" },
      });
      expect(other.status).toBe(200);
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe("the rate limit", () => {
  it("answers 429 rest_too_many_requests with Retry-After past the burst, per client address", async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      for (let i = 0; i < 3; i += 1) {
        const allowed = await server.raw("GET", "/calendar/events/v1/tags");
        expect(allowed.status).toBe(200);
        // Where the client stands (IETF httpapi draft): 3 a minute, 2 - i left, full again within a minute.
        expect(allowed.headers.get("ratelimit-policy")).toBe('"per-address";q=3;w=60');
        const [, left, seconds] = /^"per-address";r=(\d+);t=(\d+)$/.exec(allowed.headers.get("ratelimit") ?? "") ?? [];
        expect(Number(left)).toBe(2 - i);
        expect(Number(seconds)).toBeGreaterThanOrEqual(20 * (i + 1) - 1);
        expect(Number(seconds)).toBeLessThanOrEqual(60);
      }
      const limited = await server.raw("GET", "/es/calendar/events/v1/tags");
      expect(limited.headers.get("ratelimit")).toMatch(/^"per-address";r=0;t=(\d+)$/);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: "rest_too_many_requests", data: { status: 429 } });
      expect(limited.body.message).toMatch(/Demasiadas solicitudes/);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(20);
      // Writes too, before their credentials or body are even looked at.
      expect((await server.raw("POST", "/calendar/events/v1/tags", { rawBody: "{not json" })).status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it("sends no rate-limit headers when there is no limit, nor at the origin's probes", async () => {
    const unlimited = await startTestServer();
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: "100" });
    try {
      const free = await unlimited.raw("GET", "/calendar/events/v1/tags");
      expect(free.headers.get("ratelimit")).toBeNull();
      expect(free.headers.get("ratelimit-policy")).toBeNull();
      expect((await limited.raw("GET", "/healthz")).headers.get("ratelimit")).toBeNull();
      expect((await limited.raw("GET", "/calendar/events/v1/healthz")).headers.get("ratelimit")).toMatch(
        /^"per-address";r=99;t=1$/,
      );
    } finally {
      await unlimited.close();
      await limited.close();
    }
  });
});

describe("slow, oversized and broken requests", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ HEADERS_TIMEOUT_SECONDS: "1", REQUEST_TIMEOUT_SECONDS: "2" });
  });
  afterAll(() => server.close());

  it("closes a connection whose headers do not arrive in time, with 408 in the envelope", async () => {
    const started = Date.now();
    const response = await rawExchange(server, "GET /calendar/events/v1/tags HTTP/1.1\r\nHost: x\r\n", {
      keepOpenMs: 10_000,
    });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(response)).toEqual({
      code: "rest_request_timeout",
      message: expect.any(String),
      data: { status: 408 },
    });
  });

  it("closes a connection whose body does not arrive in time", async () => {
    const response = await rawExchange(
      server,
      `POST /calendar/events/v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      { keepOpenMs: 10_000 },
    );
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("answers an anonymous write at once, without waiting for its body, and closes the connection", async () => {
    const started = Date.now();
    const response = await rawExchange(
      server,
      'POST /calendar/events/v1/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
      { keepOpenMs: 10_000 },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response).toMatch(/^HTTP\/1\.1 401 [^]*\r\nConnection: close\r\n/);
  });

  it("answers headers over 16 KiB with 431, and what is not HTTP with 400, in the envelope", async () => {
    const big = await rawExchange(
      server,
      `GET /calendar/events/v1/tags HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(big).code).toBe("rest_headers_too_large");
    const garbage = await rawExchange(server, "\u0000\u0001 not http at all\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(garbage)).toMatchObject({ code: "rest_bad_request", data: { status: 400 } });
  });
});
