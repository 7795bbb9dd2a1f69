import cluster from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Metrics } from "./metrics";

/**
 * With WORKERS > 1 a scrape reaches one worker, which asks the primary for every worker's
 * figures, summed (prom-client's AggregatorRegistry gathers them from each worker).
 */
const REQUEST = "calendar:metrics?";
const REPLY = "calendar:metrics";
const WAIT_MS = 5_000;

interface Reply {
  type: typeof REPLY;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers workers' requests for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== REQUEST) return;
    const reply = (fields: Partial<Reply>) => worker.send({ type: REPLY, id: message.id, ...fields });
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: String(error) }),
    );
  });
}

/** In a worker: gives the primary this process's figures when it gathers the cluster's. */
export function joinClusterMetrics(metrics: Metrics): void {
  // Constructing one sets up prom-client's listener for the primary's requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
}

let nextId = 0;

/** The Prometheus text of this process, or of the whole cluster from a worker. */
export function metricsText(metrics: Metrics): Promise<string> {
  if (!cluster.isWorker) return metrics.registry.metrics();
  const id = (nextId += 1);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error("the primary did not answer with the cluster's metrics")), WAIT_MS);
    const listener = (message: Reply) => {
      if (message?.type === REPLY && message.id === id)
        finish(message.error === undefined ? null : new Error(message.error), message.text);
    };
    const finish = (error: Error | null, text?: string) => {
      clearTimeout(timer);
      process.off("message", listener);
      if (error) reject(error);
      else resolve(text ?? "");
    };
    process.on("message", listener);
    process.send!({ type: REQUEST, id });
  });
}
