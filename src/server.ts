// First: tracing instruments the modules the others load (src/tracing/start.ts).
import { tracing } from "./tracing/start";
import cluster from "node:cluster";
import type { Server } from "node:http";
import { BRIDGES, createApp, serviceMetrics } from "./app";
import { joinClusterMetrics, serveClusterMetrics } from "./metrics/cluster-metrics";
import { ConfigError, loadConfig, type Config } from "./config";
import { openDatabase, providerOf, type Database } from "./db/database";
import { migrate, missingMigrations } from "./db/migrate";
import { createHttpServer, stopGracefully } from "./http/server-limits";
import { probePort } from "./http/port-probe";
import { warmUp } from "./http/warm-up";
import { createLogger, type Logger } from "./logging/logger";
import { publishDueItems } from "./resources/post-kernel/scheduled-publishing";
import { pruneTombstones } from "./sync/change-log-repository";
import { extendSeries } from "./resources/events/event-series";
import { reindexStaleSearchDocuments } from "./resources/events/event-repository";
import { pruneDeliveryLog, WebhookWorker } from "./resources/webhooks/webhook-worker";
import { ImportScheduler } from "./resources/imports/import-worker";
import { runDependencies } from "./resources/imports/import-operations";
import { databaseStartupMessage, portStartupMessage, shownDatabaseUrl } from "./startup-errors";
import { itemSnapshot } from "./item-snapshots";
import { pingDatabase } from "./db/availability";

/**
 * Starts the service. With WORKERS > 1, this process is the primary of a cluster: it applies the
 * migrations once, then forks the workers, which share the port, and replaces any that dies.
 * Every process stops cleanly on SIGTERM or SIGINT: no new connections, requests under way
 * finish (up to SHUTDOWN_GRACE_SECONDS), the database is closed.
 */

const PUBLISH_DUE_EVERY_MS = 60_000;
const PRUNE_SYNC_LOG_EVERY_MS = 3_600_000;

/**
 * The first SIGTERM or SIGINT starts the stop; a SIGTERM after it is ignored, for supervisors send
 * more than one (systemd's KillMode=control-group signals every process of the unit, then again
 * those left once the main one has exited, and the primary signals its workers too): left to
 * Node's default, it would cut the requests under way. A second SIGINT (Ctrl-C again) ends the
 * process at once.
 */
function onStopSignal(stop: (signal: string) => void): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stopping = true;
      stop(signal);
    } else if (signal === "SIGINT") process.exit(130);
  };
  process.on("SIGTERM", handle);
  process.on("SIGINT", handle);
}

/** A start-up failure the operator can fix: said in one line naming the setting, then exit 1. */
class StartupFailure extends Error {}

/** Runs a start-up step; a failure `describe` recognizes becomes a StartupFailure. */
async function step<T>(work: () => Promise<T>, describe: (error: unknown) => string | null): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const message = describe(error);
    throw message === null ? error : new StartupFailure(message);
  }
}

/** The database, opened as the service uses it, and found there and usable: else a StartupFailure. */
async function openUsableDatabase(config: Config): Promise<Database> {
  const db = await step(
    async () => {
      const opened = await openDatabase(config);
      // Prisma connects lazily: a first query says now whether the database is there.
      await pingDatabase(opened).catch(async (error: unknown) => {
        await opened.close();
        throw error;
      });
      return opened;
    },
    (error) => databaseStartupMessage(error, config),
  );
  const problem = await db.startupProblem();
  if (problem !== null) {
    await db.close();
    throw new StartupFailure(problem);
  }
  return db;
}

/** Serves on `opened` (the database a single process checked as it started), or on one it opens. */
async function runWorker(config: Config, logger: Logger, opened?: Database): Promise<void> {
  const db = opened ?? (await openUsableDatabase(config));
  const metrics = serviceMetrics(db);
  if (cluster.isWorker) joinClusterMetrics(metrics);
  const app = createApp({ config, db, logger, metrics });
  const server: Server = createHttpServer(app, config);
  await step(
    () =>
      new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.port, config.host, () => resolve());
      }),
    (error) => portStartupMessage(error, config),
  );
  logger.info({ port: config.port, host: config.host, database: db.provider }, "listening");
  // Requests are answered from here; /readyz answers 200 once the warm-up is done (http/warm-up.ts).
  const warming = performance.now();
  const warmedUp = warmUp(app, (warmed) => createHttpServer(warmed, config)).then(
    ({ requests }) => logger.info({ requests, durationMs: Math.round(performance.now() - warming) }, "warmed up"),
    // The process serves cold rather than not at all (and is ready: the warm-up is over).
    (err: unknown) => logger.error({ err }, "warming up failed"),
  );
  // A cluster's primary counts a worker as started from here (runPrimary).
  if (cluster.isWorker) process.send?.(WORKER_LISTENING);

  const publishDue = () =>
    publishDueItems(db, new Date())
      .then((published) => {
        if (published.events + published.venues + published.organizers > 0)
          logger.info({ published }, "scheduled items published");
      })
      .catch((err: unknown) => logger.error({ err }, "publishing scheduled items failed"));
  // Documents an instance of an earlier version writes while it still runs beside this one (an
  // upgrade's rolling restart) are in the index's earlier form, which this version's searches do
  // not find: they are written again within a minute.
  const reindexStaleSearch = () =>
    reindexStaleSearchDocuments(db)
      .then((written) => {
        if (written > 0) logger.info({ events: written }, "search documents of an earlier version written again");
      })
      .catch((err: unknown) => logger.error({ err }, "writing search documents again failed"));
  const everyMinute = () => void publishDue().then(reindexStaleSearch);
  everyMinute();
  const scheduler = setInterval(everyMinute, PUBLISH_DUE_EVERY_MS);
  scheduler.unref();
  const pruneSyncLog = () =>
    pruneTombstones(db, new Date(), config.syncRetentionDays)
      .then((pruned) => {
        if (pruned > 0) logger.info({ pruned }, "old tombstones pruned from the sync log");
      })
      .catch((err: unknown) => logger.error({ err }, "pruning the sync log failed"));
  const extendRecurrences = () =>
    extendSeries(db, new Date(), config.recurrenceHorizonDays)
      .then(({ extended, refused }) => {
        if (extended > 0) logger.info({ extended }, "recurring events extended to the horizon");
        if (refused.length > 0)
          logger.warn(
            { series: refused },
            "recurring events whose rule gives too many occurrences, or takes too long to expand, were not extended",
          );
      })
      .catch((err: unknown) => logger.error({ err }, "extending recurring events failed"));
  const pruneWebhookLog = () =>
    pruneDeliveryLog(db, new Date(), config.webhooks.logRetentionDays)
      .then((pruned) => {
        if (pruned > 0) logger.info({ pruned }, "old deliveries pruned from the webhooks' log");
      })
      .catch((err: unknown) => logger.error({ err }, "pruning the webhooks' delivery log failed"));
  const hourly = () => void pruneSyncLog().then(extendRecurrences).then(pruneWebhookLog);
  hourly();
  const pruner = setInterval(hourly, PRUNE_SYNC_LOG_EVERY_MS);
  pruner.unref();
  const webhooks = new WebhookWorker(db, config, logger, itemSnapshot, (result) =>
    metrics.webhookAttempts.inc({ result }),
  );
  if (config.webhooks.deliver) webhooks.start();
  const imports = new ImportScheduler(runDependencies({ db, config, logger, bridges: BRIDGES }), (status) =>
    metrics.importRuns.inc({ status }),
  );
  if (config.imports.schedule) imports.start();

  onStopSignal((signal) => {
    logger.info({ signal }, "stopping");
    clearInterval(scheduler);
    clearInterval(pruner);
    void Promise.all([
      stopGracefully(server, config.shutdownGraceMs, config.requestTimeoutMs),
      warmedUp,
      webhooks.stop(),
      imports.stop(),
    ]).then(async () => {
      await db.close();
      // Spans still buffered go out; an unreachable collector does not hold the stop.
      await tracing?.stop().catch(() => undefined);
      logger.info("stopped");
      process.exit(0);
    });
  });
}

const WORKER_LISTENING = "calendar:listening";
/**
 * Workers that die before they listen, this many within a minute, stop a service that has not yet
 * served: restarting them would not help (a setting, the database's address or user). Once it has
 * served, such failures are an outage (the database restarting): the workers are started again,
 * waiting longer each time, up to REPLACEMENT_WAIT_MAX_MS, so that the instance serves again when
 * the database does.
 */
const FAILED_STARTS_TOLERATED = 3;
const REPLACEMENT_WAIT_MAX_MS = 30_000;

function runPrimary(config: Config, logger: Logger): void {
  let stopping = false;
  let everListened = false;
  const listening = new Set<number>();
  const failedStarts: number[] = [];
  let exitCode = 0;
  const stopAll = (code: number) => {
    stopping = true;
    exitCode = code;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  };
  serveClusterMetrics();
  for (let i = 0; i < config.workers; i += 1) cluster.fork();
  cluster.on("message", (worker, message) => {
    if (message !== WORKER_LISTENING) return;
    listening.add(worker.id);
    everListened = true;
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        if (exitCode === 0) logger.info("stopped");
        process.exit(exitCode);
      }
      return;
    }
    let waitMs = 0;
    if (!listening.delete(worker.id)) {
      // It said why, in one line (or a stack, for a bug).
      const now = Date.now();
      failedStarts.push(now);
      while (failedStarts[0] < now - 60_000) failedStarts.shift();
      if (!everListened) return stopAll(1);
      waitMs = Math.min(
        REPLACEMENT_WAIT_MAX_MS,
        1_000 * 2 ** Math.max(0, failedStarts.length - FAILED_STARTS_TOLERATED),
      );
    }
    logger.error({ worker: worker.process.pid, code, signal, waitMs }, "worker died; starting another");
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, waitMs);
  });
  onStopSignal((signal) => {
    logger.info({ signal, workers: config.workers }, "stopping");
    stopAll(0);
  });
  logger.info({ workers: config.workers }, "started workers");
}

// Until the configuration is read, messages go out at the default level.
let logger = createLogger("info");

async function main(): Promise<void> {
  const config = loadConfig();
  logger = createLogger(config.logLevel);
  if (cluster.isPrimary) {
    // Once per start, before any worker serves: workers never migrate. A port that is taken is
    // found before the database is touched.
    await step(
      () => probePort(config.port, config.host),
      (error) => portStartupMessage(error, config),
    );
    // A database that does not answer at once is said to be waited for, not met with silence.
    const waiting = setTimeout(
      () =>
        logger.info(`waiting for the database (${shownDatabaseUrl(config.databaseUrl)}): connecting, then migrating`),
      2000,
    );
    let usable: Database | undefined;
    try {
      // PostgreSQL is connected to as the service will use it, before anything is migrated: a
      // pooler that refuses the connection's settings, a role without them, a pooler that loses
      // prepared statements stop the start here, with the database as it was. (An SQLite file is
      // made by the migration, or not at all.)
      if (providerOf(config.databaseUrl) === "postgresql") usable = await openUsableDatabase(config);
      if (config.migrateOnStart) {
        const { applied } = await step(
          () => migrate(config.databaseUrl),
          (error) => databaseStartupMessage(error, config),
        );
        if (applied.length > 0) logger.info({ applied }, "migrations applied");
      } else {
        const missing = await step(
          () => missingMigrations(config.databaseUrl),
          (error) => databaseStartupMessage(error, config),
        );
        if (missing.length > 0)
          throw new StartupFailure(
            `MIGRATE_ON_START=false, and the database lacks ${missing.length} migration(s) of this version (${missing[0]}${missing.length > 1 ? ", …" : ""}): run "npm run migrate" first, or start with MIGRATE_ON_START=true`,
          );
      }
    } catch (error) {
      await usable?.close();
      throw error;
    } finally {
      clearTimeout(waiting);
    }
    if (config.workers > 1) {
      // Workers connect as the service does (pool settings and all): a server that refuses that
      // is said once, here, rather than by every worker in turn.
      await (usable ?? (await openUsableDatabase(config))).close();
      return runPrimary(config, logger);
    }
    return runWorker(config, logger, usable);
  }
  await runWorker(config, logger);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartupFailure) logger.fatal(error.message);
  else logger.fatal({ err: error }, "the service could not start");
  process.exit(1);
});
