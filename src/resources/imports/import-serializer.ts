import type { ImportRun } from "../../../generated/prisma/sqlite/client";
import type { Schemas } from "../../http/operation-types";
import type { RequestContext } from "../../http/request-context";
import type { Source } from "./import-sources";
import { restApiOf } from "./rest-source";

const iso = (ms: number) => new Date(ms).toISOString();

/** A run as the source's runs show it. */
export function serializeRun(run: ImportRun): Schemas["ImportRunSummary"] {
  type Run = Schemas["ImportRunSummary"];
  return {
    id: run.id,
    trigger: run.trigger as Run["trigger"],
    status: run.status as Run["status"],
    fetch: run.fetch as Run["fetch"],
    started_at: iso(run.startedAt),
    finished_at: run.finishedAt === null ? null : iso(run.finishedAt),
    created: run.created,
    updated: run.updated,
    unchanged: run.unchanged,
    removed: run.removed,
    failed: run.failed,
    errors: JSON.parse(run.errors) as Run["errors"],
    error: run.error,
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
