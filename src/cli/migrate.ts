// npm run migrate: applies pending migrations to DATABASE_URL and exits. Run it once per deploy
// (the service also migrates on start unless MIGRATE_ON_START=false).
import { loadConfig } from "../config";
import { migrate } from "../db/migrate";

migrate(loadConfig().databaseUrl)
  .then(({ applied }) => {
    console.log(applied.length > 0 ? `applied: ${applied.join(", ")}` : "the database is up to date");
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
