// npm run test:mutation:http: StrykerJS over the guards that only a request, a thread or a feed
// reaches (a body's bytes counted, a feed's fetch and first pass, a rule's thread and its deadline,
// a sync answer's tombstones, the webhooks' gap), against the HTTP suites that prove them. A
// mutant runs only the tests that reach it, but each starts a service: a whole run takes hours on
// two cores, so mutate one module at a time (`npm run test:mutation:http -- --mutate src/http/request-body.ts`).
import { PROTECTION } from "./stryker.config.mjs";

/** The suites that reach those modules, by module. */
const SUITES = [
  "test/guarded-door.test.ts", // request-body.ts, bounded-work.ts (rules)
  "test/imports.test.ts", // feed-fetch.ts, feed-reading.ts, ical-reader.ts
  "test/sync.test.ts", // sync-listing.ts
  "test/webhooks.test.ts", // webhook-fanout.ts
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...PROTECTION,
  jest: {
    ...PROTECTION.jest,
    config: { ...PROTECTION.jest.config, testMatch: SUITES.map((path) => `<rootDir>/${path}`) },
  },
  mutate: [
    "src/http/request-body.ts",
    "src/work/bounded-work.ts",
    "src/resources/imports/feed-fetch.ts",
    "src/resources/imports/feed-reading.ts",
    "src/resources/imports/ical-reader.ts",
    "src/sync/sync-listing.ts",
    "src/resources/webhooks/webhook-fanout.ts",
  ],
  htmlReporter: { fileName: "reports/mutation-http/index.html" },
  jsonReporter: { fileName: "reports/mutation-http/mutation.json" },
};
