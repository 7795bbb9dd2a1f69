import type { RequestHandler } from "express";
import { ApiError, InvalidParamsError, type ParamProblem } from "../http/errors";

const NUL_PROBLEM: ParamProblem = {
  message: "invalid",
  detailCode: "rest_invalid_text",
  detail: {
    en: "Must not contain the NUL character (U+0000).",
    "pt-br": "Não deve conter o caractere NUL (U+0000).",
    es: "No debe contener el carácter NUL (U+0000).",
  },
};

function containsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(containsNul);
  if (value !== null && typeof value === "object") return Object.entries(value).some(([key, item]) => key.includes("\u0000") || containsNul(item));
  return false;
}

/**
 * Text never holds U+0000: no field needs it, and PostgreSQL cannot store it. A URL with one
 * matches no route (404 `rest_no_route`, as with any other impossible id or slug), before
 * anything looks up what it names.
 */
export const rejectNulInPath: RequestHandler = (req, _res, next) => {
  const queryStart = req.url.indexOf("?");
  if (/%00/.test(queryStart < 0 ? req.url : req.url.slice(0, queryStart))) return next(new ApiError("rest_no_route"));
  next();
};

/** A query parameter or body field with U+0000, anywhere inside it, is `400 rest_invalid_param`. */
export const rejectNulInInput: RequestHandler = (req, _res, next) => {
  const problems: Record<string, ParamProblem> = Object.create(null);
  for (const source of [req.query, req.body] as unknown[]) {
    if (source === null || typeof source !== "object" || Array.isArray(source)) continue;
    for (const [name, value] of Object.entries(source)) if (containsNul(name) || containsNul(value)) problems[name.replaceAll("\u0000", "\\0")] = NUL_PROBLEM;
  }
  if (Object.keys(problems).length > 0) return next(new InvalidParamsError(problems));
  next();
};
