// Spec-driven fuzzing: for every operation of the namespace, requests generated from the OpenAPI
// document (test/support/spec-requests.ts), valid and hostile, anonymous and as the
// administrator. Whatever comes in, the answer is never a 5xx, always matches the spec (the
// test server validates every response against it: a mismatch would be a 500), and every error
// is in the documented envelope. Fixed seed; FUZZ_RUNS requests per operation and credential
// (`npm run fuzz` runs many more).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { requestsFor, specOperations, type GeneratedRequest } from "./support/spec-requests";
import { everyOperationHolds } from "./support/spec-properties";
import { ADMIN_HEADERS, startTestServer, type TestServer } from "./support/test-server";

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const document = JSON.parse(readFileSync(resolve(__dirname, "../generated/openapi.json"), "utf8"));
jest.setTimeout(Math.max(30_000, RUNS * 2_000));
const operations = specOperations(document);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // Items for the ids the generator tries (1 to 7; the spec's examples name ids up to 7), so
  // that reads and writes reach the handlers.
  for (let i = 1; i <= 7; i += 1) {
    const create = async (collection: string, body: Record<string, unknown>) => {
      const response = await server.raw("POST", `/calendar/events/v1/${collection}`, { body, headers: ADMIN_HEADERS });
      if (response.status !== 201) throw new Error(`setting up ${collection}: ${response.status} ${response.text}`);
      return response.body as { id: number };
    };
    const venue = await create("venues", { venue: `Venue ${i}` });
    const organizer = await create("organizers", { organizer: `Organizer ${i}` });
    await create("categories", { name: `Category ${i}` });
    await create("tags", { name: `Tag ${i}` });
    await create("events", {
      title: `Event ${i}`,
      start_date: "tomorrow 10:00",
      end_date: "tomorrow 12:00",
      venue: [venue.id],
      organizer: [organizer.id],
    });
  }
}, 60_000);
afterAll(() => server.close());

function describeRequest(request: GeneratedRequest): string {
  const body =
    request.body && request.body.length > 200
      ? `${request.body.slice(0, 200)}… (${request.body.length} characters)`
      : request.body;
  const path =
    request.path.length > 300 ? `${request.path.slice(0, 300)}… (${request.path.length} characters)` : request.path;
  return `${request.method} ${path} ${JSON.stringify(request.headers)} ${body ?? ""}`;
}

async function check(request: GeneratedRequest): Promise<void> {
  const response = await server.raw(request.method, `/calendar/events/v1${request.path}`, {
    headers: request.headers,
    rawBody: request.body,
  });
  const context = `${describeRequest(request)}\n→ ${response.status} ${response.text.slice(0, 500)}`;
  if (response.status >= 500) throw new Error(`server error for ${context}`);
  if (response.status >= 400) {
    const body = response.body as { code?: unknown; message?: unknown; data?: { status?: unknown } } | undefined;
    const enveloped =
      typeof body?.code === "string" && typeof body.message === "string" && body.data?.status === response.status;
    if (!enveloped) throw new Error(`error outside the envelope for ${context}`);
  }
}

everyOperationHolds(
  "generated requests",
  operations,
  (operation, authorization) => requestsFor(document, operation, authorization),
  check,
  { seed: SEED, runs: RUNS },
);
