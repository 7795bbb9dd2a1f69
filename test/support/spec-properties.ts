import fc from "fast-check";
import type { GeneratedRequest, SpecOperation } from "./spec-requests";
import { ADMIN_HEADERS } from "./test-server";

/**
 * For every operation, anonymously and as the administrator: `check` holds for the requests
 * `requests` makes for it (fixed seed, `runs` of them). A failure names the request, shortened,
 * with the seed and path that replay it (fast-check would print 100 KB strings in full).
 */
export function everyOperationHolds(
  title: string,
  operations: SpecOperation[],
  requests: (operation: SpecOperation, authorization: string) => fc.Arbitrary<GeneratedRequest>,
  check: (request: GeneratedRequest) => Promise<void>,
  { seed, runs }: { seed: number; runs: number },
): void {
  describe.each([
    ["anonymously", ""],
    ["as the administrator", ADMIN_HEADERS.Authorization],
  ])(`${title}, %s`, (_label, authorization) => {
    it.each(operations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation] as const))(
      "%s",
      async (_name, operation) => {
        await fc.assert(fc.asyncProperty(requests(operation, authorization), check), {
          seed,
          numRuns: runs,
          reporter: (details) => {
            if (details.failed)
              throw new Error(
                `${String(details.errorInstance)}\n(seed ${details.seed}, path "${details.counterexamplePath}")`,
              );
          },
        });
      },
    );
  });
}
