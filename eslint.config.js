// Lint rules for the TypeScript sources (npm run lint). Generated files are not linted.
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

// One door to the database (see README, "Layout"): only repositories (`*-repository.ts`), SQL
// builders (`*-sql.ts`) and src/db/ call Prisma's model methods, its raw and transaction calls,
// or build SQL; everything else calls their named functions.
const MODEL_METHODS =
  "findMany|findFirst|findUnique|findFirstOrThrow|findUniqueOrThrow|create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy";
const MODELS =
  "user|apiKey|applicationPassword|event|eventText|venue|venueText|organizer|organizerText|term|termText|eventVenue|eventOrganizer|eventTerm|eventDayCount|eventStat|siteSecret|syncChange|syncClock|webhookSubscription|webhookOutbox|webhookItemState|webhookDelivery";
const DATABASE_DOOR =
  "the database is reached through a repository (*-repository.ts), a *-sql.ts builder or src/db/ only";
const databaseStatements = [
  {
    selector: `CallExpression[callee.property.name=/^(${MODEL_METHODS})$/][callee.object.property.name=/^(${MODELS})$/]`,
    message: DATABASE_DOOR,
  },
  {
    selector:
      "MemberExpression[property.name=/^[$](queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction)$/]",
    message: DATABASE_DOOR,
  },
  {
    selector: "MemberExpression[object.name='Prisma'][property.name=/^(sql|raw|join|empty)$/]",
    message: DATABASE_DOOR,
  },
  {
    selector:
      "MemberExpression[property.name='direct'][object.name=/^(db|this)$/], MemberExpression[property.name='direct'][object.property.name='db']",
    message: DATABASE_DOOR,
  },
];
const prismaWrites = {
  selector:
    "MemberExpression[property.name='write'][object.name='db'], MemberExpression[property.name='write'][object.property.name='db']",
  message: "the service writes through db.transact (inTransaction), not Prisma's write client",
};
const RESOURCES = ["events", "venues", "organizers", "terms", "webhooks", "users", "health", "namespace"];

module.exports = tseslint.config(
  { ignores: ["generated/**", "node_modules/**", "data/**", "coverage/**", "dist/**", "bench/data/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-require-imports": "off",
      eqeqeq: ["error", "always"],
      "no-console": ["error", { allow: ["error", "log"] }],
    },
  },
  {
    files: ["*.js", "scripts/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", __dirname: "readonly", process: "readonly" },
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["prisma/cli-adapters.ts"],
    // The adapters' internals are not typed; this file patches them (see its header).
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  // The service writes through one door, a driver transaction (db.transact); Prisma's write client
  // is for what runs outside requests (seeding, data migrations at start, tests), never the service's.
  {
    files: ["src/**/*.ts"],
    ignores: ["src/db/**", "src/**/*-repository.ts", "src/**/*-sql.ts"],
    rules: { "no-restricted-syntax": ["error", ...databaseStatements, prismaWrites] },
  },
  {
    files: ["src/**/*-repository.ts", "src/**/*-sql.ts"],
    rules: { "no-restricted-syntax": ["error", prismaWrites] },
  },
  // A resource imports another's repository, record or serializer only (an event's JSON embeds its
  // venue's and organizers'; its rules reach it through the
  // bridges app.ts wires: see src/services.ts); the kernel, http/, openapi/ and auth/ import no resource.
  ...RESOURCES.map((resource) => ({
    files: [`src/resources/${resource}/**/*.ts`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^\\.\\./(?!${resource}/|post-kernel/)[a-z-]+/(?![a-z-]+-(repository|record|serializer)$)`,
              message: "a resource imports another's repository, record or serializer only",
            },
          ],
        },
      ],
    },
  })),
  {
    files: ["src/resources/post-kernel/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^\\.\\./(?!post-kernel/)[a-z-]+/", message: "the post kernel imports no resource" }] },
      ],
    },
  },
  {
    files: ["src/http/**/*.ts", "src/openapi/**/*.ts", "src/auth/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "/resources/", message: "http/, openapi/ and auth/ import no resource" }] },
      ],
    },
  },
);
