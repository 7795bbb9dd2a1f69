import type { RequestHandler } from "express";
import { ApiError, InvalidParamsError, type ParamProblem } from "../http/errors";

/**
 * What no parameter or body field may hold, whatever its schema, checked before the request is
 * validated: text with U+0000 (no field needs it, and PostgreSQL cannot store it) or with a lone
 * UTF-16 surrogate (half of a character, what a client that cuts a string inside an emoji sends:
 * neither database can store it as text), and values nested deeper than any field is (a body of
 * a hundred thousand `[` would exhaust the stack of what walks it). Each is `400
 * rest_invalid_param` naming the parameter.
 */

/** Deeper than any field of the spec nests (a list of objects of lists is 3). */
export const MAX_NESTING = 16;

const NUL_PROBLEM: ParamProblem = {
  message: "invalid",
  detailCode: "rest_invalid_text",
  detail: {
    en: "Must not contain the NUL character (U+0000).",
    "pt-br": "Não deve conter o caractere NUL (U+0000).",
    es: "No debe contener el carácter NUL (U+0000).",
  },
};

const SURROGATE_PROBLEM: ParamProblem = {
  message: "invalid",
  detailCode: "rest_invalid_text",
  detail: {
    en: "Must be well-formed Unicode text (it has half of a character, a lone surrogate).",
    "pt-br": "Deve ser um texto Unicode bem formado (tem meio caractere, um surrogate isolado).",
    es: "Debe ser un texto Unicode bien formado (tiene medio carácter, un surrogate aislado).",
  },
};

export const NESTING_PROBLEM: ParamProblem = {
  message: "invalid",
  detailCode: "rest_too_deep",
  detail: {
    en: `Must not nest lists or objects more than ${MAX_NESTING} levels deep.`,
    "pt-br": `Não deve aninhar listas ou objetos em mais de ${MAX_NESTING} níveis.`,
    es: `No debe anidar listas u objetos más de ${MAX_NESTING} niveles.`,
  },
};

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): ParamProblem | null {
  if (text.includes("\u0000")) return NUL_PROBLEM;
  if (LONE_SURROGATE.test(text)) return SURROGATE_PROBLEM;
  return null;
}

/** The first problem of a value, walked without recursion (its depth is the client's to choose). */
function problemOf(value: unknown): ParamProblem | null {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node === "string") {
      const problem = textProblem(node);
      if (problem) return problem;
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (depth >= MAX_NESTING) return NESTING_PROBLEM;
    for (const [key, item] of Object.entries(node)) {
      const problem = textProblem(key);
      if (problem) return problem;
      pending.push([item, depth + 1]);
    }
  }
  return null;
}

/** A name as the error can show it: NUL written `\0`, a lone surrogate as U+FFFD. */
function printable(name: string): string {
  return name.replaceAll("\u0000", "\\0").replace(new RegExp(LONE_SURROGATE, "g"), "\uFFFD");
}

/**
 * A URL whose path has U+0000 matches no route (404 `rest_no_route`, as with any other impossible
 * id or slug), before anything looks up what it names.
 */
export const rejectNulInPath: RequestHandler = (req, _res, next) => {
  const queryStart = req.url.indexOf("?");
  if (/%00/.test(queryStart < 0 ? req.url : req.url.slice(0, queryStart))) return next(new ApiError("rest_no_route"));
  next();
};

/** Every query parameter and body field is checked, and all the bad ones are named at once. */
export const guardInput: RequestHandler = (req, _res, next) => {
  const problems: Record<string, ParamProblem> = Object.create(null);
  for (const source of [req.query, req.body] as unknown[]) {
    if (source === null || typeof source !== "object" || Array.isArray(source)) continue;
    for (const [name, value] of Object.entries(source)) {
      const problem = textProblem(name) ?? problemOf(value);
      if (problem) problems[printable(name)] = problem;
    }
  }
  if (Object.keys(problems).length > 0) return next(new InvalidParamsError(problems));
  next();
};
