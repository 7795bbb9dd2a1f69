// npm run check:breaking: compares the API document (generated/openapi.json, bundled from
// openapi/) with the last released one (openapi/released/<version>.json) using Optic and checks of
// its own (breaking-own-checks.ts: removed parameters, newly required body properties), and fails
// on a breaking change (a removed operation, parameter or response field, a new required
// parameter, a narrowed type...) unless info.version's major number was raised. Optic's findings
// that no client can notice (a request field that takes more forms, a new request media type) are
// let through: see breaking-findings.ts. Releasing a version adds its document to
// openapi/released/ (see the README).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { JsonObject } from "../src/openapi/spec";
import { findingsOf, isCompatible } from "./breaking-findings";
import { ownBreakingFindings } from "./breaking-own-checks";

const ROOT = resolve(__dirname, "..");
// Other documents than the project's: for test/check-breaking.test.ts, which edits copies.
const RELEASED = process.env.BREAKING_RELEASED_DIR ?? resolve(ROOT, "openapi/released");
const CURRENT = process.env.BREAKING_CURRENT ?? resolve(ROOT, "generated/openapi.json");
// Optic takes a minute: a test of this script's own checks may leave it out.
const WITH_OPTIC = process.env.BREAKING_WITHOUT_OPTIC !== "true";

type Version = [number, number, number];

function parse(version: string): Version {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`not a version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

const released = readdirSync(RELEASED)
  .filter((name) => name.endsWith(".json"))
  .map((name) => ({ name, version: parse(name.slice(0, -".json".length)) }))
  .sort((a, b) => compare(a.version, b.version))
  .pop();
if (!released) {
  console.error(`no released document in ${RELEASED}`);
  process.exit(1);
}
const current = parse((JSON.parse(readFileSync(CURRENT, "utf8")) as { info: { version: string } }).info.version);
const label = (version: Version) => version.join(".");

if (compare(current, released.version) < 0) {
  console.error(`info.version ${label(current)} is older than the last release, ${label(released.version)}`);
  process.exit(1);
}
const majorRaised = current[0] > released.version[0];
console.log(
  `comparing ${label(current)} (openapi/) with the released ${label(released.version)}${majorRaised ? " (major version raised: breaking changes allowed)" : ""}`,
);
const optic = WITH_OPTIC
  ? spawnSync(
      resolve(ROOT, "node_modules/.bin/optic"),
      ["diff", resolve(RELEASED, released.name), CURRENT, "--check"],
      {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    )
  : { stdout: "", stderr: "", status: 0, error: undefined };
if (optic.error) throw optic.error;
process.stdout.write(optic.stdout);
process.stderr.write(optic.stderr);

/**
 * Optic's findings that are not breaking for any client, and why:
 * - a required property of a request body of a media type the operation did not take before
 *   (`application/x-www-form-urlencoded`, added beside JSON): no client sent such a body;
 * - a request property that became a union (`anyOf`) of which one branch takes every value the
 *   property took before (a field that now also takes `"1"` for `true`): Optic's rule asks each
 *   new branch to overlap the old schema, which refuses any widening of what a request may send.
 */
const before = JSON.parse(readFileSync(resolve(RELEASED, released.name), "utf8")) as JsonObject;
const after = JSON.parse(readFileSync(CURRENT, "utf8")) as JsonObject;
const findings = findingsOf(optic.stdout);
const breaking = [
  ...findings.filter((finding) => !isCompatible(finding, before, after)),
  ...ownBreakingFindings(before, after),
];
for (const finding of findings.filter((f) => !breaking.includes(f)))
  console.log(
    `compatible: ${finding.operation} ${finding.mediaType ?? ""} ${finding.pointer ?? ""}: [${finding.rule}]`,
  );
// Optic failed without a finding this script could read: its output changed; count it as breaking.
const unread = optic.status !== 0 && findings.length === 0;
if ((breaking.length > 0 || unread) && !majorRaised) {
  for (const finding of breaking)
    console.error(
      `breaking: ${finding.operation} ${finding.mediaType ?? ""} ${finding.pointer ?? ""}: [${finding.rule}] ${finding.message}`,
    );
  console.error(
    `\nbreaking changes against ${label(released.version)}: undo them, or raise info.version's major number in openapi/openapi.yaml`,
  );
  process.exit(1);
}
console.log(
  breaking.length === 0 && !unread ? "no breaking change" : "breaking changes, allowed by the new major version",
);
