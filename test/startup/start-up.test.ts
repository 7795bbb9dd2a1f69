// Start-up without a tax (issue 46): the warm-up's writes stop at validation; a process answers
// during its warm-up and is ready after it; the validators' shared subtrees are walked once, and
// still when they name an identifier; their shared references are compiled once, for the roots
// that share them only; the document validation gets has no responses, and its bodies and
// responses in place of their references; a start on SQLite loads no PostgreSQL driver and no
// tracing; `npm start` builds only what changed.
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  copyFileSync,
  existsSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import AjvDraft4 from "ajv-draft-04";
import { createHttpServer } from "../../src/http/server-limits";
import { warmUp } from "../../src/http/warm-up";
import { WARM_UP_HEADER, WARM_UP_SECRET } from "../../src/http/warm-up-marker";
import Ajv2020 from "ajv/dist/2020";
import { requestDocument, withBodyReferencesResolved } from "../../src/openapi/request-document";
import { compileSharedRefsOnce, walkSharedSubtreesOnce } from "../../src/openapi/shared-schema-refs";
import { loadBundledSpec, pointer } from "../../src/openapi/spec";
import { startServiceProcess } from "../support/service-process";
import { startTestServer, type TestServer } from "../support/test-server";

describe("the warm-up", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const warm = { [WARM_UP_HEADER]: WARM_UP_SECRET };
  const when = { start_date: "2027-03-01 10:00:00", end_date: "2027-03-01 12:00:00" };

  it("goes as far as validation and no further, whoever may call the operation", async () => {
    const ns = "/calendar/events/v1";
    const created = await server.raw("POST", `${ns}/events`, {
      body: { title: "Never written", ...when },
      headers: warm,
    });
    expect(created.status).toBe(204);
    expect(created.text).toBe("");
    // Validation answers as it does any caller's.
    const invalid = await server.raw("POST", `${ns}/events`, {
      body: { title: "Bad", ...when, featured: "maybe" },
      headers: warm,
    });
    expect([invalid.status, invalid.body.code]).toEqual([400, "rest_invalid_param"]);
    for (const [method, path, body] of [
      ["POST", `${ns}/venues`, { venue: "Never a venue" }],
      ["POST", `${ns}/tags`, { name: "Never a tag" }],
      ["POST", `${ns}/webhooks`, { url: "https://hooks.example.org/x", event_types: ["tag.created"] }],
    ] as const)
      expect((await server.raw(method, path, { body, headers: warm })).status).toBe(204);
    expect(
      await Promise.all([
        server.db.read.event.count(),
        server.db.read.venue.count(),
        server.db.read.term.count(),
        server.db.read.webhookSubscription.count(),
      ]),
    ).toEqual([0, 0, 0, 0]);
  });

  it("stops at nothing without this process's secret: it is then anyone's write", async () => {
    const ns = "/calendar/events/v1";
    for (const value of ["1", "true", WARM_UP_SECRET.toUpperCase()]) {
      const answer = await server.raw("POST", `${ns}/events`, {
        body: { title: "Anonymous", ...when },
        headers: { [WARM_UP_HEADER]: value },
      });
      expect([answer.status, answer.body.code]).toEqual([401, "rest_forbidden"]);
    }
    expect(await server.db.read.event.count()).toBe(0);
  });

  it("answers requests at once, and says it is not ready until its warm-up is done", async () => {
    const warming = warmUp(server.app, (app) => createHttpServer(app, server.config));
    const [ready, list] = await Promise.all([
      server.raw("GET", "/readyz"),
      server.raw("GET", "/calendar/events/v1/events"),
    ]);
    expect([ready.status, ready.body.code, list.status]).toEqual([503, "rest_not_ready", 200]);
    expect((await warming).requests).toBeGreaterThan(70);
    expect((await server.raw("GET", "/readyz")).status).toBe(200);
  });
});

describe("the validators' shared subtrees", () => {
  it("are walked for identifiers still when they name one", () => {
    walkSharedSubtreesOnce();
    const ajv = new AjvDraft4({ strict: false });
    const validate = ajv.compile({
      paths: {},
      components: { schemas: { Named: { id: "https://schemas.example.test/named", type: "string" } } },
      properties: { value: { $ref: "https://schemas.example.test/named" } },
    });
    expect([validate({ value: "text" }), validate({ value: 5 })]).toEqual([true, false]);
  });
});

describe("the validators' shared references", () => {
  it("are compiled once for the roots that share the document's subtrees, and only for those", () => {
    compileSharedRefsOnce();
    const ajv = new Ajv2020({ strict: false, code: { source: true } });
    const paths = {};
    const components = {
      schemas: {
        Count: { type: "integer", minimum: 1 },
        Pair: { type: "array", items: { $ref: "#/components/schemas/Count" } },
      },
    };
    const root = (key: string, ofComponents: object) =>
      ajv.compile({
        $id: key,
        paths,
        components: ofComponents,
        properties: { value: { $ref: "#/components/schemas/Pair" } },
      });
    const first = root("first", components);
    const second = root("second", components);
    expect([first({ value: [1, 2] }), first({ value: [0] }), second({ value: [3] }), second({ value: ["x"] })]).toEqual(
      [true, false, true, false],
    );
    // Both roots call one compiled Pair (the functions a validator calls are in its source's scope).
    const pairOf = (validate: typeof first) =>
      [...((validate as unknown as CompiledSource).source.scopeValues.validate ?? [])].map((name) => name.value.ref);
    expect(pairOf(first)).toHaveLength(1);
    expect(pairOf(second)).toEqual(pairOf(first));
    // The same names in other components are other schemas.
    const other = root("other", { schemas: { Count: { type: "string" }, Pair: components.schemas.Pair } });
    expect([other({ value: ["x"] }), other({ value: [1] })]).toEqual([true, false]);
    expect(pairOf(other)[0]).not.toBe(pairOf(first)[0]);
  });
});

type CompiledSource = { source: { scopeValues: { validate?: Iterable<{ value: { ref: unknown } }> } } };

describe("the document request validation is given", () => {
  const document = requestDocument(loadBundledSpec()) as {
    paths: Record<string, Record<string, { responses?: unknown }>>;
    components: Record<string, Record<string, unknown>>;
  };

  it("has no responses, nor the components only they reach, and each of its references resolves", () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations.filter((operation) => operation.responses !== undefined)).toEqual([]);
    expect([document.components.schemas.EventCollection, document.components.responses.EventNotFound]).toEqual([
      undefined,
      undefined,
    ]);
    expect(document.components.schemas.CreateEventRequest).toBeDefined();
    expect(Object.keys(document.components.securitySchemes)).toEqual(["bearerAuth", "basicAuth"]);
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs.map((found) => found.slice(8, -1))))
      expect([ref, pointer(document as never, ref) !== undefined]).toEqual([ref, true]);
  });
});

describe("the document the validator is given", () => {
  it("has each operation's body, responses and their schemas in place of references to them, the components themselves", () => {
    const spec = loadBundledSpec();
    const document = withBodyReferencesResolved(structuredClone(spec)) as {
      paths: Record<string, Record<string, { requestBody?: Body; responses?: Record<string, Body> }>>;
    };
    type Body = { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> };
    const original = spec as typeof document;
    let bodies = 0;
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        const before = original.paths[path][method];
        const pairs: Array<[Body | undefined, Body | undefined]> = [
          [operation.requestBody, before.requestBody],
          ...Object.keys(operation.responses ?? {}).map(
            (status) => [operation.responses![status], before.responses![status]] as [Body, Body],
          ),
        ];
        for (const [body, was] of pairs) {
          if (!body) continue;
          expect([path, method, body.$ref]).toEqual([path, method, undefined]);
          for (const media of Object.values(body.content ?? {})) expect(media.schema?.$ref).toBeUndefined();
          if (was?.$ref) bodies += 1;
        }
        // What a reference pointed to is put there itself, not a copy of it.
        const schemaRef = Object.values((before.requestBody?.$ref ? undefined : before.requestBody?.content) ?? {})[0]
          ?.schema?.$ref;
        if (schemaRef)
          expect(Object.values(operation.requestBody!.content!)[0].schema).toBe(pointer(document as never, schemaRef));
      }
    // The document refers to shared bodies and responses: the check above saw some.
    expect(bodies).toBeGreaterThan(10);
  });
});

describe("what a start loads", () => {
  it("on SQLite, no PostgreSQL driver and no tracing; the markup filter by the end of the warm-up", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calendar-loaded-"));
    const list = join(dir, "modules.json");
    const recorder = join(dir, "record-modules.js");
    writeFileSync(
      recorder,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    try {
      const service = await startServiceProcess(
        { DATABASE_URL: `file:${join(dir, "calendar.db")}` },
        { nodeArgs: ["--require", recorder] },
      );
      await service.stop();
      const loaded = JSON.parse(readFileSync(list, "utf8")) as string[];
      const has = (name: string) => loaded.some((path) => path.includes(`/node_modules/${name}/`));
      expect({
        express: has("express"),
        sqlite: has("better-sqlite3"),
        pg: has("pg"),
        pgAdapter: has("@prisma/adapter-pg"),
        // prom-client loads OpenTelemetry's API itself (for its exemplars): not looked for.
        tracing: has("@opentelemetry/core") || has("@opentelemetry/sdk-node"),
        markupFilter: has("sanitize-html"),
      }).toEqual({ express: true, sqlite: true, pg: false, pgAdapter: false, tracing: false, markupFilter: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("npm start's build (scripts/build-if-changed.js)", () => {
  const root = resolve(__dirname, "../..");
  let project: string;
  const built = () => join(project, "built-marker");
  const run = () => {
    rmSync(built(), { force: true });
    const result = spawnSync(process.execPath, [join(project, "scripts/build-if-changed.js")], { cwd: root });
    expect(result.status).toBe(0);
    return existsSync(built());
  };
  const age = (path: string, secondsAgo: number) => {
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(project, path), at, at);
  };

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "calendar-build-"));
    for (const folder of ["scripts", "src", "dist"]) mkdirSync(join(project, folder));
    copyFileSync(join(root, "scripts/build-if-changed.js"), join(project, "scripts/build-if-changed.js"));
    // A stand-in for the real build: it says it ran.
    writeFileSync(
      join(project, "scripts/build.ts"),
      `require("node:fs").writeFileSync(${JSON.stringify(built())}, "");\n`,
    );
    writeFileSync(join(project, "src/server.ts"), "");
    writeFileSync(join(project, "dist/server.js"), "");
    writeFileSync(
      join(project, "dist/build-inputs.json"),
      JSON.stringify({ inputs: ["src/server.ts", "scripts/build.ts"], outputs: ["dist/server.js"] }),
    );
    age("src/server.ts", 60);
    age("scripts/build.ts", 60);
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("builds nothing when no file the last build read changed, and builds when one did or an output is gone", () => {
    expect(run()).toBe(false);
    age("src/server.ts", -5);
    expect(run()).toBe(true);
    age("src/server.ts", 60);
    expect(run()).toBe(false);
    rmSync(join(project, "dist/server.js"));
    expect(run()).toBe(true);
    writeFileSync(join(project, "dist/server.js"), "");
    rmSync(join(project, "dist/build-inputs.json"));
    expect(run()).toBe(true);
  });
});
