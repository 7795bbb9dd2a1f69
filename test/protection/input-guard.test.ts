// What no parameter or body field may hold, whatever its schema (src/openapi/input-guard.ts): NUL,
// a lone UTF-16 surrogate, nesting deeper than 16; each bad parameter named, all at once, in the
// caller's language; and a NUL in the path matches no route.
import type { Request, RequestHandler } from "express";
import { guardInput, MAX_NESTING, NESTING_PROBLEM, rejectNulInPath } from "../../src/openapi/input-guard";
import { ApiError, InvalidParamsError } from "../../src/http/errors";

/** What the middleware passes on: undefined when the request goes on, else its error. */
function outcome(middleware: RequestHandler, req: Partial<Request>): unknown {
  let passed: unknown = "not called";
  middleware(req as Request, {} as never, (error?: unknown) => (passed = error));
  return passed;
}

const problemsOf = (req: Partial<Request>) => {
  const error = outcome(guardInput, req);
  if (error === undefined) return "passed";
  expect(error).toBeInstanceOf(InvalidParamsError);
  return Object.fromEntries(
    Object.entries((error as InvalidParamsError).problems).map(([name, problem]) => [name, problem.detailCode]),
  );
};

/** A value nested `depth` levels deep: [[[…"x"…]]]. */
const nested = (depth: number, inner: unknown = "x"): unknown => (depth === 0 ? inner : [nested(depth - 1, inner)]);

describe("the input guard", () => {
  it("lets well-formed text through, emoji and all, in the query and the body", () => {
    expect(
      problemsOf({ query: { search: "Fado 🎸 à noite" }, body: { title: "Noite 👩‍👩‍👧", tags: ["a", { b: 1 }] } }),
    ).toEqual("passed");
    expect(problemsOf({ query: {}, body: undefined })).toEqual("passed");
    expect(problemsOf({ query: {}, body: null })).toEqual("passed");
    expect(problemsOf({ query: {}, body: { venue: null, cost: 5, featured: false } })).toEqual("passed");
    expect(problemsOf({ query: {}, body: ["\u0000"] })).toEqual("passed");
    expect(problemsOf({ query: {}, body: "\u0000" })).toEqual("passed");
  });

  it("names every parameter holding NUL, at any depth, in its name too", () => {
    expect(
      problemsOf({
        query: { search: "a\u0000b", page: "1" },
        body: { title: "ok", venue: { name: ["x", "y\u0000"] }, "bad\u0000name": "x" },
      }),
    ).toEqual({ search: "rest_invalid_text", venue: "rest_invalid_text", "bad\\0name": "rest_invalid_text" });
    expect(problemsOf({ query: {}, body: { meta: { "key\u0000": 1 } } })).toEqual({ meta: "rest_invalid_text" });
    expect(problemsOf({ query: {}, body: { list: ["\u0000", "fine", "fine too"] } })).toEqual({
      list: "rest_invalid_text",
    });
  });

  it("names every parameter holding half of a character", () => {
    const cases = ["\uD83C", "a\uD83Cb", "\uDFB8", "x\uDFB8", "\uDFB8\uD83C"];
    for (const text of cases) expect(problemsOf({ query: { search: text } })).toEqual({ search: "rest_invalid_text" });
    expect(problemsOf({ query: { [`a\uD83Cb\uDFB8c`]: "x" } })).toEqual({ "a\uFFFDb\uFFFDc": "rest_invalid_text" });
    expect(problemsOf({ query: {}, body: { list: [{ "\uDFB8": 1 }] } })).toEqual({ list: "rest_invalid_text" });
  });

  it("says what is wrong in each language", () => {
    const [nul, surrogate] = ["\u0000", "\uD83C"].map(
      (text) => (outcome(guardInput, { query: { q: text } }) as InvalidParamsError).problems.q!,
    );
    expect(nul!.detail).toEqual({
      en: "Must not contain the NUL character (U+0000).",
      "pt-br": "Não deve conter o caractere NUL (U+0000).",
      es: "No debe contener el carácter NUL (U+0000).",
    });
    expect(surrogate!.detail).toEqual({
      en: "Must be well-formed Unicode text (it has half of a character, a lone surrogate).",
      "pt-br": "Deve ser um texto Unicode bem formado (tem meio caractere, um surrogate isolado).",
      es: "Debe ser un texto Unicode bien formado (tiene medio carácter, un surrogate aislado).",
    });
    expect([nul!.message, surrogate!.message, NESTING_PROBLEM.message]).toEqual(["invalid", "invalid", "invalid"]);
    expect(NESTING_PROBLEM.detail).toEqual({
      en: "Must not nest lists or objects more than 16 levels deep.",
      "pt-br": "Não deve aninhar listas ou objetos em mais de 16 níveis.",
      es: "No debe anidar listas u objetos más de 16 niveles.",
    });
  });

  it("takes 16 levels of lists or objects in a parameter, refuses 17, and walks a hundred thousand without recursion", () => {
    expect(MAX_NESTING).toBe(16);
    expect(problemsOf({ query: {}, body: { deep: nested(16) } })).toEqual("passed");
    expect(problemsOf({ query: {}, body: { deep: nested(17) } })).toEqual({ deep: "rest_too_deep" });
    for (const inner of [5, null, true])
      expect(problemsOf({ query: {}, body: { deep: nested(16, inner) } })).toEqual("passed");
    expect(problemsOf({ query: {}, body: { deep: { a: { b: nested(14) } } } })).toEqual("passed");
    expect(problemsOf({ query: {}, body: { deep: { a: { b: nested(15) } } } })).toEqual({ deep: "rest_too_deep" });
    expect(problemsOf({ query: {}, body: { deep: JSON.parse("[".repeat(100_000) + "]".repeat(100_000)) } })).toEqual({
      deep: "rest_too_deep",
    });
  });
});

describe("a NUL in the path", () => {
  it("matches no route; in the query it is the guard's to name", () => {
    const refused = outcome(rejectNulInPath, { url: "/calendar/events/v1/events/by-slug/a%00b" });
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("rest_no_route");
    expect(outcome(rejectNulInPath, { url: "/calendar/events/v1/events?search=a%00b" })).toBeUndefined();
    expect(outcome(rejectNulInPath, { url: "/calendar/events/v1/events/a%00?x" })).toBeInstanceOf(ApiError);
    expect(outcome(rejectNulInPath, { url: "/calendar/events/v1/events/a%00" })).toBeInstanceOf(ApiError);
    expect(outcome(rejectNulInPath, { url: "/calendar/events/v1/events/12" })).toBeUndefined();
  });
});
