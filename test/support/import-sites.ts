import { ADMIN_HEADERS, startTestServer, type RawResponse, type TestServer } from "./test-server";

/**
 * What the tests of REST import sources share: instances of this service that name themselves
 * (SITE_URL `http://<name>.example`: their global ids are their own, and an item made there is
 * known), allowed to read sources on loopback, and the administrator's requests to them.
 */

export const ROOT = "/calendar/events/v1";
export const IMPORT_ENV = {
  IMPORT_ALLOW_PRIVATE_SOURCES: "true",
  IMPORT_TIMEOUT_MS: "5000",
  IMPORT_RUN_WAIT_MS: "30000",
};
/** Where a run asks a list to end (both APIs' lists end 24 months ahead by default). */
export const LIST_END = "end_date=2999-12-31+23%3A59%3A59";

/** Instances named `http://<name>.example`, one per name. */
export function startSites(names: string[]): Promise<TestServer[]> {
  return Promise.all(names.map((name) => startTestServer({ ...IMPORT_ENV, SITE_URL: `http://${name}.example` })));
}

/** The answer, once it is `status` (its body shown when it is not). */
export async function ok(response: Promise<RawResponse>, status = 200): Promise<RawResponse> {
  const answered = await response;
  expect([answered.status, answered.status === status ? "" : answered.text]).toEqual([status, ""]);
  return answered;
}

/** The administrator's request, expected to succeed (201 for a POST to a collection). */
export const admin = (server: TestServer, method: string, path: string, body?: unknown) =>
  ok(
    server.raw(method, `${ROOT}${path}`, { body, headers: ADMIN_HEADERS }),
    method === "POST" && !/\/\d+/.test(path) ? 201 : 200,
  );
