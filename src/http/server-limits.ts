import { createServer, STATUS_CODES, type RequestListener, type Server, type ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import type { Config } from "../config";
import { ERRORS, type ErrorCode } from "./errors";

// How often Node looks for requests past their time limits (its default, 30 s, would let a
// slow client hold a connection that long whatever the limits say).
const CHECK_EVERY_MS = 1000;

const UNDERWAY = new WeakMap<Server, Set<ServerResponse>>();

/**
 * The HTTP server of the app, with limits against slow or broken clients: the whole request
 * within REQUEST_TIMEOUT_SECONDS, its headers within HEADERS_TIMEOUT_SECONDS (checked every
 * second), idle keep-alive connections closed after KEEP_ALIVE_TIMEOUT_SECONDS. A request that
 * breaks them, or that is not HTTP, never reaches the app: Node reports it here, and it gets the
 * error envelope (in the default language: nothing of the request can be trusted) before the
 * connection is closed.
 */
export function createHttpServer(app: RequestListener, config: Config): Server {
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: CHECK_EVERY_MS,
    },
    app,
  );
  // The answers under way, so that a stop can have them close their connections too.
  const underway = new Set<ServerResponse>();
  UNDERWAY.set(server, underway);
  server.on("request", (_request, response: ServerResponse) => {
    underway.add(response);
    response.once("close", () => underway.delete(response));
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (
      !socket.writable ||
      (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    ) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "rest_request_timeout"
        : err.code === "HPE_HEADER_OVERFLOW"
          ? "rest_headers_too_large"
          : "rest_bad_request";
    const { status, message } = ERRORS[code];
    const body = JSON.stringify({ code, message: message[config.defaultLanguage], data: { status } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Language: ${config.defaultLanguage}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

/**
 * Stops the server gracefully: no new connections; every request it has read, or reads on a
 * connection already open, is answered, with `Connection: close`; then the connections end.
 * Node's own `server.close()` would also drop at once every connection with no request parsed
 * yet, including those whose request is in the socket buffer, unread because the event loop was
 * busy (better-sqlite3 runs queries on it): those clients would get a reset for a request they
 * had sent. Here an idle connection closes when its keep-alive time runs out, or at once after
 * its last answer. After `graceMs`, connections with no request under way are closed; a request
 * under way (its body still arriving, or its answer being made) is never cut: it is bounded by
 * the request timeout and the statement limit, and `hardStopMs` after the grace whatever is left
 * is cut. Resolves when every connection has ended.
 */
export function stopGracefully(server: Server, graceMs: number, hardStopMs: number): Promise<void> {
  server.on("request", (_request, response) => response.setHeader("Connection", "close"));
  for (const response of UNDERWAY.get(server) ?? [])
    if (!response.headersSent) response.setHeader("Connection", "close");
  return new Promise((resolve) => {
    const idle = setTimeout(() => server.closeIdleConnections(), graceMs);
    const all = setTimeout(() => server.closeAllConnections(), graceMs + hardStopMs);
    idle.unref();
    all.unref();
    NetServer.prototype.close.call(server, () => {
      clearTimeout(idle);
      clearTimeout(all);
      resolve();
    });
  });
}
