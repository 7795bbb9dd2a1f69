// Tests run TypeScript through SWC (no type-checking here: `npm run typecheck` does that).
// Each test file starts its own service over its own database (test/support/test-server.ts);
// TEST_DATABASE_URL=postgresql://... runs the same suite on PostgreSQL.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["@swc/jest"] },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  maxWorkers: 2,
  testTimeout: 30000,
};
