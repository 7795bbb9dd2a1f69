// Before `npm start`: builds dist/ (scripts/build.ts) unless it is already built from the files
// as they are now, as make does: no file the last build read (dist/build-inputs.json) is newer
// than that list, and every file it wrote is there. Plain JavaScript, so that a start with
// nothing to build does not load a TypeScript loader (half a second) to find that out.
const { spawnSync } = require("node:child_process");
const { existsSync, readFileSync, statSync } = require("node:fs");
const { resolve } = require("node:path");

const root = resolve(__dirname, "..");
const listPath = resolve(root, "dist/build-inputs.json");

function upToDate() {
  if (!existsSync(listPath)) return false;
  const built = statSync(listPath).mtimeMs;
  const { inputs, outputs } = JSON.parse(readFileSync(listPath, "utf8"));
  const modifiedAt = (path) => (existsSync(resolve(root, path)) ? statSync(resolve(root, path)).mtimeMs : Infinity);
  return outputs.every((path) => existsSync(resolve(root, path))) && inputs.every((path) => modifiedAt(path) <= built);
}

if (!upToDate()) {
  const run = spawnSync(process.execPath, ["--import", "tsx", resolve(root, "scripts/build.ts")], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
