// Renders the HTML documentation served by GET /doc (Accept: text/html): one self-contained page
// per language, built by Redocly from the same document /doc serves as JSON in that language. The
// server URLs are placeholders that the service fills in with the REST base (and origin) of each request.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { LANGUAGES, type Language } from "../src/i18n/languages";
import { docsHtmlPath, withAddressPlaceholders } from "../src/openapi/documentation";
import { loadBundledSpec } from "../src/openapi/spec";
import { DOCS_UI_LITERALS, DOCS_UI_WORDS } from "./docs-ui-words";

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
/** `text` with `from` replaced by `to`, which must be there exactly `times` times: Redoc's build changed otherwise. */
function replaceExactly(text: string, from: string, to: string, times: number, output: string): string {
  const found = text.split(from).length - 1;
  if (found !== times)
    throw new Error(`${output}: expected ${times}× ${JSON.stringify(from)} in Redoc's page, found ${found}`);
  return text.split(from).join(to);
}

// The standalone build's translate(key, englishDefault): it gives the English default.
const REDOC_TRANSLATE = "useTranslate:()=>({translate:(e,t)=>(typeof t==`string`?t:t?.defaultValue)||e||``})";

/** Redoc's own words (buttons, headings) in the page's language. */
function translated(page: string, language: Language, output: string): string {
  if (language === "en") return page;
  const words = JSON.stringify(DOCS_UI_WORDS[language]);
  const lookUp = `useTranslate:(W=>()=>({translate:(e,t)=>(Object.hasOwn(W,e)&&W[e])||(typeof t==\`string\`?t:t?.defaultValue)||e||\`\`}))(${words})`;
  return DOCS_UI_LITERALS[language].reduce(
    (text, [from, to, times]) => replaceExactly(text, from, to, times, output),
    replaceExactly(page, REDOC_TRANSLATE, lookUp, 1, output),
  );
}

/**
 * The menu's links as the page's script makes them. The page routes by the URL's fragment
 * (`/doc#/events/listevents`), and its script writes links so; the links rendered into the markup
 * at build time are root-relative (`/events`), and stay so after the script takes over: opened in
 * a new tab, they left the page for an address that is not the documentation's.
 */
function fragmentLinks(page: string): string {
  return page
    .split(/(<script[\s\S]*?<\/script>)/)
    .map((part) => (part.startsWith("<script") ? part : part.replace(/href="\//g, 'href="#/')))
    .join("");
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
    const page = selfContained(readFileSync(output, "utf8"), output);
    writeFileSync(
      output,
      fragmentLinks(translated(page, language, output)).replace('<html lang="en">', `<html lang="${language}">`),
    );
    console.log(`built ${output}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
