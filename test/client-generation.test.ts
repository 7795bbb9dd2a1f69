// A third party can generate a client from /doc, as the README shows: openapi-typescript run on
// the document the service serves gives exactly the types this repository generates from
// openapi/, which the whole suite uses through openapi-fetch (test/support/test-server.ts).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "./support/test-server";

const run = promisify(execFile);
const CLI = resolve(__dirname, "../node_modules/.bin/openapi-typescript");

let server: TestServer;
let scratch: string;
beforeAll(async () => {
  server = await startTestServer();
  scratch = mkdtempSync(join(tmpdir(), "calendar-client-"));
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await server.close();
});

it("generates, from the document /doc serves, the same types the tests call the service with", async () => {
  const output = join(scratch, "calendar-api.d.ts");
  // Run outside the repository, as a client would: no configuration of ours is picked up.
  await run(CLI, [`${server.base}/doc`, "-o", output], { cwd: scratch, timeout: 60_000 });
  expect(readFileSync(output, "utf8")).toBe(readFileSync(resolve(__dirname, "../generated/api-types.ts"), "utf8"));
}, 90_000);

it("serves a document whose types work with openapi-fetch against the service", async () => {
  const { data, error, response } = await server.api.GET("/events", {
    params: { query: { per_page: 5, search: "jazz" } },
  });
  expect(error).toBeUndefined();
  expect(response.status).toBe(200);
  expect(data).toMatchObject({ events: [], total: 0 });
});
