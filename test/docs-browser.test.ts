// The documentation page in a real browser (Debian's Chromium, driven by playwright-core): it
// renders in each language and contacts no other host, whatever the page's scripts do at run
// time, which the markup alone cannot show. Without Chromium the suite is skipped, unless
// REQUIRE_BROWSER is set (CI sets it, and installs Chromium).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import en from "../generated/openapi.json";
import es from "../generated/openapi.es.json";
import ptBr from "../generated/openapi.pt-br.json";
import { startTestServer, type TestServer } from "./support/test-server";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.REQUIRE_BROWSER)
  throw new Error(`REQUIRE_BROWSER is set and there is no Chromium at ${CHROMIUM} (apt-get install chromium)`);

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  if (!available) return;
  server = await startTestServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const DOCUMENTS = { en, "pt-br": ptBr, es };
const TITLES = { en: en.info.title, "pt-br": ptBr.info.title, es: es.info.title };

(available ? describe : describe.skip)("the documentation page in Chromium", () => {
  it.each(Object.keys(TITLES) as Array<keyof typeof TITLES>)(
    "renders in %s, loading nothing from any other host",
    async (language) => {
      const page = await browser.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      const response = await page.goto(`${server.origin}/${language}/calendar/events/v1/doc`, {
        waitUntil: "networkidle",
      });
      expect(response?.status()).toBe(200);
      // The browser asks for a coding, and gets one.
      expect(["br", "gzip"]).toContain(response?.headers()["content-encoding"]);
      await page.waitForSelector("h1");
      expect(await page.locator("html").getAttribute("lang")).toBe(language);
      expect(await page.locator("h1").first().textContent()).toContain(TITLES[language]);
      // The menu's section names are the document's, in the page's language.
      const menuLabels = DOCUMENTS[language].tags.map((tag) => tag["x-displayName"]);
      for (const label of menuLabels) await page.getByText(label, { exact: true }).first().waitFor();
      // The operations render, with the address the page was asked at.
      expect(await page.content()).toContain(`${server.origin}/${language}/calendar/events/v1`);
      // Give scripts that load images or fonts after the first render time to do so.
      await page.waitForTimeout(500);
      const elsewhere = requested.filter((url) => !url.startsWith(`${server.origin}/`) && !/^(data|blob):/.test(url));
      expect(elsewhere).toEqual([]);
      // A request the page's CSP refused would show here (and was not made): none is tried.
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  // Redoc's own words, which the document does not hold: in the page's language (scripts/docs-ui-words.ts).
  const UI_WORDS = {
    "pt-br": {
      search: "Pesquisar",
      responses: "Respostas",
      request: "Requisição",
      copy: "Copiar",
      required: "obrigatório",
      operations: "Operações",
    },
    es: {
      search: "Buscar",
      responses: "Respuestas",
      request: "Solicitud",
      copy: "Copiar",
      required: "obligatorio",
      operations: "Operaciones",
    },
  };

  it.each(Object.keys(UI_WORDS) as Array<keyof typeof UI_WORDS>)(
    "writes Redoc's own words in %s, and its menu links open the same page in a new tab",
    async (language) => {
      const words = UI_WORDS[language];
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      const doc = `${server.origin}/${language}/calendar/events/v1/doc`;
      await page.goto(`${doc}#/events/listevents`, { waitUntil: "networkidle" });
      for (const word of [words.responses, words.search]) await page.getByText(word).first().waitFor();
      const text = await page.locator("body").innerText();
      // "Operations" heads the search's results only.
      const { operations: _inSearchOnly, ...shown } = words;
      for (const word of Object.values(shown))
        expect([language, word, text.includes(word)]).toEqual([language, word, true]);
      for (const english of [
        "Search",
        "Responses",
        "Request",
        "Copy",
        "required",
        "API docs by",
        "Any of:",
        // Redoc's types and bounds ("string or null, <= 200 characters") and its samples' tab.
        "or",
        "characters",
        "Payload",
      ])
        expect([language, english, new RegExp(`(^|\\s)${english}(\\s|$)`, "m").test(text)]).toEqual([
          language,
          english,
          false,
        ]);

      // Each section of the menu once: the document's sections and its tags have names of their own.
      const menu = await page.locator(".menu-content").first().innerText();
      const entries = menu.split("\n").map((entry) => entry.trim());
      const health = DOCUMENTS[language].tags.find((tag) => tag.name === "Health")!["x-displayName"];
      expect(entries.filter((entry) => entry === health)).toHaveLength(1);
      // The search's groups: "Operations" in the page's language.
      await page.getByText(words.search).first().click();
      await page.keyboard.type("event");
      await page.getByText(words.operations, { exact: true }).first().waitFor();

      // Every link of the page stays on it (by its fragment) or names a full address: none is root-relative.
      const hrefs = await page.$$eval("a[href]", (links) => links.map((link) => link.getAttribute("href")!));
      expect(hrefs.filter((href) => href.startsWith("/"))).toEqual([]);
      // A menu link opened in a new tab shows the page, at the section it names.
      const section = hrefs.find((href) => href.startsWith("#/section/"))!;
      const tab = await browser.newPage();
      const response = await tab.goto(new URL(section, doc).href, { waitUntil: "networkidle" });
      expect(response?.status()).toBe(200);
      expect(tab.url()).toBe(`${doc}${section}`);
      await tab.waitForSelector("h1");
      expect(problems).toEqual([]);
      await tab.close();
      await page.close();
    },
    60_000,
  );
});
