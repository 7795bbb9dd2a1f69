import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "./logger";

/** Query parameters whose values are secrets and must never be logged. */
const SECRET_QUERY_PARAMS = new Set(["password"]);

/**
 * Whether a query parameter's name names a secret, in any form the query parser reads as that
 * parameter (`password`, `password[]`, `password[0]`, `password[a][b]`), in any case.
 */
function isSecretName(name: string): boolean {
  return SECRET_QUERY_PARAMS.has(name.replace(/\[.*$/s, "").toLowerCase());
}

export function redactUrl(url: string): string {
  const queryStart = url.indexOf("?");
  if (queryStart < 0) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  if (![...params.keys()].some(isSecretName)) return url;
  const kept = [...params].map(([name, value]): [string, string] => [name, isSecretName(name) ? "[redacted]" : value]);
  return `${url.slice(0, queryStart)}?${new URLSearchParams(kept).toString()}`;
}

/** Told of every request when its response is done, with how long it took (the metrics). */
export type RequestObserver = (req: Request, res: Response, seconds: number) => void;

/**
 * Gives every request an id (the client's `X-Request-Id` when it is sane, else a new one),
 * echoes it in the response, and logs one line per request when the response is done; `observe`
 * hears of it too, timed once for both. Requests `unrecorded` says are the service's own (its
 * warm-up) are neither logged nor observed.
 */
export function requestLog(
  logger: Logger,
  unrecorded: (req: Request) => boolean = () => false,
  observe: RequestObserver = () => undefined,
): RequestHandler {
  return (req, res, next) => {
    const given = req.get("x-request-id");
    const requestId = given && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
    req.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    const started = process.hrtime.bigint();
    if (!unrecorded(req))
      res.on("finish", () => {
        const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        observe(req, res, durationMs / 1000);
        logger.info(
          {
            requestId,
            method: req.method,
            url: redactUrl(req.originalUrl),
            status: res.statusCode,
            durationMs: Math.round(durationMs * 100) / 100,
          },
          "request",
        );
      });
    next();
  };
}
