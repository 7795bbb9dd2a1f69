// The API document's examples run as they are written (issue 59): on a fresh instance seeded with
// `npm run seed:examples`, every operation, sent with every example its parameters and body give
// (as contract-testing tools' example phases send them, all at once), is answered 2xx, and the
// answer matches the document (the test server validates every response). Writes that delete run
// last. Then each link of a create's answer (the document's `links`) reaches its operation.
import { seedExamples } from "../scripts/seed-examples";
import { resolveRef } from "./support/spec-requests";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "./support/test-server";
import bundled from "../generated/openapi.json";

type Json = Record<string, any>;
const document = bundled as Json;

const resolve = (node: Json): Json => resolveRef(document, node);

interface ExampleRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

function exampleOf(parameter: Json): unknown {
  if (parameter.example !== undefined) return parameter.example;
  if (parameter.examples) return resolve(Object.values(parameter.examples)[0] as Json).value;
  return parameter.schema ? resolve(parameter.schema).example : undefined;
}

/** An operation's request, every parameter with an example given it, as form style writes them. */
function requestOf(path: string, method: string, item: Json, operation: Json): ExampleRequest {
  const query = new URLSearchParams();
  const headers: Record<string, string> = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  let address = path;
  for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve)) {
    const value = exampleOf(parameter);
    if (value === undefined) continue;
    if (parameter.in === "path") address = address.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    else if (parameter.in === "header") headers[parameter.name] = String(value);
    else if (Array.isArray(value) && parameter.explode !== false)
      for (const each of value) query.append(parameter.name, String(each));
    else query.append(parameter.name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const content = operation.requestBody ? resolve(operation.requestBody).content?.["application/json"] : undefined;
  const body = content ? (content.example ?? resolve(content.schema).example) : undefined;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const search = query.toString();
  return {
    name: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path: `${address}${search ? `?${search}` : ""}`,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

const requests: ExampleRequest[] = Object.entries(document.paths as Json).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => requestOf(path, method, item, item[method])),
);
// Deletes last, by slug before by id (they name different items: seed-examples.ts).
const order = (request: ExampleRequest) =>
  request.method === "DELETE" ? (request.path.includes("by-slug") ? 1 : 2) : 0;
requests.sort((a, b) => order(a) - order(b));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_DELIVERY: "false" });
  await seedExamples(server.origin, ADMIN_TOKEN);
}, 60_000);
afterAll(() => server.close());

const address = (path: string) =>
  path.startsWith("/healthz") || path.startsWith("/readyz") || path.startsWith("/metrics")
    ? path
    : `/calendar/events/v1${path}`;

it("every operation's examples are answered 2xx on a seeded instance, and the answer matches the document", async () => {
  const answers: Array<[string, number, string]> = [];
  for (const request of requests) {
    const response = await server.raw(request.method, address(request.path), {
      headers: request.headers,
      rawBody: request.body,
    });
    answers.push([
      request.name,
      response.status,
      response.status >= 300 ? JSON.stringify(response.body).slice(0, 200) : "",
    ]);
  }
  expect(answers.filter(([, status]) => status < 200 || status >= 300)).toEqual([]);
  expect(answers.length).toBe(requests.length);
}, 120_000);

it("a create's links reach the operations they name, with the values they take from its answer", async () => {
  const creates = requests.filter(
    (request) =>
      request.method === "POST" &&
      /^\/(events|venues|organizers|categories|tags|webhooks|imports)$/.test(request.path.split("?")[0]),
  );
  expect(creates.length).toBe(7);
  const operations = new Map<string, { path: string; method: string }>();
  for (const [path, item] of Object.entries(document.paths as Json))
    for (const method of METHODS) if (item[method]) operations.set(item[method].operationId, { path, method });
  for (const create of creates) {
    // The examples made their items in the test above: a term's name is taken now.
    const body = JSON.parse(create.body!) as Json;
    if (typeof body.name === "string") body.name += " (again)";
    const made = await server.raw("POST", address(create.path), { headers: create.headers, body });
    expect([create.name, made.status]).toEqual([create.name, 201]);
    const links = (document.paths as Json)[create.path.split("?")[0]].post.responses["201"].links as Json;
    for (const link of Object.values(links).map(resolve)) {
      const target = operations.get(link.operationId)!;
      expect(target).toBeDefined();
      // GET the linked item, or HEAD-free reads of it: writes are checked to exist, not sent.
      let path = target.path;
      for (const [name, expression] of Object.entries(link.parameters as Record<string, string>)) {
        const field = expression.replace("$response.body#/", "");
        expect(made.body[field]).toBeDefined();
        path = path.replace(`{${name}}`, encodeURIComponent(String(made.body[field])));
      }
      expect(path).not.toContain("{");
      if (target.method === "get") {
        const read = await server.raw("GET", address(path), { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
        expect([link.operationId, read.status]).toEqual([link.operationId, 200]);
      }
    }
  }
}, 60_000);
