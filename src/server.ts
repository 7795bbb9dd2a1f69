import type { Server } from "node:http";
import { createApp } from "./app";
import { ConfigError, loadConfig } from "./config";
import { openDatabase } from "./db/database";
import { migrate } from "./db/migrate";
import { createLogger } from "./logging/logger";
import { publishDueItems } from "./resources/posts/scheduled-publishing";

const PUBLISH_DUE_EVERY_MS = 60_000;

/** Starts the service: migrations, database, HTTP server; stops it cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const logger = createLogger(process.env.LOG_LEVEL || "info");
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      logger.fatal(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (config.migrateOnStart) {
    const { applied } = await migrate(config.databaseUrl);
    if (applied.length > 0) logger.info({ applied }, "migrations applied");
  }
  const db = await openDatabase(config);
  const app = createApp({ config, db, logger });
  const server: Server = app.listen(config.port, config.host, () => {
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

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    clearInterval(scheduler);
    server.close(async () => {
      await db.close();
      logger.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
