// The documentation's examples run as written (doc tests): every `sh` block of the README, then of
// docs/clients.md, in order, on a fresh database each, with the ids the examples themselves create.
// curl's answers are recorded: none may be a 5xx, and an error status only where a comment of the
// page announces it (a 404 from an id that does not exist is what this catches).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { startTestServer } from "./support/test-server";

jest.setTimeout(120_000);

const run = promisify(execFile);
// The administrator key the pages' examples use.
const TOKEN = "change-me-to-a-long-secret";

/** The `sh` blocks of a page, in order; but the README's first, `npm install && npm start` and `npm test`, which CI runs. */
function shellBlocks(page: string): string[] {
  return [...readFileSync(resolve(__dirname, "..", page), "utf8").matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1])
    .filter((block) => !/^npm /m.test(block));
}

it.each(["README.md", "docs/clients.md"])("runs every shell example of %s, in order", async (page) => {
  const blocks = shellBlocks(page);
  expect(blocks.length).toBeGreaterThan(0);
  const server = await startTestServer({ CALENDAR_ADMIN_TOKEN: TOKEN });
  try {
    const script = [
      "set -e",
      // Each answer's status on stderr, as a line of its own (an example's own -w comes after, and wins).
      `curl() { command curl -w '%{stderr}%{http_code}\\n' "$@"; }`,
      ...blocks.map((block) => block.replaceAll("http://localhost:8080", server.origin)),
    ].join("\n");
    const { stdout, stderr } = await run("bash", ["-c", script], {
      env: { ...process.env, TOKEN },
      timeout: 100_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`${page}: the examples stopped (exit ${error.code})\n${error.stderr}\n${error.stdout}`);
    });
    const statuses = stderr
      .split("\n")
      .filter((line) => /^\d{3}$/.test(line))
      .map(Number);
    expect(statuses.length).toBeGreaterThan(5);
    const announced = new Set(
      blocks.flatMap((block) => [...block.matchAll(/#.*?\b([1-5]\d\d)\b/g)].map((match) => Number(match[1]))),
    );
    const unexpected = statuses.filter((status) => status >= 300 && !announced.has(status));
    expect([page, unexpected, stdout.includes("null\n") ? stdout : ""]).toEqual([page, [], ""]);
  } finally {
    await server.close();
  }
});
