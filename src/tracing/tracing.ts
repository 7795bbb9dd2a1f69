import { isWarmUpMessage } from "../http/warm-up-marker";

/**
 * Optional OpenTelemetry tracing, off unless the standard `OTEL_*` variables ask for it: an
 * exporter (`OTEL_TRACES_EXPORTER`, other than `none`) or an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true`
 * turns it off whatever else is set. The SDK reads every other `OTEL_*` variable itself (protocol,
 * headers, sampler, resource attributes, batch delays). Off, nothing of the SDK is loaded.
 *
 * It must start before anything else is loaded: the instrumentations patch `http`, `express` and
 * `pg` as they are first required (server.ts imports this module first, for that reason).
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = traceExportersOf(env);
  // An exporter the SDK does not know is the configuration's error (config.ts says so in one line).
  if (exporters === "unknown") return false;
  if (exporters.length > 0) return !exporters.includes("none");
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The values of OTEL_TRACES_EXPORTER the SDK acts on (a comma-separated list). */
export const TRACE_EXPORTERS = ["otlp", "zipkin", "console", "none"];

/** The exporters OTEL_TRACES_EXPORTER names (none when unset), or "unknown" when it names one the SDK does not have. */
export function traceExportersOf(env: NodeJS.ProcessEnv): string[] | "unknown" {
  const names = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  return names.every((name) => TRACE_EXPORTERS.includes(name)) ? names : "unknown";
}

/** Probes are polled every few seconds by orchestrators and scrapers: not traced; nor is the warm-up. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export interface Tracing {
  /** Sends the spans still buffered and stops. */
  stop(): Promise<void>;
}

/** Whether this process traces: OpenTelemetry's parts are loaded only then (40–60 ms of a start-up). */
let started = false;

type OpenTelemetry = typeof import("@opentelemetry/api") & typeof import("@opentelemetry/core");
let loaded: OpenTelemetry | undefined;
const openTelemetry = (): OpenTelemetry =>
  (loaded ??= {
    ...(require("@opentelemetry/api") as typeof import("@opentelemetry/api")),
    ...(require("@opentelemetry/core") as typeof import("@opentelemetry/core")),
  });

export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (!tracingWanted(env)) return null;
  started = true;
  // Required here, not imported: a service without tracing loads none of it.
  const { NodeSDK } = require("@opentelemetry/sdk-node") as typeof import("@opentelemetry/sdk-node");
  const { HttpInstrumentation } =
    require("@opentelemetry/instrumentation-http") as typeof import("@opentelemetry/instrumentation-http");
  const { ExpressInstrumentation, ExpressLayerType } =
    require("@opentelemetry/instrumentation-express") as typeof import("@opentelemetry/instrumentation-express");
  const { PgInstrumentation } =
    require("@opentelemetry/instrumentation-pg") as typeof import("@opentelemetry/instrumentation-pg");
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "calendar-events-service",
    // Traces only: metrics are /metrics' and logs go to stdout. Left to the SDK's defaults, it would
    // also export both over OTLP, and its stop would wait ~8 s on a collector that takes only traces.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          UNTRACED_PATHS.has((request.url ?? "").split("?")[0]!) || isWarmUpMessage(request.headers),
      }),
      // A span for each of the ~30 middleware a request passes would bury the handler's and the database's.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { stop: () => sdk.shutdown() };
}

/**
 * Names the request's server span after the operation that answers it: `GET
 * /calendar/events/v1/events/{id}` with `http.route`, and the spec's `operationId` as an
 * attribute. Without tracing, there is no such record, and nothing is done.
 */
export function nameRequestSpan(route: string, operationId: string): void {
  if (!started) return;
  // The HTTP instrumentation's record of the request under way: it names the span after `route`.
  const { context, getRPCMetadata, RPCType } = openTelemetry();
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type !== RPCType.HTTP) return;
  metadata.route = route;
  metadata.span.setAttribute("calendar.operation_id", operationId);
}

/** Runs `work` with tracing suppressed: requests it sends are no one's. */
export function untraced<T>(work: () => Promise<T>): Promise<T> {
  if (!started) return work();
  const { context, suppressTracing } = openTelemetry();
  return context.with(suppressTracing(context.active()), work);
}
