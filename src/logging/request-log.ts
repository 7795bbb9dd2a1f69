import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { redactUrl } from "../http/secret-parameters";
import type { Logger } from "./logger";

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
