// npm run check:breaking: compares the API document (generated/openapi.json, bundled from
// openapi/) with the last released one (openapi/released/<version>.json) using Optic, and fails
// on a breaking change (a removed operation, parameter or response field, a new required
// parameter, a narrowed type...) unless info.version's major number was raised. Releasing a
// version adds its document to openapi/released/ (see the README).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(__dirname, "..");
const RELEASED = resolve(ROOT, "openapi/released");
const CURRENT = resolve(ROOT, "generated/openapi.json");

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
console.log(`comparing ${label(current)} (openapi/) with the released ${label(released.version)}${majorRaised ? " (major version raised: breaking changes allowed)" : ""}`);
const optic = spawnSync(resolve(ROOT, "node_modules/.bin/optic"), ["diff", resolve(RELEASED, released.name), CURRENT, "--check"], { stdio: "inherit" });
if (optic.error) throw optic.error;
if (optic.status !== 0 && !majorRaised) {
  console.error(`\nbreaking changes against ${label(released.version)}: undo them, or raise info.version's major number in openapi/openapi.yaml`);
  process.exit(1);
}
console.log(optic.status === 0 ? "no breaking change" : "breaking changes, allowed by the new major version");
