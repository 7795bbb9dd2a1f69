// npm run cli -- <command> [options]: manages users and credentials, and the database.
// Every command prints one JSON value on stdout; errors go to stderr with exit code 1.
import { parseArgs } from "node:util";
import {
  createUser,
  deleteUser,
  issueCredentials,
  listUsers,
  revokeKeys,
  UserAdminError,
} from "../resources/users/user-admin";
import { ConfigError, loadConfig } from "../config";
import { openDatabase, type Database } from "../db/database";
import { prismaRunner } from "../db/data-migrations";
import { migrate } from "../db/migrate";
import { terminalProgress } from "../logging/progress";
import { rebuildEventSearch } from "../resources/events/event-search-sql";
import { logPosition, nextEpoch } from "../sync/change-log-repository";

const USAGE = `usage: npm run cli -- <command> [options]

  users:create --login <login> --role <role> [--display-name <name>] [--email <email>]
      creates a user; prints id, login, role, api_key and application_password (shown only now)
  users:list
  users:delete --login <login> [--reassign-to <login>]
      their events, venues and organizers go to --reassign-to (required when they own any)
  keys:create --login <login>
      a new API key and application password for a user
  keys:revoke --key <api key or key id> | --login <login>
      revokes one API key, or every API key and application password of a user
  migrate
      applies pending migrations
  search:rebuild
      writes the event search index again from the events' texts
  sync:restored
      after restoring a backup: every sync token given out before is refused (410), so that each
      mirror lists again once; prints the log's new epoch

roles: administrator, editor, author, contributor, subscriber
The database is DATABASE_URL (default file:./data/calendar.db). On a terminal, migrate and
search:rebuild show their progress on stderr.`;

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new UserAdminError(`--${name} is required`);
  return value;
}

async function run(command: string, options: Options, db: Database): Promise<unknown> {
  switch (command) {
    case "users:create":
      return createUser(db, {
        login: required(options, "login"),
        role: required(options, "role"),
        displayName: options["display-name"],
        email: options.email,
      });
    case "users:list":
      return listUsers(db);
    case "users:delete":
      return deleteUser(db, required(options, "login"), options["reassign-to"]);
    case "keys:create":
      return issueCredentials(db, required(options, "login"));
    case "keys:revoke":
      return revokeKeys(db, { key: options.key, login: options.login });
    case "search:rebuild":
      return { events: await rebuildEventSearch(prismaRunner(db), terminalProgress()) };
    case "sync:restored":
      return restored(db);
    default:
      throw new Error(`no code for the command ${command}`);
  }
}

/** The options each command takes; any other is refused, as is any word after the command. */
const COMMAND_OPTIONS: Record<string, string[]> = {
  "users:create": ["login", "role", "display-name", "email"],
  "users:list": [],
  "users:delete": ["login", "reassign-to"],
  "keys:create": ["login"],
  "keys:revoke": ["key", "login"],
  migrate: [],
  "search:rebuild": [],
  "sync:restored": [],
};

/** A restore made while no instance ran (none saw the log go back): the log's history moves on. */
async function restored(db: Database): Promise<{ epoch: number }> {
  const { epoch } = await logPosition(db);
  await nextEpoch(db, epoch);
  return { epoch: (await logPosition(db)).epoch };
}

function checkArguments(command: string, extra: string[], options: string[]): void {
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UserAdminError(`unknown command ${command}\n\n${USAGE}`);
  if (extra.length > 0) {
    const bracketed = extra.some((word) => /^\[|\]$/.test(word));
    throw new UserAdminError(
      `unexpected ${JSON.stringify(extra.join(" "))} after ${command}` +
        (bracketed ? " (the brackets in the usage mark an option as optional: write it without them)" : ""),
    );
  }
  const refused = options.filter((name) => !allowed.includes(name));
  if (refused.length > 0)
    throw new UserAdminError(
      `${command} takes ${allowed.length > 0 ? allowed.map((name) => `--${name}`).join(", ") : "no options"}, not ${refused.map((name) => `--${name}`).join(", ")}`,
    );
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      login: { type: "string" },
      role: { type: "string" },
      "display-name": { type: "string" },
      email: { type: "string" },
      "reassign-to": { type: "string" },
      key: { type: "string" },
      help: { type: "boolean" },
    },
  });
  const [command, ...extra] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return;
  }
  checkArguments(command, extra, Object.keys(values));
  const config = loadConfig();
  if (command === "migrate") {
    const { applied } = await migrate(config.databaseUrl, terminalProgress());
    console.log(JSON.stringify({ applied }));
    return;
  }
  await migrate(config.databaseUrl);
  const db = await openDatabase(config);
  try {
    console.log(JSON.stringify(await run(command, values as Options, db), null, 2));
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  if (
    error instanceof UserAdminError ||
    error instanceof ConfigError ||
    (error instanceof Error && error.name === "TypeError" && "code" in error)
  ) {
    console.error(`error: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
