import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/**
 * A real HTTP server of iCalendar feeds on 127.0.0.1, as Google Calendar, Outlook and Meetup
 * serve them: each path's feed answered with an ETag (and Last-Modified), a 304 to a matching
 * If-None-Match, gzip when asked for; paths may redirect, hang or fail; every request is recorded.
 */
export interface FeedServer {
  origin: string;
  /** The feed served at a path (its text, as UTF-8, or its octets as they are; an ETag made from it). */
  feeds: Map<string, string | Buffer>;
  /** Paths that answer a redirect to another path or URL. */
  redirects: Map<string, string>;
  /** Paths answered with this status and no feed. */
  failures: Map<string, number>;
  /** Paths never answered. */
  hanging: Set<string>;
  /** Paths answered with a head and the start of a feed, then nothing more. */
  stalling: Set<string>;
  /**
   * Paths (without their query) answered by a function of the request's URL, as it returns them:
   * its status, headers and body sent as they are (a body already gzipped, a page made on demand).
   */
  dynamic: Map<string, (url: URL) => { status?: number; headers?: Record<string, string>; body: string | Buffer }>;
  /** Whether answers carry validators (ETag, Last-Modified). */
  validators: boolean;
  requests: Array<{ path: string; headers: IncomingHttpHeaders; status: number }>;
  urlOf(path: string): string;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const feeds = new Map<string, string | Buffer>();
  const redirects = new Map<string, string>();
  const failures = new Map<string, number>();
  const hanging = new Set<string>();
  const stalling = new Set<string>();
  const dynamic: FeedServer["dynamic"] = new Map();
  const requests: FeedServer["requests"] = [];
  const state = { validators: true };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    const answer = (status: number) => requests.push({ path, headers: req.headers, status });
    if (hanging.has(path)) {
      requests.push({ path, headers: req.headers, status: 0 });
      return;
    }
    if (stalling.has(path)) {
      // The head and the start of a feed, then nothing: the rest never comes.
      answer(200);
      res.writeHead(200, { "content-type": "text/calendar; charset=utf-8" });
      res.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
      return;
    }
    const url = new URL(path, "http://feeds.test");
    const made = dynamic.get(url.pathname);
    if (made !== undefined) {
      const { status = 200, headers = {}, body } = made(url);
      answer(status);
      res.writeHead(status, {
        "content-type": "application/json",
        ...headers,
        "content-length": String(Buffer.byteLength(body)),
      });
      res.end(body);
      return;
    }
    const failure = failures.get(path);
    if (failure !== undefined) {
      answer(failure);
      res.writeHead(failure).end("no");
      return;
    }
    const target = redirects.get(path);
    if (target !== undefined) {
      answer(302);
      res.writeHead(302, { location: target }).end();
      return;
    }
    const feed = feeds.get(path);
    if (feed === undefined) {
      answer(404);
      res.writeHead(404).end("not found");
      return;
    }
    const etag = `"${createHash("sha1").update(feed).digest("hex")}"`;
    const headers: Record<string, string> = { "content-type": "text/calendar; charset=utf-8" };
    if (state.validators) {
      headers.etag = etag;
      headers["last-modified"] = "Tue, 24 Nov 2026 10:00:00 GMT";
      if (req.headers["if-none-match"] === etag) {
        answer(304);
        res.writeHead(304, headers).end();
        return;
      }
    }
    let body: Buffer = typeof feed === "string" ? Buffer.from(feed, "utf8") : feed;
    if (/\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
      body = gzipSync(body);
      headers["content-encoding"] = "gzip";
    }
    answer(200);
    res.writeHead(200, { ...headers, "content-length": String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    feeds,
    redirects,
    failures,
    hanging,
    stalling,
    dynamic,
    get validators() {
      return state.validators;
    },
    set validators(value: boolean) {
      state.validators = value;
    },
    requests,
    urlOf: (path) => `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
