import { closeIfBodyUnread } from "./request-body";
import type { ErrorRequestHandler, Request } from "express";
import type { Config } from "../config";
import { fillTemplate, type Language, type Localized } from "../i18n/languages";
import type { Logger } from "../logging/logger";
import { ApiError, ERRORS, InvalidParamsError, PARAM_MESSAGES, type ErrorCode, type ParamProblem } from "./errors";
import { requestLanguage } from "./request-context";
import { describeValidationMessage } from "./validation-messages";
import { isDatabaseUnavailable } from "../db/availability";
import { NESTING_PROBLEM } from "../openapi/input-guard";

interface Envelope {
  status: number;
  code: ErrorCode;
  message: string;
  data: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface ValidatorIssue {
  path?: string;
  message?: string;
  errorCode?: string;
}

/** An error of express-openapi-validator: it carries `status` and, for 400s, `errors`. */
interface ValidatorError {
  status: number;
  message?: string;
  errors?: ValidatorIssue[];
  headers?: Record<string, string>;
}

/** An error of body-parser (express.json): it carries `type`. */
interface BodyParserError {
  type: string;
  status?: number;
  message?: string;
}

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** The validator's Allow list, in the usual order, with HEAD wherever GET is (we answer it). */
function allowHeader(allow: string): string {
  const methods = new Set(allow.split(",").map((method) => method.trim().toUpperCase()));
  if (methods.has("GET")) methods.add("HEAD");
  return METHOD_ORDER.filter((method) => methods.has(method)).join(", ");
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === "object" && err !== null && typeof (err as BodyParserError).type === "string";
}

function isValidatorError(err: unknown): err is ValidatorError {
  return typeof err === "object" && err !== null && typeof (err as ValidatorError).status === "number";
}

function envelope(
  code: ErrorCode,
  language: Language,
  values: Record<string, string | number> = {},
  data: Record<string, unknown> = {},
  status?: number,
): Envelope {
  return {
    status: status ?? ERRORS[code].status,
    code,
    message: fillTemplate(ERRORS[code].message[language], values),
    data,
  };
}

function localize(text: Localized | string, language: Language): string {
  return typeof text === "string" ? text : text[language];
}

/** `/query/categories/1` → `categories`; `/body/title` → `title`; `/body` → `body`. */
function paramName(path: string): string {
  const parts = path.split("/").filter(Boolean);
  if (parts.length === 1) return parts[0];
  return parts[1];
}

function invalidParamsEnvelope(problems: Record<string, ParamProblem>, language: Language): Envelope {
  const names = Object.keys(problems);
  const params: Record<string, string> = Object.create(null);
  const details: Record<string, { code: string; message: string }> = Object.create(null);
  for (const name of names) {
    params[name] = PARAM_MESSAGES[problems[name].message][language];
    details[name] = { code: problems[name].detailCode, message: localize(problems[name].detail, language) };
  }
  return envelope("rest_invalid_param", language, { params: names.join(", ") }, { params, details });
}

function fromValidatorBadRequest(err: ValidatorError, language: Language): Envelope {
  const issues = err.errors?.length ? err.errors : [{ path: "/body", message: err.message ?? "invalid" }];
  // A path parameter that does not fit its schema means the URL matches no route (ids are numeric).
  if (issues.some((issue) => issue.path?.startsWith("/params/"))) return envelope("rest_no_route", language);

  const missing: string[] = [];
  // Keyed by names from the request: without a prototype, `constructor` or `__proto__` are names like any other.
  const problems: Record<string, ParamProblem> = Object.create(null);
  for (const issue of issues) {
    const message = issue.message ?? "invalid";
    const required = message.match(/must have required property '([^']+)'/);
    const path = issue.path ?? "/body";
    // A field missing from the body or the query is a missing parameter; one missing inside a
    // field's value (`venue` given as an object without its name) makes that field invalid.
    if (required && path.split("/").filter(Boolean).length <= 2) {
      if (!missing.includes(required[1])) missing.push(required[1]);
      continue;
    }
    const name = paramName(path);
    if (name in problems) continue;
    const { code, detail } = describeValidationMessage(message);
    problems[name] = { message: "invalid", detailCode: code, detail };
  }
  if (missing.length > 0)
    return envelope("rest_missing_callback_param", language, { params: missing.join(", ") }, { params: missing });
  return invalidParamsEnvelope(problems, language);
}

function fromBodyParser(err: BodyParserError, language: Language): Envelope {
  switch (err.type) {
    case "entity.parse.failed":
      return envelope("rest_invalid_json", language, {}, { json_error_message: err.message ?? "" });
    case "entity.too.large":
    case "parameters.too.many":
      return envelope("rest_payload_too_large", language);
    case "querystring.parse.rangeError":
      // A form body nested deeper than any field is (`a[b][c]...`), as the input guard says of JSON.
      return invalidParamsEnvelope({ body: NESTING_PROBLEM }, language);
    case "encoding.unsupported":
    case "charset.unsupported":
      return envelope("rest_unsupported_media_type", language);
    default:
      return envelope("rest_invalid_json", language);
  }
}

/** Seconds a client is asked to wait when the database is unavailable: about how long a restart takes. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = "5";

function toEnvelope(err: unknown, language: Language, config: Config): Envelope | null {
  if (err instanceof ApiError)
    return { ...envelope(err.code, language, err.values, err.data, err.status), headers: err.headers };
  if (isDatabaseUnavailable(err))
    return {
      ...envelope("rest_service_unavailable", language),
      headers: { "Retry-After": UNAVAILABLE_RETRY_AFTER_SECONDS },
    };
  if (err instanceof InvalidParamsError) return invalidParamsEnvelope(err.problems, language);
  if (isBodyParserError(err)) return fromBodyParser(err, language);
  if (isValidatorError(err)) {
    switch (err.status) {
      case 400:
        return fromValidatorBadRequest(err, language);
      case 401:
        return envelope("rest_forbidden", language, {}, {}, 401);
      case 403:
        return envelope("rest_forbidden", language);
      case 404:
        return envelope("rest_no_route", language);
      case 405:
        return {
          ...envelope("rest_no_route", language, {}, {}, 405),
          headers: err.headers?.Allow ? { Allow: allowHeader(err.headers.Allow) } : {},
        };
      case 413:
        return envelope("rest_payload_too_large", language);
      case 415:
        return envelope("rest_unsupported_media_type", language);
      case 500:
        // A response that breaks the spec (response validation is on in tests): say what broke.
        if (config.validateResponses && err.message?.includes("/response")) {
          return envelope(
            "rest_internal_error",
            language,
            {},
            { details: { response: { code: "rest_invalid_response", message: err.message } } },
          );
        }
        return null;
      default:
        return null;
    }
  }
  return null;
}

/**
 * The scheme a 401 asks for. Not Basic, though Basic credentials (application passwords) are
 * accepted when sent: a Basic challenge makes browsers prompt, then attach what was typed to every
 * later request to the site, which a page on another site could then make write for its visitor.
 */
const WWW_AUTHENTICATE = 'Bearer realm="calendar"';

export function createErrorHandler(config: Config, logger: Logger): ErrorRequestHandler {
  return (err: unknown, req: Request, res, next) => {
    if (res.headersSent) return next(err);
    const language = requestLanguage(req, config);
    let result = toEnvelope(err, language, config);
    // A process still warming up answers /readyz so, without a cause (http/warm-up.ts): expected, not logged.
    const warmingUp = result?.code === "rest_not_ready" && (err as { cause?: unknown }).cause === undefined;
    if (result?.code === "rest_service_unavailable" || (result?.code === "rest_not_ready" && !warmingUp)) {
      // An outage is not a fault of the request: one line, without the stack of every request.
      const cause = (err as { cause?: unknown }).cause ?? err;
      logger.warn(
        {
          requestId: req.requestId,
          cause: cause instanceof Error ? cause.message.trim().split("\n").pop() : String(cause),
        },
        "database unavailable",
      );
    } else if (result === null || (result.status >= 500 && !warmingUp)) {
      logger.error({ err, requestId: req.requestId }, "request failed");
      result ??= envelope("rest_internal_error", language);
    }
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    closeIfBodyUnread(req, res);
    if (result.status === 401) res.setHeader("WWW-Authenticate", WWW_AUTHENTICATE);
    res.setHeader("Content-Language", language);
    res
      .status(result.status)
      .json({ code: result.code, message: result.message, data: { status: result.status, ...result.data } });
  };
}
