// OpenTelemetry tracing (issue 31): off unless OTEL_* variables ask for it; on, each request is a
// server span named after the operation's route (its operationId beside it), continuing the
// caller's trace (W3C traceparent), with the database's statements as child spans on PostgreSQL
// (the pg instrumentation). Spans still buffered are sent when the service stops.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tracingWanted } from "../src/tracing/tracing";
import { startServiceProcess } from "./support/service-process";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "./support/test-database";

jest.setTimeout(60_000);

describe("whether tracing is on", () => {
  it("is off by default, on with an exporter or an OTLP endpoint, off again with OTEL_SDK_DISABLED or the exporter none", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted(endpoint)).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: "console" })).toBe(true);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: "false" })).toBe(true);
  });
});

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number>;
  service: string;
}

/** An OTLP/HTTP (JSON) collector on loopback, keeping every span it is sent. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; paths: Set<string>; server: Server }> {
  const spans: ExportedSpan[] = [];
  const paths = new Set<string>();
  const valueOf = (value: Record<string, unknown>) =>
    (value.stringValue ?? Number(value.intValue ?? value.doubleValue)) as string | number;
  const attributes = (list: Array<{ key: string; value: Record<string, unknown> }> = []) =>
    Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
  const server = createServer((req, res) => {
    paths.add(req.url!);
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      for (const resourceSpans of req.url === "/v1/traces" ? JSON.parse(body).resourceSpans : []) {
        const service = String(attributes(resourceSpans.resource.attributes)["service.name"]);
        for (const scope of resourceSpans.scopeSpans)
          for (const span of scope.spans)
            spans.push({ ...span, attributes: attributes(span.attributes), service } as ExportedSpan);
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths, server };
}

const SERVER_KIND = 2;

describe("with an OTLP endpoint", () => {
  let database: TestDatabase;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  afterAll(async () => {
    await database?.drop();
    collector?.server.close();
  });

  it("sends a span per request, named after its route, in the caller's trace; probes are not traced; buffered spans go at the stop", async () => {
    database = await createTestDatabase();
    collector = await startCollector();
    const service = await startServiceProcess({
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "calendar-under-test",
      // The stop waits this long for the test's idle keep-alive connections (docs/operating.md, draining).
      SHUTDOWN_GRACE_SECONDS: "1",
      // Nothing is sent before the stop: what arrives was flushed by it.
      OTEL_BSP_SCHEDULE_DELAY: "600000",
    });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const caller = `00-${traceId}-00f067aa0ba902b7-01`;
    const missing = await fetch(`${service.base}/events/987654`, { headers: { traceparent: caller } });
    const listed = await fetch(`${service.origin}/es/calendar/events/v1/events?per_page=1`);
    const health = await fetch(`${service.origin}/healthz`);
    expect([missing.status, listed.status, health.status]).toEqual([404, 200, 200]);
    expect(collector.spans).toEqual([]);
    expect(await service.stop()).toBe(0);

    // Traces only: metrics are /metrics' and logs stdout's (the SDK would otherwise send both too).
    expect([...collector.paths]).toEqual(["/v1/traces"]);
    const servers = collector.spans.filter((span) => span.kind === SERVER_KIND);
    expect(servers.map((span) => span.name).sort()).toEqual([
      "GET /calendar/events/v1/events",
      "GET /calendar/events/v1/events/{id}",
    ]);
    const read = servers.find((span) => span.name.endsWith("{id}"))!;
    expect(read).toMatchObject({
      traceId,
      parentSpanId: "00f067aa0ba902b7",
      service: "calendar-under-test",
      attributes: {
        "http.route": "/calendar/events/v1/events/{id}",
        "http.response.status_code": 404,
        "calendar.operation_id": "getEvent",
      },
    });
    const list = servers.find((span) => !span.name.endsWith("{id}"))!;
    expect(list.attributes["calendar.operation_id"]).toBe("listEvents");
    expect(list.traceId).not.toBe(traceId);
    expect(collector.spans.some((span) => String(span.attributes["url.path"]).startsWith("/healthz"))).toBe(false);
    // Express: the handlers, not the middleware every request passes.
    const layers = collector.spans.map((span) => span.attributes["express.type"]).filter(Boolean);
    expect([...new Set(layers)]).toEqual(["request_handler"]);

    if (testDatabaseProvider() === "postgresql") {
      // The statements of the list, children (at some depth) of its server span.
      const ofList = collector.spans.filter((span) => span.traceId === list.traceId && span !== list);
      const statements = ofList.filter((span) => span.attributes["db.system.name"] ?? span.attributes["db.system"]);
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.map((span) => span.attributes["db.system.name"] ?? span.attributes["db.system"])).toContain(
        "postgresql",
      );
    }
  });
});
