import { ApiError } from "../../http/errors";
import { isWarmingUp } from "../../http/warm-up";
import type { Operations } from "../../http/operation-types";
import type { Services } from "../../services";
import { pingDatabase } from "../../db/availability";
import { metricsText } from "../../metrics/cluster-metrics";

/**
 * Probes for load balancers and orchestrators (mounted at the origin, before the language
 * prefixes and the rate limit): `/healthz`, the process answers; `/readyz`, it is warmed up
 * (http/warm-up.ts) and can reach its database, else 503 `rest_not_ready`, so that traffic goes
 * to other instances meanwhile; `/metrics`, what Prometheus scrapes.
 */
export function healthOperations({ db, metrics }: Services): Operations<"getHealth" | "getReadiness" | "getMetrics"> {
  return {
    getHealth: {
      run(_req, res) {
        res.json({ status: "ok" });
      },
    },
    getReadiness: {
      async run(req, res) {
        // Not a fault: nothing is logged (see the error handler).
        if (isWarmingUp(req.app)) throw new ApiError("rest_not_ready");
        try {
          await pingDatabase(db);
        } catch (err) {
          // The cause goes to the log (the error handler logs every 5xx), not to the caller.
          throw Object.assign(new ApiError("rest_not_ready"), { cause: err });
        }
        res.json({ status: "ready" });
      },
    },
    getMetrics: {
      async run(_req, res) {
        res.type(metrics.registry.contentType).send(await metricsText(metrics));
      },
    },
  };
}
