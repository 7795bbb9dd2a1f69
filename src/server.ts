import cluster from "node:cluster";
import type { Server } from "node:http";
import { createApp } from "./app";
import { ConfigError, loadConfig, type Config } from "./config";
import { openDatabase } from "./db/database";
import { migrate } from "./db/migrate";
import { createHttpServer, stopGracefully } from "./http/server-limits";
import { createLogger, type Logger } from "./logging/logger";
import { publishDueItems } from "./resources/post-kernel/scheduled-publishing";

/**
 * Starts the service. With WORKERS > 1, this process is the primary of a cluster: it applies the
 * migrations once, then forks the workers, which share the port, and replaces any that dies.
 * Every process stops cleanly on SIGTERM or SIGINT: no new connections, requests under way
 * finish (up to SHUTDOWN_GRACE_SECONDS), the database is closed.
 */

const PUBLISH_DUE_EVERY_MS = 60_000;

function onStopSignal(stop: (signal: string) => void): void {
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

async function runWorker(config: Config, logger: Logger): Promise<void> {
  const db = await openDatabase(config);
  const app = createApp({ config, db, logger });
  const server: Server = createHttpServer(app, config).listen(config.port, config.host, () => {
    logger.info({ port: config.port, host: config.host, database: db.provider }, "listening");
  });

  const publishDue = () =>
    publishDueItems(db, new Date())
      .then((published) => {
        if (published.events + published.venues + published.organizers > 0) logger.info({ published }, "scheduled items published");
      })
      .catch((err: unknown) => logger.error({ err }, "publishing scheduled items failed"));
  void publishDue();
  const scheduler = setInterval(publishDue, PUBLISH_DUE_EVERY_MS);
  scheduler.unref();

  onStopSignal((signal) => {
    logger.info({ signal }, "stopping");
    clearInterval(scheduler);
    void stopGracefully(server, config.shutdownGraceMs).then(async () => {
      await db.close();
      logger.info("stopped");
      process.exit(0);
    });
  });
}

function runPrimary(config: Config, logger: Logger): void {
  let stopping = false;
  for (let i = 0; i < config.workers; i += 1) cluster.fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info("stopped");
        process.exit(0);
      }
      return;
    }
    logger.error({ worker: worker.process.pid, code, signal }, "worker died; starting another");
    cluster.fork();
  });
  onStopSignal((signal) => {
    stopping = true;
    logger.info({ signal, workers: config.workers }, "stopping");
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
  });
  logger.info({ workers: config.workers }, "started workers");
}

async function main(): Promise<void> {
  const logger = createLogger(process.env.LOG_LEVEL || "info");
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      logger.fatal(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (cluster.isPrimary) {
    // Once per start, before any worker serves: workers never migrate.
    if (config.migrateOnStart) {
      const { applied } = await migrate(config.databaseUrl);
      if (applied.length > 0) logger.info({ applied }, "migrations applied");
    }
    if (config.workers > 1) return runPrimary(config, logger);
  }
  await runWorker(config, logger);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
