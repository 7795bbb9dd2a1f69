// npm run build: compiles the service, the CLI and their work thread into dist/ (one JavaScript file each, packages
// left in node_modules), so that production runs plain `node`, without a TypeScript loader
// (which costs ~40 MB of memory and start-up time in every process). It lists the files it read
// in dist/build-inputs.json, by which `npm start` (scripts/build-if-changed.js) builds again only
// when one of them changed.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(__dirname, "..");

build({
  entryPoints: {
    server: resolve(root, "src/server.ts"),
    cli: resolve(root, "src/cli/cli.ts"),
    // The thread of src/work/bounded-work.ts, beside the bundles that start it.
    "work-thread": resolve(root, "src/work/work-thread.ts"),
  },
  outdir: resolve(root, "dist"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  metafile: true,
  absWorkingDir: root,
})
  .then(({ metafile }) => {
    const inputs = [...Object.keys(metafile.inputs), "scripts/build.ts", "package-lock.json"];
    const outputs = Object.keys(metafile.outputs);
    writeFileSync(resolve(root, "dist/build-inputs.json"), `${JSON.stringify({ inputs, outputs }, null, 1)}\n`);
  })
  .catch(() => process.exit(1));
