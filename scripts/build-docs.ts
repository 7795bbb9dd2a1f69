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

/**
 * Redoc draws its attribution badge from Redocly's CDN at run time: every load of the page would
 * contact another host. The page keeps the attribution, drawn from inline images instead; the
 * page's CSP (http/security-headers.ts) allows images from data: URLs only.
 */
const inlineSvg = (width: number, text: string) =>
  "data:image/svg+xml," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20"><text x="0" y="15" font-family="sans-serif" font-size="14" font-weight="bold" fill="#0044d4">${text}</text></svg>`,
  );
const BADGES: Record<string, string> = {
  "https://cdn.redoc.ly/redoc/logo-mini-full.svg": inlineSvg(64, "Redocly"),
  "https://cdn.redoc.ly/redoc/logo-mini.svg": inlineSvg(14, "R"),
};

/** The rendered page without references that a browser would fetch from another host. */
function selfContained(page: string, output: string): string {
  let result = page;
  for (const [remote, inline] of Object.entries(BADGES)) result = result.split(remote).join(inline);
  const remaining = /(?:src|href)\s*[:=]\s*[`"']https?:\/\/cdn\.[^`"']*/.exec(result);
  if (remaining) throw new Error(`${output} still loads from another host: ${remaining[0]}`);
  return result;
}
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
    writeFileSync(
      output,
      selfContained(readFileSync(output, "utf8"), output).replace('<html lang="en">', `<html lang="${language}">`),
    );
    console.log(`built ${output}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
