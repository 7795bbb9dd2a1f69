// Compressed responses: negotiated with Accept-Encoding, announced with Vary, the same entity tag
// whatever the coding (so that a copy kept compressed revalidates and makes writes conditional);
// the documentation page coded once and revalidated by browsers.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createEventVia, fixedClock, utcWall } from "./support/events";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { clock: fixedClock });
  for (let i = 0; i < 5; i++)
    await createEventVia(server, {
      title: `Compressed ${i}`,
      description: "Words ".repeat(100),
      start_date: utcWall(24 + i),
      end_date: utcWall(25 + i),
    });
});
afterAll(() => server.close());

interface Bytes {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request whose answer is read as the bytes sent (fetch would decode them). */
function exchange(path: string, headers: Record<string, string>, method = "GET", body?: string): Promise<Bytes> {
  const url = new URL(`${server.origin}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function decoded(response: Bytes): string {
  const coding = response.headers["content-encoding"];
  if (coding === "gzip") return gunzipSync(response.body).toString("utf8");
  if (coding === "br") return brotliDecompressSync(response.body).toString("utf8");
  return response.body.toString("utf8");
}

describe("JSON responses", () => {
  it.each(["gzip", "br"])(
    "are %s-coded when the client accepts it, with Vary and the same content and tag",
    async (coding) => {
      const plain = await exchange("/calendar/events/v1/events", {});
      const coded = await exchange("/calendar/events/v1/events", { "Accept-Encoding": coding });
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(coded.headers["content-encoding"]).toBe(coding);
      for (const response of [plain, coded]) expect(String(response.headers.vary)).toMatch(/Accept-Encoding/i);
      expect(coded.body.length).toBeLessThan(plain.body.length / 3);
      expect(JSON.parse(decoded(coded))).toEqual(JSON.parse(plain.body.toString("utf8")));
      expect(coded.headers.etag).toBe(plain.headers.etag);
    },
  );

  it("revalidates and makes writes conditional with the tag of a compressed copy", async () => {
    const event = await createEventVia(server, {
      title: "Tagged",
      description: "Long text. ".repeat(200),
      start_date: utcWall(40),
      end_date: utcWall(41),
    });
    const path = `/calendar/events/v1/events/${event.id}`;
    const coded = await exchange(path, { "Accept-Encoding": "gzip" });
    expect(coded.headers["content-encoding"]).toBe("gzip");
    const tag = String(coded.headers.etag);
    expect((await exchange(path, { "Accept-Encoding": "gzip", "If-None-Match": tag })).status).toBe(304);
    const write = await exchange(
      path,
      { ...ADMIN_HEADERS, "Content-Type": "application/json", "If-Match": tag, "Accept-Encoding": "gzip" },
      "PATCH",
      JSON.stringify({ cost: "$5" }),
    );
    expect(write.status).toBe(200);
    expect(JSON.parse(decoded(write)).cost).toBe("$5");
    expect(
      (
        await exchange(
          path,
          { ...ADMIN_HEADERS, "Content-Type": "application/json", "If-Match": tag },
          "PATCH",
          JSON.stringify({ cost: "$6" }),
        )
      ).status,
    ).toBe(412);
  });

  it("leaves small answers and clients that accept no coding alone", async () => {
    const small = await exchange("/calendar/events/v1/tags", { "Accept-Encoding": "gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
    const identity = await exchange("/calendar/events/v1/events", { "Accept-Encoding": "identity" });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(identity.body.toString("utf8")).events.length).toBeGreaterThanOrEqual(5);
  });
});

describe("the documentation page", () => {
  const html = { Accept: "text/html" };

  it("is coded once per coding, smaller by three quarters, and the same page decoded", async () => {
    const plain = await exchange("/calendar/events/v1/doc", html);
    expect(plain.status).toBe(200);
    for (const coding of ["br", "gzip"]) {
      const coded = await exchange("/calendar/events/v1/doc", { ...html, "Accept-Encoding": coding });
      expect(coded.headers["content-encoding"]).toBe(coding);
      expect(coded.body.length).toBeLessThan(plain.body.length / 3);
      expect(decoded(coded)).toBe(plain.body.toString("utf8"));
      expect(coded.headers.etag).toBe(plain.headers.etag);
    }
  });

  it("is revalidated by browsers: no-cache with a strong tag, 304 while current", async () => {
    for (const accept of [html, { Accept: "application/json" }]) {
      const first = await exchange("/es/calendar/events/v1/doc", { ...accept, "Accept-Encoding": "gzip" });
      expect(first.headers["cache-control"]).toBe("no-cache");
      expect(String(first.headers.etag)).toMatch(/^"[\w-]+"$/);
      const again = await exchange("/es/calendar/events/v1/doc", {
        ...accept,
        "Accept-Encoding": "gzip",
        "If-None-Match": String(first.headers.etag),
      });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
  });
});
