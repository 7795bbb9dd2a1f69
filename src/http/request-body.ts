import busboy from "busboy";
import express, { type Request, type RequestHandler, type Response } from "express";
import qs from "qs";
import { InvalidParamsError, type ParamProblem } from "./errors";

/**
 * The one reader of request bodies, for every content type the spec declares: JSON,
 * form-encoded (as PHP's `wp_remote_post` sends an array: `key[]=` lists, `key[field]=` objects),
 * and `multipart/form-data` (PHP cURL given an array), whose fields are read as a form's and whose
 * files are drained and ignored, as the original's event routes ignore them. It runs once the
 * caller and the operation are known (openapi/validation.ts): an anonymous or unauthorized write
 * is answered before a byte of its body is read.
 *
 * One bound for all of them: BODY_LIMIT_BYTES counts every byte of the body as sent (a
 * multipart body's files too); a declared length over it is refused before reading. A multipart
 * body also has at most 1,000 fields, 2,000 parts, 20 files and field names of 200 bytes, and a
 * part without a name is `400 rest_invalid_param`. Whatever a body does, its listeners throw
 * nothing past the request: every failure is that request's 4xx, never the process's end.
 */

/** The methods whose body is a write's fields; what another method carries is not read. */
export const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const MULTIPART_LIMITS = { fields: 1000, parts: 2000, files: 20, fieldNameSize: 200 };

/** Most `key[]=` lists and `key[field]=` objects nested in a form's field name. */
const FORM_DEPTH = 32;

type BodyError = Error & { type: string; status: number };

function bodyError(message: string, type: string, status: number): BodyError {
  return Object.assign(new Error(message), { type, status });
}

const tooLarge = () => bodyError("request entity too large", "entity.too.large", 413);
const tooManyParts = () => bodyError("too many parameters", "parameters.too.many", 413);
const unreadable = (cause: unknown) =>
  bodyError(cause instanceof Error ? cause.message : String(cause), "entity.parse.failed", 400);

const UNNAMED_PART: ParamProblem = {
  message: "invalid",
  detailCode: "rest_invalid_param",
  detail: {
    en: "Every part of a multipart/form-data body must have a name (Content-Disposition: form-data; name=...).",
    "pt-br": "Toda parte de um corpo multipart/form-data deve ter um nome (Content-Disposition: form-data; name=...).",
    es: "Cada parte de un cuerpo multipart/form-data debe tener un nombre (Content-Disposition: form-data; name=...).",
  },
};

function declaredLength(req: Request): number {
  const length = Number(req.headers["content-length"] ?? 0);
  return Number.isFinite(length) ? length : 0;
}

/**
 * A request refused before its body was read in full: the connection closes once the answer is
 * sent, instead of reading the rest (a client may have announced gigabytes). A caller the body
 * reader refused (one allowed to write: see lingerOver) is not cut short so.
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!req.complete && !res.headersSent && !LINGERING.has(req)) res.setHeader("Connection", "close");
}

/**
 * After a refusal of its body (413 and the like), how long and how many more of its bytes are read
 * and thrown away, as nginx's lingering close does: a client still sending when the answer comes
 * (a 5 MB JSON body, a chunked upload) would get a reset rather than the answer if the connection
 * closed under it (Node's and undici's clients report EPIPE or UND_ERR_SOCKET, never the 413). Past
 * either bound the connection is cut.
 */
const LINGER_MS = 10_000;
const LINGER_BYTES = 128 * 1024 * 1024;

const LINGERING = new WeakSet<Request>();

/**
 * The answer to a refused body goes out at once; the rest of the body is read and discarded, within
 * LINGER_MS and LINGER_BYTES, so that the client reads it. Only for callers who may call the
 * operation (the body reader runs after that is settled): an anonymous body costs nothing, it is
 * cut short (closeIfBodyUnread).
 */
function lingerOver(req: Request): void {
  if (req.complete || LINGERING.has(req)) return;
  LINGERING.add(req);
  let drained = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) cut();
  });
  req.once("close", () => clearTimeout(timer));
  req.resume();
}

/** A multipart body's fields as a form's; its files drained; every bound above. */
function readMultipart(req: Request, limitBytes: number, done: (error?: Error) => void): void {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { ...MULTIPART_LIMITS, fieldSize: limitBytes, fileSize: limitBytes },
    });
  } catch (error) {
    return done(unreadable(error));
  }
  const pairs: string[] = [];
  let received = 0;
  let settled = false;
  const countBytes = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limitBytes) fail(tooLarge());
  };
  const fail = (error: Error) => {
    if (settled) return;
    settled = true;
    req.off("data", countBytes);
    req.unpipe(parser);
    done(error);
  };
  // Each listener of the body's streams: what it throws is the request's failure, not the process's.
  const guarded =
    <A extends unknown[]>(listener: (...args: A) => void) =>
    (...args: A) => {
      try {
        listener(...args);
      } catch (error) {
        fail(unreadable(error));
      }
    };
  parser.on(
    "field",
    guarded((name: string | undefined, value: string, info: busboy.FieldInfo) => {
      if (!name) return fail(new InvalidParamsError({ "multipart/form-data": UNNAMED_PART }));
      // busboy bounds the names of form-encoded fields only; a part's name is bounded here.
      if (info.nameTruncated || info.valueTruncated || name.length > MULTIPART_LIMITS.fieldNameSize)
        return fail(tooLarge());
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    }),
  );
  parser.on(
    "file",
    guarded((name: string | undefined, stream: NodeJS.ReadableStream) => {
      stream.on("error", (error: Error) => fail(unreadable(error)));
      stream.on("limit", () => fail(tooLarge()));
      stream.resume();
      if (!name) fail(new InvalidParamsError({ "multipart/form-data": UNNAMED_PART }));
      else if (name.length > MULTIPART_LIMITS.fieldNameSize) fail(tooLarge());
    }),
  );
  for (const limit of ["fieldsLimit", "partsLimit", "filesLimit"]) parser.on(limit, () => fail(tooManyParts()));
  parser.on("error", (error: Error) => fail(unreadable(error)));
  parser.on(
    "close",
    guarded(() => {
      if (settled) return;
      let fields: unknown;
      try {
        fields = qs.parse(pairs.join("&"), {
          allowPrototypes: true,
          arrayLimit: Math.max(100, pairs.length),
          depth: FORM_DEPTH,
          strictDepth: true,
          parameterLimit: MULTIPART_LIMITS.fields,
        });
      } catch (error) {
        return fail(Object.assign(error as Error, { type: "querystring.parse.rangeError", status: 400 }));
      }
      settled = true;
      // From here the request is a form-encoded one, read (the parsers after this leave it as it is).
      req.headers["content-type"] = "application/x-www-form-urlencoded";
      (req as Request & { _body?: boolean })._body = true;
      req.body = fields;
      done();
    }),
  );
  req.on("error", (error: Error) => fail(unreadable(error)));
  req.on("data", countBytes);
  req.pipe(parser);
}

/** Reads a write's body (POST, PUT, PATCH), under BODY_LIMIT_BYTES; other methods' bodies are not read. */
export function readRequestBody(limitBytes: number): RequestHandler {
  const parseJson = express.json({ limit: limitBytes, strict: true });
  const parseForm = express.urlencoded({ extended: true, limit: limitBytes, parameterLimit: 1000 });
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    let answered = false;
    const done = (error?: unknown) => {
      if (answered) return;
      answered = true;
      req.off("data", countBytes);
      if (error) lingerOver(req);
      next(error);
    };
    // Counted as it arrives: the answer goes out as the count passes the bound (the parsers would
    // read a chunked body to its end before saying it is too large).
    let received = 0;
    const countBytes = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) done(tooLarge());
    };
    if (declaredLength(req) > limitBytes) return done(tooLarge());
    if (/^multipart\/form-data\b/i.test(req.headers["content-type"] ?? "")) return readMultipart(req, limitBytes, done);
    req.on("data", countBytes);
    parseJson(req, res, (jsonError?: unknown) => {
      if (jsonError) return done(jsonError);
      parseForm(req, res, done);
    });
  };
}
