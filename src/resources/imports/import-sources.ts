import type { ImportRun, ImportSource } from "../../../generated/prisma/sqlite/client";
import type { Config } from "../../config";
import type { Database } from "../../db/database";
import { ParamProblems } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import type { Language } from "../../i18n/languages";
import { allowedUrl } from "../../net/outbound-guard";
import { termsExist } from "../terms/term-repository";
import { privateSources } from "./feed-fetch";
import {
  deleteSourceRow,
  insertSource,
  lastRuns,
  saveSource,
  sourcePage,
  sourceRow,
  type SourceColumns,
} from "./import-repository";
import { nextRunAfterSuccess } from "./import-run";

/** A source as its operations show it: its row and its last run. */
export interface Source {
  row: ImportSource;
  lastRun: ImportRun | null;
}

export type SourceWrite = Schemas["UpdateImportRequest"];

/** A `webcal://` address (as calendar apps give them) is the same feed over https. */
function feedUrlOf(url: string): string {
  return url.replace(/^webcal:\/\//i, "https://");
}

/** The checks the schema cannot make: the feed's address, the terms. */
async function checkWrite(db: Database, config: Config, input: SourceWrite): Promise<void> {
  const problems = new ParamProblems();
  if (input.url !== undefined && !allowedUrl(feedUrlOf(input.url), privateSources(config.imports.allowPrivateSources)))
    problems.add("url", "rest_invalid_import_source");
  for (const [field, taxonomy] of [
    ["categories", "category"],
    ["tags", "tag"],
  ] as const) {
    const ids = input[field] ?? [];
    if (ids.length > 0 && !(await termsExist(db, taxonomy, ids))) problems.add(field, "rest_term_not_found");
  }
  problems.throwIfAny();
}

function columnsOf(input: SourceWrite): SourceColumns {
  return {
    url: input.url === undefined ? undefined : feedUrlOf(input.url),
    description: input.description,
    frequency: input.frequency,
    postStatus: input.status,
    categories: input.categories === undefined ? undefined : JSON.stringify(input.categories),
    tags: input.tags === undefined ? undefined : JSON.stringify(input.tags),
    language: input.language,
    onRemoved: input.on_removed,
    window: input.window === undefined ? undefined : input.window === null ? null : JSON.stringify(input.window),
    updateAuthority: input.update_authority,
    active: input.active,
  };
}

/** When an active source is first due: at once (the schedule picks it up), unless it runs only when asked. */
function firstRunAt(frequency: string, active: boolean, now: number): number | null {
  return active && nextRunAfterSuccess(frequency, now) !== null ? now : null;
}

export async function createSource(
  db: Database,
  config: Config,
  input: Schemas["CreateImportRequest"],
  owner: { userId: number; language: Language },
  now: Date,
): Promise<Source> {
  await checkWrite(db, config, input);
  const frequency = input.frequency ?? "daily";
  const active = input.active ?? true;
  const row = await insertSource(
    db,
    {
      ...columnsOf(input),
      url: feedUrlOf(input.url),
      frequency,
      postStatus: input.status ?? "publish",
      language: input.language ?? owner.language,
      ownerId: owner.userId,
      nextRunAt: firstRunAt(frequency, active, now.getTime()),
    },
    now,
  );
  return { row, lastRun: null };
}

/**
 * Changes the fields given. What the events are written with (feed, status, terms, language,
 * window) changing, the next run reads the feed in full (its validators are forgotten), so that every
 * event gets the change; resuming or changing the frequency schedules the next run anew.
 */
export async function updateSource(
  db: Database,
  config: Config,
  before: Source,
  input: SourceWrite,
  now: Date,
): Promise<Source | null> {
  await checkWrite(db, config, input);
  const columns = columnsOf(input);
  const rewrites = [
    columns.url,
    columns.postStatus,
    columns.categories,
    columns.tags,
    columns.language,
    columns.window,
  ].some((value) => value !== undefined);
  const active = input.active ?? before.row.active;
  const frequency = input.frequency ?? before.row.frequency;
  const rescheduled = input.active !== undefined || input.frequency !== undefined;
  const row = await saveSource(db, before.row.id, {
    ...columns,
    ...(rewrites ? { etag: null, lastModified: null, cursor: null } : {}),
    ...(input.active !== undefined ? { pausedReason: null, consecutiveFailures: 0 } : {}),
    ...(rescheduled ? { nextRunAt: firstRunAt(frequency, active, now.getTime()) } : {}),
    modifiedAt: now,
  });
  return row && { row, lastRun: before.lastRun };
}

export async function findSource(db: Database, id: number): Promise<Source | null> {
  const row = await sourceRow(db, id);
  if (row === null) return null;
  return { row, lastRun: (await lastRuns(db, [id])).get(id) ?? null };
}

export async function listSources(db: Database, offset: number, limit: number) {
  const { rows, total } = await sourcePage(db, offset, limit);
  const runs = await lastRuns(
    db,
    rows.map((row) => row.id),
  );
  return { items: rows.map((row) => ({ row, lastRun: runs.get(row.id) ?? null })), total };
}

/** Deletes a source and its runs; its events stay. */
export function deleteSource(db: Database, id: number): Promise<boolean> {
  return deleteSourceRow(db, id);
}
