// Tests run TypeScript through SWC (no type-checking here: `npm run typecheck` does that).
// Each test file starts its own service over its own database (test/support/test-server.ts);
// TEST_DATABASE_URL=postgresql://... runs the same suite on PostgreSQL.
//
// The tests that time the event loop (test/timing/) run after the others, alone (`npm test` runs
// both phases): beside another test file that starts service processes, a 50 ms stall measured
// 761 ms and 1,108 ms on two cores, which no bound can tell from the regressions they catch (1–13 s).
const TIMING = /[\\/]test[\\/]timing[\\/]/;

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["@swc/jest"] },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  testPathIgnorePatterns:
    process.env.JEST_PHASE === "timing" ? [] : process.env.JEST_PHASE === "main" ? [TIMING.source] : [],
  maxWorkers: process.env.JEST_PHASE === "timing" ? 1 : 2,
  testTimeout: 30000,
  // Node 24 aborts when Jest's context collects a better-sqlite3 object: see the file.
  setupFiles: ["<rootDir>/test/support/keep-native-handles.ts"],
};
