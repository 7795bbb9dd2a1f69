// A refused body's answer reaches an honest client (issue 58): a signed-in writer's body over
// BODY_LIMIT_BYTES, announced or chunked, is answered 413 as the count passes the limit, and the
// rest of it is read and thrown away for a bounded time (nginx's lingering close), so that Node's
// http client, undici's fetch and curl each read the 413 and its message rather than a reset.
// An anonymous caller's body still costs nothing: it is answered and cut short.
import { execFile } from "node:child_process";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

jest.setTimeout(120_000);

const LIMIT = 1024 * 1024;
const MESSAGE = "The request body is too large.";
let server: TestServer;
let folder: string;

beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: String(LIMIT) });
  folder = mkdtempSync(join(tmpdir(), "calendar-bodies-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

const JSON_HEAD = { "Content-Type": "application/json", ...ADMIN_HEADERS };
/** A JSON body of `bytes` (a title that long). */
const bodyOf = (bytes: number) => Buffer.from(`{"title":"${"x".repeat(bytes - 12)}"}`);

interface Answered {
  status: number;
  code: string;
  /** How long after the body's bytes passed the limit the answer came, in ms. */
  afterLimitMs: number;
}

/**
 * Node's http client: the body announced (written whole) or chunked (64 KiB at a time, up to
 * `total`, as long as no answer has come); resolves with the answer, rejects on any socket error
 * before it.
 */
function nodeClient(total: number, chunked: boolean): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.base}/events`);
    let passedLimitAt = 0;
    let answered = false;
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: chunked ? { ...JSON_HEAD, "Transfer-Encoding": "chunked" } : { ...JSON_HEAD, "Content-Length": total },
      },
      (res) => {
        answered = true;
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            code: (JSON.parse(text) as { code: string }).code,
            afterLimitMs: performance.now() - passedLimitAt,
          }),
        );
      },
    );
    req.on("error", (error) => (answered ? undefined : reject(error)));
    const body = bodyOf(total);
    let sent = 0;
    const send = () => {
      while (sent < total && !answered) {
        const chunk = body.subarray(sent, sent + 65_536);
        sent += chunk.length;
        if (passedLimitAt === 0 && sent > LIMIT) passedLimitAt = performance.now();
        if (!req.write(chunk)) return void req.once("drain", send);
      }
      req.end();
    };
    send();
  });
}

/** undici's fetch: the body announced (a buffer) or streamed (chunked). */
async function undiciClient(total: number, chunked: boolean): Promise<Answered> {
  const body = bodyOf(total);
  let passedLimitAt = 0;
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const chunk = body.subarray(sent, sent + 65_536);
      sent += chunk.length;
      if (passedLimitAt === 0 && sent > LIMIT) passedLimitAt = performance.now();
      controller.enqueue(chunk);
    },
  });
  if (!chunked) passedLimitAt = performance.now();
  const response = await fetch(`${server.base}/events`, {
    method: "POST",
    headers: JSON_HEAD,
    body: chunked ? stream : body,
    ...(chunked ? { duplex: "half" } : {}),
  } as RequestInit);
  const answer = (await response.json()) as { code: string; message: string };
  expect(answer.message).toBe(MESSAGE);
  return { status: response.status, code: answer.code, afterLimitMs: performance.now() - passedLimitAt };
}

/** curl, with the body from a file: announced (`--data-binary`) or chunked (`Transfer-Encoding: chunked`). */
async function curlClient(total: number, chunked: boolean): Promise<Answered> {
  const file = join(folder, `body-${total}.json`);
  writeFileSync(file, bodyOf(total));
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    "curl",
    [
      "-s",
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      "-H",
      `Authorization: ${ADMIN_HEADERS.Authorization}`,
      ...(chunked ? ["-H", "Transfer-Encoding: chunked"] : []),
      "--data-binary",
      `@${file}`,
      "-w",
      "\n%{http_code}",
      `${server.base}/events`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const [body, status] = stdout.trimEnd().split("\n");
  const answer = JSON.parse(body) as { code: string; message: string };
  expect(answer.message).toBe(MESSAGE);
  return { status: Number(status), code: answer.code, afterLimitMs: performance.now() - started };
}

describe("a signed-in writer's body over the limit", () => {
  it.each([
    ["Node's http client", nodeClient],
    ["undici (fetch)", undiciClient],
    ["curl", curlClient],
  ])("is answered 413 with its message, and %s reads it: announced, and chunked", async (_client, client) => {
    for (const [total, chunked] of [
      [5 * 1024 * 1024, false],
      [64 * 1024 * 1024, true],
    ] as const) {
      const answer = await client(total, chunked);
      expect([answer.status, answer.code]).toEqual([413, "rest_payload_too_large"]);
      // curl's time is its whole run; the others', from the moment the limit was passed.
      if (client !== curlClient) expect(answer.afterLimitMs).toBeLessThan(1_000);
    }
    expect((await server.raw("GET", "/healthz")).status).toBe(200);
  });
});

describe("an anonymous caller's body", () => {
  it("costs nothing: answered 401 at once and cut short, its body unread", async () => {
    const started = performance.now();
    const status = await new Promise<number>((resolve) => {
      const url = new URL(`${server.base}/events`);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "Content-Type": "application/json", "Content-Length": 512 * 1024 * 1024 },
        },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      );
      req.on("error", () => undefined);
      req.write(bodyOf(65_536));
    });
    expect(status).toBe(401);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
