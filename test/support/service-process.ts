import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";

/**
 * The service as a separate process, started like `npm start` starts it: for the tests of
 * several instances, workers, shutdown and crashes.
 */
export interface ServiceProcess {
  origin: string;
  base: string;
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  /** Waits until `count` log lines match. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<Array<Record<string, unknown>>>;
  /** Sends a signal to the process and waits for it to exit; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A free port for a process the test starts, below the kernel's ephemeral range (32768 and up):
 * one the kernel hands out for port 0 (a warm-up's own server, an outgoing connection) could be
 * taken by another process between this check and the child's listen.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isFree(port)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", () => resolveFree(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolveFree(true)));
  });
}

export async function startServiceProcess(
  env: Record<string, string>,
  options: { workers?: number; nodeArgs?: string[] } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const args = [...(options.nodeArgs ?? []), "--import", "tsx", resolve(__dirname, "../../src/server.ts")];
  const child = spawn(process.execPath, args, {
    cwd: resolve(__dirname, "../.."),
    // Load tests send far more than a client would from one address: no rate limit unless asked.
    env: {
      ...process.env,
      LOG_LEVEL: "info",
      HOST: "127.0.0.1",
      PORT: String(port),
      WORKERS: String(options.workers ?? 1),
      RATE_LIMIT_PER_MINUTE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = "";
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));

  const waitForLog: ServiceProcess["waitForLog"] = async (predicate, count = 1, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matches = logs.filter(predicate);
      if (matches.length >= count) return matches;
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `service did not log what was expected (exit ${child.exitCode}); stderr: ${stderr}; logs: ${JSON.stringify(logs).slice(0, 2000)}`,
        );
      }
      await new Promise((wait) => setTimeout(wait, 25));
    }
  };
  try {
    // Ready as an orchestrator sees it: each process warms its validators up once it listens
    // (src/http/warm-up.ts), seconds each on a busy machine, for every worker at once.
    await waitForLog((line) => line.msg === "warmed up", options.workers ?? 1, 60_000);
  } catch (error) {
    // A service that did not start in time is not left running (nor its workers) past the test.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    throw error;
  }
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    base: `${origin}/calendar/events/v1`,
    child,
    logs,
    waitForLog,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
