// npm run i18n:update: brings openapi/overlays/<language>.yaml in line with the English document.
// Translations of unchanged texts are kept; new texts, and texts whose English changed, get an
// action with `x-todo` (and the English text, or the previous translation, to start from);
// actions for texts that no longer exist are dropped.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { LANGUAGES } from "../../src/i18n/languages";
import { translatableTexts, sourceHash, type Json } from "./openapi-texts";
import { readOverlay, writeOverlay, type OverlayAction } from "./overlays";

const english = JSON.parse(readFileSync(resolve(__dirname, "../../generated/openapi.json"), "utf8")) as Json;
const texts = translatableTexts(english);

for (const language of LANGUAGES.filter((l) => l !== "en")) {
  const existing = new Map(
    (readOverlay(language)?.actions ?? []).map((action) => [
      `${action.target}|${Object.keys(action.update)[0]}`,
      action,
    ]),
  );
  let todo = 0;
  const actions: OverlayAction[] = texts.map(({ target, key, text }) => {
    const hash = sourceHash(text);
    const previous = existing.get(`${target}|${key}`);
    if (previous && previous["x-source"] === hash && !previous["x-todo"]) return previous;
    todo += 1;
    const reason = previous ? (previous["x-todo"] ?? "the English text changed") : "new text";
    return {
      target,
      "x-source": hash,
      "x-todo": reason,
      "x-english": text,
      update: { [key]: previous?.update[key] ?? text },
    } as OverlayAction;
  });
  writeOverlay(language, {
    overlay: "1.0.0",
    info: { title: `Calendar Events REST API (${language})`, version: "1.0.0" },
    actions,
  });
  console.log(`${language}: ${actions.length} texts, ${todo} to translate`);
}
