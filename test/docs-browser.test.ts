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
});
