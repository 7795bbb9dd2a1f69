// npm run check:translations: fails unless, for every language, (1) every text of the English
// document has a translation in openapi/overlays/<language>.yaml, made from the current English
// text (same x-source hash) and finished (no x-todo), (2) the overlay holds nothing else, and
// (3) the localized document generated from it has exactly the English document's shape.
import { isDeepStrictEqual } from "node:util";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { LANGUAGES } from "../../src/i18n/languages";
import { shapeOf, sourceHash, translatableTexts, type Json } from "./openapi-texts";
import { readOverlay } from "./overlays";

const load = (name: string) => JSON.parse(readFileSync(resolve(__dirname, "../../generated", name), "utf8")) as Json;

/** Text that needs no translation: only code, URLs, numbers and punctuation once those are removed. */
function languageFree(text: string): boolean {
  return !/\p{L}{2,}/u.test(text.replace(/`[^`]*`/g, "").replace(/https?:\/\/\S+/g, ""));
}

const english = load("openapi.json");
const texts = translatableTexts(english);
const problems: string[] = [];

for (const language of LANGUAGES.filter((l) => l !== "en")) {
  const overlay = readOverlay(language);
  if (!overlay) {
    problems.push(`${language}: openapi/overlays/${language}.yaml is missing (npm run i18n:update makes it)`);
    continue;
  }
  const actions = new Map(
    overlay.actions.map((action) => [`${action.target}|${Object.keys(action.update).join(",")}`, action]),
  );
  for (const { target, key, text } of texts) {
    const action = actions.get(`${target}|${key}`);
    actions.delete(`${target}|${key}`);
    if (!action) problems.push(`${language}: no translation of ${target}.${key}`);
    else if (action["x-todo"]) problems.push(`${language}: ${target}.${key} to translate (${action["x-todo"]})`);
    else if (action["x-source"] !== sourceHash(text))
      problems.push(`${language}: ${target}.${key} translates an older English text (npm run i18n:update)`);
    else if (!action.update[key]?.trim()) problems.push(`${language}: ${target}.${key} is empty`);
    else if (action.update[key] === text && !languageFree(text))
      problems.push(`${language}: ${target}.${key} is still in English`);
  }
  for (const key of actions.keys())
    problems.push(`${language}: ${key.replace("|", ".")} translates a text the English document no longer has`);
  if (!isDeepStrictEqual(shapeOf(load(`openapi.${language}.json`)), shapeOf(english))) {
    problems.push(
      `${language}: generated/openapi.${language}.json does not have the shape of the English document (run npm run generate)`,
    );
  }
}

if (problems.length > 0) {
  console.error(problems.slice(0, 50).join("\n"));
  if (problems.length > 50) console.error(`... and ${problems.length - 50} more`);
  console.error(`\n${problems.length} translation problem(s)`);
  process.exit(1);
}
console.log(`translations complete: ${texts.length} texts in ${LANGUAGES.length - 1} languages, same shapes`);
