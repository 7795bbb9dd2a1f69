// Renders the HTML documentation served by GET /doc (Accept: text/html): one self-contained page
// per language, built by Redocly from the same document /doc serves as JSON in that language. The
// server URLs are placeholders that the service fills in with the REST base (and origin) of each request.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { LANGUAGES } from "../src/i18n/languages";
import { docsHtmlPath, withAddressPlaceholders } from "../src/openapi/documentation";
import { loadBundledSpec } from "../src/openapi/spec";

const redocly = resolve(__dirname, "../node_modules/.bin/redocly");
const scratch = mkdtempSync(join(tmpdir(), "calendar-docs-"));
try {
  for (const language of LANGUAGES) {
    const document = withAddressPlaceholders(loadBundledSpec(language));
    const source = join(scratch, `openapi.${language}.json`);
    writeFileSync(source, JSON.stringify(document));
    const output = docsHtmlPath(language);
    mkdirSync(dirname(output), { recursive: true });
    execFileSync(redocly, ["build-docs", source, "--inlineBundle", "-o", output], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    // Redoc's page template declares English; say which language the page is in.
    writeFileSync(output, readFileSync(output, "utf8").replace('<html lang="en">', `<html lang="${language}">`));
    console.log(`built ${output}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
