// npm run i18n:apply -- <file.json>: writes translations into openapi/overlays/<language>.yaml and
// clears their x-todo. The file maps each language to a list of {target, key} (as the overlay's
// action names them) with either the whole `text`, or `replace`: [from, to] pairs applied to the
// text the action holds (the previous translation, which i18n:update keeps), for long texts of
// which a paragraph changed. It prints what is left to translate.
import { readFileSync } from "node:fs";
import { readOverlay, writeOverlay } from "./overlays";
import { LANGUAGES } from "../../src/i18n/languages";
type Entry = { target: string; key: string; text?: string; replace?: Array<[string, string]> };
const input = JSON.parse(readFileSync(process.argv[2], "utf8")) as Record<string, Entry[]>;
for (const language of LANGUAGES.filter((l) => l !== "en")) {
  const overlay = readOverlay(language)!;
  for (const entry of input[language] ?? []) {
    const action = overlay.actions.find((a) => a.target === entry.target && entry.key in a.update);
    if (!action) throw new Error(`${language}: no action ${entry.target}.${entry.key}`);
    let text = entry.text ?? action.update[entry.key];
    for (const [from, to] of entry.replace ?? []) {
      if (!text.includes(from))
        throw new Error(`${language}: ${entry.target}.${entry.key} lacks ${JSON.stringify(from.slice(0, 60))}`);
      text = text.replace(from, to);
    }
    action.update[entry.key] = text;
    delete action["x-todo"];
    delete action["x-english"];
  }
  writeOverlay(language, overlay);
  const left = overlay.actions.filter((a) => a["x-todo"]).map((a) => `${a.target}.${Object.keys(a.update)[0]}`);
  console.log(language, "left to translate:", left.length, left.join(" "));
}
