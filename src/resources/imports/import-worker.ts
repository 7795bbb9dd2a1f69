import type { ImportRun } from "../../../generated/prisma/sqlite/client";
import { PollingLoop } from "../../polling-loop";
import { claimSource, runRow } from "./import-repository";
import { startRun, stopRuns, type RunDependencies, type RunStatus } from "./import-run";

/**
 * The schedule of import sources: every process runs one (unless IMPORT_SCHEDULE=false). Each
 * round it claims the source due first (a lease, so that each run is made by one process, and a
 * process that dies leaves the source to another when the lease ends), runs it, and goes on while
 * sources are due; then it looks again after IMPORT_POLL_MS.
 */
export class ImportScheduler {
  private readonly loop = new PollingLoop(
    () => this.runDue(),
    () => this.deps.config.imports.pollMs,
    (err) => this.deps.logger.error({ err }, "running import sources failed"),
  );

  constructor(
    private readonly deps: RunDependencies,
    /** Told of each run's result (for /metrics). */
    private readonly ran: (status: RunStatus) => void = () => undefined,
  ) {}

  start(): void {
    this.loop.start();
  }

  /**
   * Stops looking for sources, and stops the runs under way (asked for ones too) between two
   * events: each is recorded as interrupted, and due again at once.
   */
  async stop(): Promise<void> {
    const looking = this.loop.stop();
    await stopRuns(this.deps.db);
    await looking;
    await Promise.all(runsAskedFor);
  }

  /** Runs the source due first, if any; whether there was one (another round follows at once). */
  async runDue(): Promise<boolean> {
    const now = Date.now();
    const source = await claimSource(this.deps.db, null, now, leaseMs(this.deps));
    if (source === null) return false;
    const { finished } = await startRun(this.deps, source, "scheduled");
    this.ran(await finished);
    return true;
  }
}

/** Runs asked for that go on past their request (202): a process that stops waits for them. */
const runsAskedFor = new Set<Promise<RunStatus>>();

function leaseMs(deps: RunDependencies): number {
  return deps.config.imports.runLeaseMs;
}

/**
 * Runs a source now, as asked: its run once it ends, or as it is after `waitMs` (it goes on);
 * `running` when a run of it holds its lease (or it is gone).
 */
export async function runNow(
  deps: RunDependencies,
  id: number,
  waitMs: number,
): Promise<{ run: ImportRun; finished: boolean } | "running"> {
  const source = await claimSource(deps.db, id, Date.now(), leaseMs(deps));
  if (source === null) return "running";
  const { runId, finished } = await startRun(deps, source, "manual");
  runsAskedFor.add(finished);
  void finished.then(() => runsAskedFor.delete(finished));
  let timer: NodeJS.Timeout | undefined;
  const waited = await Promise.race([
    finished.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  return { run: (await runRow(deps.db, runId))!, finished: waited };
}
