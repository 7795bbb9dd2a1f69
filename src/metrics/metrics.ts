import type { Request, Response } from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Database } from "../db/database";

/**
 * What an operator sees at `/metrics` (Prometheus text): request durations by operation and
 * status (OpenTelemetry's `http.server.request.duration`, in Prometheus' spelling), Node's own
 * (event-loop lag, heap, garbage collection, CPU), the database pool, the representation cache,
 * and the webhooks' queues. One set per app: tests start several in one process.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP server requests, by operation (the spec's operationId; unmatched for no route), method and status",
    labelNames: ["operation", "method", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly representationLookups = new Counter({
    name: "calendar_representation_cache_lookups_total",
    help: "Lookups of representations kept for anonymous readers, by result (hit, miss)",
    labelNames: ["result"],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: "calendar_webhook_delivery_attempts_total",
    help: "Attempts to deliver a notification, by result (delivered; retry: to be sent again; failed: given up; gone: the receiver answered 410, its subscription was deleted)",
    labelNames: ["result"],
    registers: [this.registry],
  });

  readonly importRuns = new Counter({
    name: "calendar_import_runs_total",
    help: "Runs of import sources made by the schedule, by status (succeeded: the feed was read, or not modified; failed: it could not be fetched or read)",
    labelNames: ["status"],
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    collectDefaultMetrics({ register: this.registry });
    const { db, webhookQueues } = sources;
    const cacheBytes = () => this.cache?.heldBytes ?? 0;
    new Gauge({
      name: "calendar_db_pool_connections",
      help: "PostgreSQL connections of this process's pool, by state (idle, busy, waiting: requests waiting for one); none on SQLite",
      labelNames: ["state"],
      registers: [this.registry],
      collect() {
        const use = db.poolUse();
        if (!use) return;
        this.set({ state: "idle" }, use.idle);
        this.set({ state: "busy" }, use.total - use.idle);
        this.set({ state: "waiting" }, use.waiting);
      },
    });
    if (db.poolUse() !== null)
      new Gauge({
        name: "calendar_db_pool_max_connections",
        help: "The most connections this process's pool opens (DATABASE_POOL_SIZE)",
        registers: [this.registry],
        collect() {
          this.set(db.poolUse()!.max);
        },
      });
    new Gauge({
      name: "calendar_representation_cache_bytes",
      help: "Bytes of representations kept for anonymous readers (REPRESENTATION_CACHE_MB bounds them)",
      registers: [this.registry],
      collect() {
        this.set(cacheBytes());
      },
    });
    const queues = new Gauge({
      name: "calendar_webhook_queue",
      help: "Webhook work waiting, by queue: changes of the change log not yet turned into notifications (change_log), notifications not yet delivered (deliveries)",
      labelNames: ["queue"],
      registers: [this.registry],
      // Every worker reads the same database: a cluster's figure is one worker's, not their sum.
      aggregator: "first",
      async collect() {
        // With the database away, the last figures stay; the rest of the page is still served.
        const depths = await webhookQueues().catch(() => null);
        if (!depths) return;
        queues.set({ queue: "change_log" }, depths.changes);
        queues.set({ queue: "deliveries" }, depths.deliveries);
      },
    });
  }

  private cache: { heldBytes: number } | null = null;

  /** Whose bytes `calendar_representation_cache_bytes` shows. */
  observeCache(cache: { heldBytes: number }): void {
    this.cache = cache;
  }

  /**
   * Records a request's duration (timed by the request log), labelled with the operation that
   * answered it (the router's `res.locals.operationId`) or that the validator matched (a request it
   * refused).
   */
  observeRequest(req: Request, res: Response, seconds: number, matched: (req: Request) => string | undefined): void {
    const operation = (res.locals.operationId as string | undefined) ?? matched(req) ?? "unmatched";
    this.requestDuration.observe({ operation, method: req.method, status: String(res.statusCode) }, seconds);
  }
}

export interface MetricSources {
  db: Pick<Database, "poolUse">;
  webhookQueues: () => Promise<{ changes: number; deliveries: number }>;
}
