import type { ImportRun } from "../../../generated/prisma/sqlite/client";
import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import type { Source } from "./import-sources";
import { LOST_RUN } from "./import-repository";
import { restApiOf } from "./rest-source";

const iso = (ms: number) => new Date(ms).toISOString();

/** How long a run of an earlier version (which kept no lease of its own) may show as running. */
const UNLEASED_RUN_MS = 3_600_000;

/**
 * When a run still open was lost: its lease ran out (its process stopped renewing it), so no
 * process runs it any more; null while one does.
 */
function lostAt(run: ImportRun, now: number): number | null {
  if (run.status !== "running") return null;
  const until = run.leaseUntil ?? run.startedAt + UNLEASED_RUN_MS;
  return until < now ? until : null;
}

/** A run as the source's runs show it (one whose process is gone, as interrupted). */
export function serializeRun(run: ImportRun, now = Date.now()): Schemas["ImportRunSummary"] {
  type Run = Schemas["ImportRunSummary"];
  const lost = lostAt(run, now);
  return {
    id: run.id,
    trigger: run.trigger as Run["trigger"],
    status: (lost === null ? run.status : "failed") as Run["status"],
    fetch: run.fetch as Run["fetch"],
    started_at: iso(run.startedAt),
    finished_at: lost !== null ? iso(lost) : run.finishedAt === null ? null : iso(run.finishedAt),
    created: run.created,
    updated: run.updated,
    unchanged: run.unchanged,
    removed: run.removed,
    failed: run.failed,
    errors: JSON.parse(run.errors) as Run["errors"],
    error: lost === null ? run.error : LOST_RUN,
  };
}

const KINDS = { tribe: "tribe_events_rest", calendar: "calendar_events_rest" } as const;

function kindOf(url: string): Schemas["ImportKind"] {
  const api = restApiOf(url);
  return api === null ? "ical" : KINDS[api.kind];
}

/** A source as the API shows it. */
export function serializeSource({ row, lastRun }: Source, ctx: RequestContext): Schemas["Import"] {
  type Import = Schemas["Import"];
  return {
    id: row.id,
    url: row.url,
    kind: kindOf(row.url),
    description: row.description,
    // Written from the spec's enums only (the requests were validated against them).
    frequency: row.frequency as Import["frequency"],
    status: row.postStatus as Import["status"],
    categories: JSON.parse(row.categories) as number[],
    tags: JSON.parse(row.tags) as number[],
    language: row.language as Import["language"],
    on_removed: row.onRemoved as Import["on_removed"],
    window: row.window === null ? null : (JSON.parse(row.window) as Import["window"]),
    update_authority: row.updateAuthority as Import["update_authority"],
    active: row.active,
    paused_reason: row.pausedReason === "failing" ? "failing" : null,
    next_run_at: row.active && row.nextRunAt !== null ? iso(row.nextRunAt) : null,
    last_run: lastRun === null ? null : serializeRun(lastRun),
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt.toISOString(),
    rest_url: `${ctx.apiBase}/imports/${row.id}`,
  };
}
