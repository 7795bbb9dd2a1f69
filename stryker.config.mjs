// npm run test:mutation: StrykerJS over the modules that protect the service (docs/development.md,
// "Mutation testing"). Not in CI: a full run takes minutes; run it when you change one of them.
// `npm run test:mutation -- --mutate src/text/kses.ts` runs one module.
import base from "./jest.config.js";

/**
 * The tests of those modules, which call them in process and run in seconds: a mutant of a
 * module-level table (a role's capabilities, an allowed tag) is "static", and every test runs for
 * it. The HTTP suites cover the same code, but a minute per mutant is more than a habit can pay:
 * the guards only a request, a thread or a feed reaches have their own run
 * (stryker.http.config.mjs, `npm run test:mutation:http`).
 */
const PROTECTING_TESTS = ["test/protection/**/*.test.ts"];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export const PROTECTION = {
  testRunner: "jest",
  jest: {
    projectType: "custom",
    config: { ...base, testMatch: PROTECTING_TESTS.map((path) => `<rootDir>/${path}`), testPathIgnorePatterns: [] },
    enableFindRelatedTests: false,
  },
  coverageAnalysis: "perTest",
  mutate: [
    "src/auth/authenticate.ts",
    "src/auth/credentials.ts",
    "src/auth/password-hash.ts",
    "src/auth/roles.ts",
    "src/auth/post-permissions.ts",
    "src/auth/visibility.ts",
    "src/text/kses.ts",
    "src/openapi/input-guard.ts",
    "src/sync/sync-token.ts",
    "src/sync/representation-cache.ts",
    "src/resources/events/rule-expansion.ts",
    "src/resources/webhooks/webhook-signature.ts",
    // The shared doors (test/protection/request-doors.test.ts).
    "src/http/cross-site-writes.ts",
    "src/http/jsonp.ts",
    "src/http/secret-parameters.ts",
    "src/http/warm-up-marker.ts",
    "src/http/wordpress-requests.ts",
    "src/net/outbound-guard.ts",
    "src/dates/recurrence-limits.ts",
  ],
  concurrency: 2,
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["dist", "data", "reports", ".prof", "bench"],
  cleanTempDir: "always",
};

export default PROTECTION;
