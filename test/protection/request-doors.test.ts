// The shared doors every request or outbound fetch passes, called in process (for mutation testing:
// docs/development.md, "Mutation testing"): cross-site writes, JSONP callbacks, WordPress's method
// override, the warm-up's mark, secret parameters in logs and links, the outbound address guard and
// the count of an RFC 5545 line's values. The HTTP suites prove the same through the service.
import type { Request, RequestHandler, Response } from "express";
import { loadConfig } from "../../src/config";
import { contentLineValueCount, MAX_EXDATES, MAX_RDATES, MAX_ZONE_DATES } from "../../src/dates/recurrence-limits";
import { refuseCrossSiteWrites } from "../../src/http/cross-site-writes";
import { ApiError } from "../../src/http/errors";
import { isJsonpRequest, jsonpCallbacks } from "../../src/http/jsonp";
import { rateLimit } from "../../src/http/rate-limit";
import { isSecretParameter, redactUrl } from "../../src/http/secret-parameters";
import { isWarmUpMessage, WARM_UP_HEADER, WARM_UP_SECRET } from "../../src/http/warm-up-marker";
import { methodOverride, queryFieldsOfWrites, restRouteParameter } from "../../src/http/wordpress-requests";
import {
  allowedAddresses,
  allowedUrl,
  pinnedLookup,
  refusedAddress,
  resolveWithin,
} from "../../src/net/outbound-guard";

/** What the middleware passes on: undefined when the request goes on, else its error's code. */
function outcome(middleware: RequestHandler, req: Partial<Request>, res: Partial<Response> = {}): unknown {
  let passed: unknown = "not called";
  middleware(req as Request, res as Response, (error?: unknown) => (passed = error));
  return passed instanceof ApiError ? passed.code : passed;
}

const config = loadConfig({ CALENDAR_ADMIN_TOKEN: "x".repeat(32) });

/** A request as Express gives it, from this service's own origin unless headers say otherwise. */
function request(method: string, headers: Record<string, string> = {}): Partial<Request> {
  const all: Record<string, string> = { host: "calendar.example.org", ...headers };
  return {
    method,
    headers: all,
    protocol: "https",
    get: ((name: string) => all[name.toLowerCase()]) as Request["get"],
  };
}

describe("writes a page of another site makes a browser send", () => {
  const refuse = refuseCrossSiteWrites(config);
  const elsewhere = "https://attacker.example";

  it("are refused when the browser marks them so, whatever their body", () => {
    for (const mode of ["navigate", "nested-navigate", "no-cors"])
      expect(outcome(refuse, request("POST", { "sec-fetch-site": "cross-site", "sec-fetch-mode": mode }))).toBe(
        "rest_cross_site_write",
      );
    expect(outcome(refuse, request("DELETE", { "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors" }))).toBe(
      "rest_cross_site_write",
    );
  });

  it("pass from the site itself, through CORS, and from servers", () => {
    for (const site of ["same-origin", "none"])
      expect(
        outcome(refuse, request("POST", { "sec-fetch-site": site, "sec-fetch-mode": "navigate" })),
      ).toBeUndefined();
    const cors = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors", origin: elsewhere };
    expect(outcome(refuse, request("POST", { ...cors, "content-type": "application/json" }))).toBeUndefined();
    // Methods a page cannot send without a preflight, body or none.
    for (const method of ["PUT", "PATCH", "DELETE"]) expect(outcome(refuse, request(method, cors))).toBeUndefined();
    expect(outcome(refuse, request("POST", { "content-type": "application/json" }))).toBeUndefined();
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(outcome(refuse, request(method, { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" }))).toBe(
        undefined,
      );
    // A mode without a site (no browser sends it), and a form from a server, which sends no Origin.
    expect(outcome(refuse, request("POST", { "sec-fetch-mode": "navigate" }))).toBeUndefined();
    expect(outcome(refuse, request("POST", { "content-type": "application/x-www-form-urlencoded" }))).toBeUndefined();
  });

  it("through CORS, are refused when a POST's body is simple (no preflight asked), unless the origin is listed", () => {
    const cors = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" };
    for (const type of [
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "text/plain;charset=UTF-8",
    ])
      for (const origin of [elsewhere, "null"])
        expect(outcome(refuse, request("POST", { ...cors, origin, "content-type": type }))).toBe(
          "rest_cross_site_write",
        );
    expect(outcome(refuse, request("POST", { ...cors, origin: elsewhere }))).toBe("rest_cross_site_write");
    expect(outcome(refuse, request("POST", { ...cors, "content-type": "text/plain" }))).toBe("rest_cross_site_write");
    const listed = refuseCrossSiteWrites(loadConfig({ CORS_ORIGINS: elsewhere, CALENDAR_ADMIN_TOKEN: "x".repeat(32) }));
    expect(
      outcome(listed, request("POST", { ...cors, origin: elsewhere, "content-type": "text/plain" })),
    ).toBeUndefined();
  });

  it("without fetch metadata, are refused by their Origin when the body is simple", () => {
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"])
      expect(outcome(refuse, request("POST", { origin: elsewhere, "content-type": type }))).toBe(
        "rest_cross_site_write",
      );
    expect(outcome(refuse, request("POST", { origin: elsewhere }))).toBe("rest_cross_site_write");
    for (const type of ["application/json", "application/x-text/plain"])
      expect(outcome(refuse, request("POST", { origin: elsewhere, "content-type": type }))).toBeUndefined();
    expect(
      outcome(refuse, request("POST", { origin: "https://calendar.example.org", "content-type": "text/plain" })),
    ).toBeUndefined();
    const listed = refuseCrossSiteWrites(loadConfig({ CORS_ORIGINS: elsewhere, CALENDAR_ADMIN_TOKEN: "x".repeat(32) }));
    expect(outcome(listed, request("POST", { origin: elsewhere, "content-type": "text/plain" }))).toBeUndefined();
  });
});

describe("JSONP callbacks", () => {
  const sent: string[] = [];
  const headers: Record<string, string> = {};
  const response = (): Partial<Response> => {
    const res: Partial<Response> = {};
    res.type = ((type: string) => ((headers["content-type"] = type), res)) as Response["type"];
    res.setHeader = ((name: string, value: string) => ((headers[name.toLowerCase()] = value), res)) as never;
    res.send = ((body: string) => (sent.push(body), res)) as Response["send"];
    return res;
  };

  it("wrap the answer in a call of a plain name, as a script not to be sniffed, the line separators JSON allows escaped", () => {
    const res = response();
    expect(outcome(jsonpCallbacks(true), { query: { _jsonp: "jQuery.cb_1" } }, res)).toBeUndefined();
    res.json!({ text: "a\u2028b\u2029c" });
    expect(sent.pop()).toBe('/**/jQuery.cb_1({"text":"a\\u2028b\\u2029c"})');
    expect(headers).toEqual({
      "content-type": "application/javascript; charset=utf-8",
      "x-content-type-options": "nosniff",
    });
  });

  it("refuse any other callback, or any when switched off; an empty one is none", () => {
    for (const callback of ["alert(1)", "a-b", "a b", ["a"], "x".repeat(201)])
      expect(outcome(jsonpCallbacks(true), { query: { _jsonp: callback } }, response())).toBe("rest_callback_invalid");
    expect(outcome(jsonpCallbacks(false), { query: { _jsonp: "cb" } }, response())).toBe("rest_callback_disabled");
    const res = response();
    expect(outcome(jsonpCallbacks(false), { query: { _jsonp: "" } }, res)).toBeUndefined();
    expect(res.json).toBeUndefined();
    expect([isJsonpRequest({ _jsonp: "cb" }), isJsonpRequest({ _jsonp: "" }), isJsonpRequest({})]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe("WordPress's method override", () => {
  const overridden = (method: string, query: Record<string, string>, headers: Record<string, string> = {}) => {
    const req = { method, query, headers } as Partial<Request>;
    outcome(methodOverride, req);
    return req.method;
  };

  it("makes a POST the method it names, in the query or a header", () => {
    expect(overridden("POST", { _method: "delete" })).toBe("DELETE");
    expect(overridden("POST", {}, { "x-http-method-override": " PATCH " })).toBe("PATCH");
    expect(overridden("POST", { _method: "PUT" })).toBe("PUT");
  });

  it("never makes a read a write, nor a POST a read", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(overridden(method, { _method: "DELETE" })).toBe(method);
    expect(overridden("POST", { _method: "GET" })).toBe("POST");
    expect(overridden("POST", { _method: "TRACE" })).toBe("POST");
  });
});

describe("WordPress's ?rest_route=", () => {
  const routed = (url: string, restRoot = "") => {
    const req = { url } as Partial<Request>;
    outcome(restRouteParameter(restRoot), req);
    return req.url;
  };

  it("reaches the route from the site root or index.php, with the rest of the query", () => {
    expect(routed("/?rest_route=/calendar/events/v1/events&page=2")).toBe("/calendar/events/v1/events?page=2");
    expect(routed("/index.php?rest_route=/calendar/events/v1/events")).toBe("/calendar/events/v1/events");
    expect(routed("/wp-json/?rest_route=/calendar/events/v1/tags", "/wp-json")).toBe(
      "/wp-json/calendar/events/v1/tags",
    );
    expect(routed("/wp-json?rest_route=/calendar/events/v1/tags", "/wp-json")).toBe("/wp-json/calendar/events/v1/tags");
  });

  it("leaves any other address as it is", () => {
    for (const url of [
      "/calendar/events/v1/events?rest_route=/calendar/events/v1/tags",
      "/other.php?rest_route=/calendar/events/v1/tags",
      "/?rest_route=calendar/events/v1/tags",
      "/?page=2",
      "/",
    ])
      expect(routed(url)).toBe(url);
  });
});

describe("a write's fields in the query string", () => {
  const withQueryFields = (req: Partial<Request>) => (outcome(queryFieldsOfWrites, req), req);

  it("join the body's, the body winning; a write without a body is a form of them", () => {
    const joined = withQueryFields({
      method: "POST",
      query: { title: "From the query", featured: "1", _method: "PATCH", password: "x", _jsonp: "cb" },
      headers: { "content-type": "application/json", "content-length": "20" },
      body: { title: "From the body" },
    });
    expect(joined.body).toEqual({ title: "From the body", featured: "1" });
    const bodyless = withQueryFields({ method: "PUT", query: { title: "Only" }, headers: {} });
    expect([bodyless.body, bodyless.headers!["content-type"]]).toEqual([
      { title: "Only" },
      "application/x-www-form-urlencoded",
    ]);
  });

  it("are WordPress's global parameters and the query parameters of writes, never fields", () => {
    const names = [
      "_method",
      "_fields",
      "_envelope",
      "_jsonp",
      "_embed",
      "_",
      "context",
      "rest_route",
      "i18n_language",
      "password",
      "force",
    ];
    const joined = withQueryFields({
      method: "PATCH",
      query: Object.fromEntries(names.map((name) => [name, "x"])),
      headers: { "content-type": "application/json", "content-length": "2" },
      body: {},
    });
    expect(joined.body).toEqual({});
  });

  it("make a form only of a write that sends no body at all", () => {
    const chunked = withQueryFields({
      method: "POST",
      query: { title: "x" },
      headers: { "transfer-encoding": "chunked" },
      body: {},
    });
    expect([chunked.headers!["content-type"], chunked.body]).toEqual([undefined, { title: "x" }]);
    const typed = withQueryFields({
      method: "POST",
      query: { title: "x" },
      headers: { "content-type": "text/plain" },
      body: "raw",
    });
    expect([typed.headers!["content-type"], typed.body]).toEqual(["text/plain", "raw"]);
    const announced = withQueryFields({ method: "POST", query: { title: "x" }, headers: { "content-length": "5" } });
    expect(announced.body).toBeUndefined();
    const nothing = withQueryFields({ method: "POST", query: {}, headers: {} });
    expect([nothing.headers!["content-type"], nothing.body]).toEqual([undefined, undefined]);
  });

  it("are left out of reads, and of a body that is no object", () => {
    expect(
      withQueryFields({ method: "GET", query: { title: "x" }, headers: {}, body: undefined }).body,
    ).toBeUndefined();
    const list = withQueryFields({
      method: "POST",
      query: { title: "x" },
      headers: { "content-type": "application/json", "content-length": "2" },
      body: [1],
    });
    expect(list.body).toEqual([1]);
  });
});

describe("the warm-up's mark", () => {
  it("is this process's secret, and nothing else", () => {
    expect(WARM_UP_HEADER).toBe("x-calendar-warm-up");
    expect(isWarmUpMessage({ "x-calendar-warm-up": WARM_UP_SECRET })).toBe(true);
    for (const value of ["", "1", "true", WARM_UP_SECRET.toUpperCase(), [WARM_UP_SECRET], undefined])
      expect(isWarmUpMessage({ [WARM_UP_HEADER]: value as string })).toBe(false);
  });

  it("spends none of the loopback's requests under the rate limit; a mark of another value does", () => {
    const limit = rateLimit(2, () => 0);
    const from = (headers: Record<string, string>) =>
      ({ ...request("GET", headers), ip: "127.0.0.1" }) as Partial<Request>;
    const headersSent = { setHeader: () => undefined } as unknown as Partial<Response>;
    for (let i = 0; i < 5; i += 1)
      expect(outcome(limit, from({ [WARM_UP_HEADER]: WARM_UP_SECRET }), headersSent)).toBeUndefined();
    expect(outcome(limit, from({ [WARM_UP_HEADER]: "1" }), headersSent)).toBeUndefined();
    expect(outcome(limit, from({}), headersSent)).toBeUndefined();
    expect(outcome(limit, from({}), headersSent)).toBe("rest_too_many_requests");
  });
});

describe("secret parameters", () => {
  it("are known in every form the query parser reads", () => {
    for (const name of ["password", "Password", " password", "password[]", "password[0]", "password[a][b]"])
      expect([name, isSecretParameter(name)]).toEqual([name, true]);
    for (const name of ["passwords", "pass", "post_password"])
      expect([name, isSecretParameter(name)]).toEqual([name, false]);
  });

  it("are redacted from URLs, inside rest_route too, and the rest is left as it was", () => {
    expect(redactUrl("/events?password=hunter2&page=2")).toBe("/events?password=%5Bredacted%5D&page=2");
    expect(redactUrl("/events?PASSWORD%5B%5D=hunter2")).toBe("/events?PASSWORD%5B%5D=%5Bredacted%5D");
    expect(redactUrl("/?rest_route=/calendar/events/v1/events%3Fpassword%3Dhunter2")).not.toContain("hunter2");
    expect(redactUrl("/events?search=a+b&page=2")).toBe("/events?search=a+b&page=2");
    // Only rest_route's value is read as an address; others are left as written, however they are encoded.
    expect(redactUrl("/events?search=%3Fpassword%3Dx")).toBe("/events?search=%3Fpassword%3Dx");
    expect(redactUrl("/events?search=a%20b")).toBe("/events?search=a%20b");
    expect(redactUrl("/events")).toBe("/events");
  });
});

describe("the outbound guard", () => {
  const closed = { allowPrivate: false, setting: "X_ALLOW_PRIVATE" };
  const open = { allowPrivate: true, setting: "X_ALLOW_PRIVATE" };

  it("refuses special-purpose addresses always, the operator's own networks unless allowed", () => {
    for (const address of ["169.254.169.254", "0.0.0.0", "255.255.255.255", "224.0.0.1", "fe80::1"])
      expect([address, refusedAddress(address, open)]).toEqual([address, expect.stringMatching(/never reached/)]);
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "192.168.0.1",
      "100.64.0.1",
      "::1",
      "::ffff:127.0.0.1",
      "fd00::1",
    ]) {
      expect([address, refusedAddress(address, closed)]).toEqual([address, expect.stringMatching(/X_ALLOW_PRIVATE/)]);
      expect([address, refusedAddress(address, open)]).toEqual([address, null]);
    }
    for (const address of ["64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "3fff::1"])
      expect([address, refusedAddress(address, open)]).not.toEqual([address, null]);
    expect(refusedAddress("93.184.215.14", closed)).toBeNull();
    expect(refusedAddress("2606:2800:21f:cb07:6820:80da:af6b:8b2c", closed)).toBeNull();
  });

  it("allows http(s) URLs without credentials whose literal address may be reached", () => {
    expect(allowedUrl("https://feeds.example.org/a.ics", closed)).toBe(true);
    for (const url of [
      "ftp://feeds.example.org/a.ics",
      "https://user:pw@feeds.example.org/a.ics",
      "https://user@feeds.example.org/a.ics",
      "http://169.254.169.254/latest",
      "http://[::1]/",
      "not a url",
    ])
      expect([url, allowedUrl(url, closed)]).toEqual([url, false]);
    expect(allowedUrl("http://127.0.0.1:8080/a.ics", open)).toBe(true);
  });
});

describe("the outbound guard's addresses of a URL", () => {
  const closed = { allowPrivate: false, setting: "X_ALLOW_PRIVATE" };
  const open = { allowPrivate: true, setting: "X_ALLOW_PRIVATE" };

  it("refuses other schemes, credentials and refused addresses, by name or literal", async () => {
    for (const url of [
      "ftp://example.org/",
      "https://u:p@example.org/",
      "https://u@example.org/",
      "https://:p@example.org/",
    ])
      await expect(allowedAddresses(new URL(url), open)).rejects.toThrow(/^refused: /);
    await expect(allowedAddresses(new URL("http://169.254.169.254/"), open)).rejects.toThrow(/never reached/);
    await expect(allowedAddresses(new URL("http://localhost/"), closed)).rejects.toThrow(/X_ALLOW_PRIVATE/);
    await expect(allowedAddresses(new URL("http://[::1]/"), closed)).rejects.toThrow(/X_ALLOW_PRIVATE/);
  });

  it("gives the addresses it may reach, to be pinned for the connection", async () => {
    expect(await allowedAddresses(new URL("http://127.0.0.1:8080/"), open)).toEqual([
      { address: "127.0.0.1", family: 4 },
    ]);
    expect(await allowedAddresses(new URL("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/"), closed)).toEqual([
      { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
    ]);
    const resolved = await resolveWithin(new URL("http://localhost/"), open, 5000);
    expect(resolved.length).toBeGreaterThan(0);
    for (const { address } of resolved) expect(["127.0.0.1", "::1"]).toContain(address);
    const pinned = { address: "127.0.0.1", family: 4 };
    const lookup = pinnedLookup(pinned) as unknown as (
      host: string,
      options: object,
      done: (...args: unknown[]) => void,
    ) => void;
    const answers: unknown[][] = [];
    lookup("anything", { all: true }, (...args: unknown[]) => answers.push(args));
    lookup("anything", {}, (...args: unknown[]) => answers.push(args));
    expect(answers).toEqual([
      [null, [pinned]],
      [null, "127.0.0.1", 4],
    ]);
  });
});

describe("an RFC 5545 line's values", () => {
  it("are counted after its name and parameters, a quoted colon or comma not ending them", () => {
    expect(contentLineValueCount("EXDATE:20270101T100000Z")).toBe(1);
    expect(contentLineValueCount("EXDATE;TZID=Europe/Lisbon:20270101T100000,20270108T100000,20270115T100000")).toBe(3);
    expect(contentLineValueCount('RDATE;X-NOTE="a,b:c":20270101,20270102')).toBe(2);
    expect(contentLineValueCount('RDATE;X-NOTE="a:b,c":20270101')).toBe(1);
    expect(contentLineValueCount("RDATE;VALUE=DATE:")).toBe(1);
    expect([MAX_RDATES, MAX_EXDATES, MAX_ZONE_DATES]).toEqual([366, 730, 1000]);
  });
});
