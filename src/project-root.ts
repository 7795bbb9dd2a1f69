import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The project's folder (the nearest one up with a package.json): where generated/ and prisma/
 * are, whether this code runs from src/ (TypeScript) or from the bundle in dist/.
 */
function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);

export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}
