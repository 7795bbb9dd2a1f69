import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import compression from "compression";
import type { Request, RequestHandler, Response } from "express";
import { answeredNotModified, entityTag } from "./conditional";

/**
 * Compressed responses (RFC 9110 §8.4), negotiated with `Accept-Encoding` and announced with
 * `Vary: Accept-Encoding`: Brotli or gzip for bodies of 1 kB or more. An entity tag names the
 * content before coding, so a copy kept compressed or not revalidates (and makes a write
 * conditional) with the same tag; no byte ranges are served, where a tag per coding would matter.
 */
export const COMPRESS_FROM_BYTES = 1024;

export function responseCompression(): RequestHandler {
  return compression({ threshold: COMPRESS_FROM_BYTES });
}

type Coding = "br" | "gzip";

const encode: Record<Coding, (text: string) => Promise<Buffer>> = {
  br: (text) =>
    promisify(brotliCompress)(text, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) },
    }),
  gzip: (text) => promisify(gzip)(text, { level: 9 }),
};

/**
 * A large text sent many times the same (the documentation page: 2.7 MB): its tag and each
 * coding made once, off the event loop, instead of per request (gzip alone costs 50 ms of it).
 */
export class PreparedText {
  readonly etag: string;
  private readonly encoded = new Map<Coding, Promise<Buffer>>();

  constructor(
    readonly text: string,
    readonly type: "html" | "json",
  ) {
    this.etag = entityTag(text);
  }

  encodedAs(coding: Coding): Promise<Buffer> {
    let encoded = this.encoded.get(coding);
    if (!encoded) this.encoded.set(coding, (encoded = encode[coding](this.text)));
    return encoded;
  }
}

function codingFor(req: Request): Coding | null {
  const coding = req.acceptsEncodings("br", "gzip", "identity");
  return coding === "br" || coding === "gzip" ? coding : null;
}

/**
 * Sends a prepared text: its strong tag, `Cache-Control: no-cache` (a browser revalidates it
 * each time, and gets `304` while it is current), coded as the client accepts.
 */
export async function sendPrepared(res: Response, prepared: PreparedText): Promise<void> {
  const req = res.req;
  res.setHeader("ETag", prepared.etag);
  res.setHeader("Cache-Control", "no-cache");
  res.vary("Accept-Encoding");
  // A 304 has no body, so no type: a Content-Type on it confuses proxies that check one against the other.
  if (answeredNotModified(res, prepared.etag)) return;
  res.type(prepared.type);
  const coding = codingFor(req);
  if (coding === null) {
    res.send(prepared.text);
    return;
  }
  const body = await prepared.encodedAs(coding);
  res.setHeader("Content-Encoding", coding);
  res.send(body);
}
