import { Prisma, type ImportRun, type ImportSource } from "../../../generated/prisma/sqlite/client";
import { insertRows } from "../../db/bulk-insert";
import type { Database } from "../../db/database";
import { readCount, rowsOf, type RowSource } from "../../db/item-records";
import { insertRowReturningId, instantOf, numberOrNullOf, updateRows, type ColumnsOf } from "../../db/row-writes";
import type { Tx } from "../../db/transaction";

/**
 * Every statement on the import tables ("ImportSource", "ImportRun", "ImportedItem"). Writes are
 * raw statements through the driver, as the service's writes all are; claiming a source is an
 * UPDATE ... RETURNING of its lease (SKIP LOCKED on PostgreSQL), as webhook deliveries are claimed.
 */

export type SourceColumns = ColumnsOf<ImportSource>;
export type RunColumns = ColumnsOf<ImportRun>;

/** A VEVENT of a source as last imported (see ImportedItem in prisma/models.prisma). */
export interface ImportedRow {
  uid: string;
  recurrenceId: string;
  eventId: number | null;
  digest: string;
  /** The event's fields as the import left them (JSON); absent or null: not known. */
  fields?: string | null;
  /** Of a REST source's event: the global id it was first made under (the last of its lineage). */
  origin?: string | null;
}

const SOURCE_COLUMNS = Prisma.raw(
  `"id", "url", "description", "frequency", "postStatus", "categories", "tags", "language", "onRemoved", "window", "updateAuthority", "active",
  "pausedReason", "ownerId", "etag", "lastModified", "cursor", "consecutiveFailures", "nextRunAt", "leaseUntil", "createdAt", "modifiedAt"`,
);

function sourceRowOf(row: Record<string, unknown>): ImportSource {
  return {
    ...(row as unknown as ImportSource),
    id: Number(row.id),
    ownerId: Number(row.ownerId),
    active: Boolean(row.active),
    consecutiveFailures: Number(row.consecutiveFailures),
    nextRunAt: numberOrNullOf(row.nextRunAt),
    leaseUntil: numberOrNullOf(row.leaseUntil),
    createdAt: instantOf(row.createdAt)!,
    modifiedAt: instantOf(row.modifiedAt)!,
  };
}

/** Sources (all of them, or the one of `id`), by id. */
export async function sourceRows(source: RowSource, id?: number): Promise<ImportSource[]> {
  const where = id === undefined ? Prisma.sql`1 = 1` : Prisma.sql`"id" = ${id}`;
  const rows = await rowsOf(source).rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${SOURCE_COLUMNS} FROM "ImportSource" WHERE ${where} ORDER BY "id"`,
  );
  return rows.map(sourceRowOf);
}

export async function sourceRow(db: Database, id: number): Promise<ImportSource | null> {
  return (await sourceRows(db, id))[0] ?? null;
}

export async function sourcePage(db: Database, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db.direct.rows<Record<string, unknown>>(
      Prisma.sql`SELECT ${SOURCE_COLUMNS} FROM "ImportSource" ORDER BY "id" LIMIT ${limit} OFFSET ${offset}`,
    ),
    readCount(db, Prisma.sql`SELECT COUNT(*) AS "total" FROM "ImportSource"`),
  ]);
  return { rows: rows.map(sourceRowOf), total };
}

export function insertSource(
  db: Database,
  columns: SourceColumns & { url: string; frequency: string; postStatus: string; language: string; ownerId: number },
  now: Date,
): Promise<ImportSource> {
  return db.transact(async (tx) => {
    const id = await insertRowReturningId(tx, "ImportSource", { ...columns, createdAt: now, modifiedAt: now });
    return (await sourceRows(tx, id))[0];
  });
}

/** Writes a source's columns; null: no such source. */
export function saveSource(db: Database, id: number, columns: SourceColumns): Promise<ImportSource | null> {
  return db.transact(async (tx) => {
    await updateRows(tx, "ImportSource", Prisma.sql`"id" = ${id}`, columns);
    return (await sourceRows(tx, id))[0] ?? null;
  });
}

/** Deletes a source, and with it (the foreign keys cascade) its runs and what it imported; whether there was one. */
export async function deleteSourceRow(db: Database, id: number): Promise<boolean> {
  return (await db.transact((tx) => tx.$executeRaw`DELETE FROM "ImportSource" WHERE "id" = ${id}`)) > 0;
}

/**
 * Takes the lease of a source for a run until `now + leaseMs`: the one of `id` (a run asked for),
 * or the active source due first (the schedule's), unless another run holds it. On PostgreSQL a
 * source another instance is claiming is skipped (FOR UPDATE SKIP LOCKED), not waited for.
 */
export async function claimSource(
  db: Database,
  id: number | null,
  now: number,
  leaseMs: number,
): Promise<ImportSource | null> {
  const lock = db.provider === "postgresql" ? Prisma.sql`FOR UPDATE SKIP LOCKED` : Prisma.empty;
  const which =
    id === null
      ? Prisma.sql`"active" = ${true} AND "nextRunAt" IS NOT NULL AND "nextRunAt" <= ${now}`
      : Prisma.sql`"id" = ${id}`;
  const rows = await db.transact(
    (tx) => tx.$queryRaw<Array<Record<string, unknown>>>`
    UPDATE "ImportSource" SET "leaseUntil" = ${now + leaseMs}
    WHERE "id" IN (
      SELECT "id" FROM "ImportSource" WHERE ${which} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
      ORDER BY "nextRunAt", "id" LIMIT 1 ${lock})
    RETURNING ${SOURCE_COLUMNS}`,
  );
  return rows.length === 0 ? null : sourceRowOf(rows[0]);
}

/** Why a run whose process is gone ended (its lease ran out). */
export const LOST_RUN = "interrupted: the process running it stopped";

/** Opens a run of a source (its lease held for `leaseMs`), failing the runs a process that died left open. */
export function insertRun(
  db: Database,
  sourceId: number,
  trigger: string,
  now: number,
  leaseMs: number,
): Promise<number> {
  return db.transact(async (tx) => {
    await updateRows(tx, "ImportRun", Prisma.sql`"sourceId" = ${sourceId} AND "status" = 'running'`, {
      status: "failed",
      finishedAt: now,
      error: LOST_RUN,
    });
    return insertRowReturningId(tx, "ImportRun", {
      sourceId,
      trigger,
      status: "running",
      startedAt: now,
      leaseUntil: now + leaseMs,
    });
  });
}

/** A run's heartbeat: its lease, and its source's, until `until` (while the run is still open). */
export function renewLease(db: Database, run: { id: number; sourceId: number }, until: number): Promise<void> {
  return db.transact(async (tx) => {
    const open =
      await tx.$executeRaw`UPDATE "ImportRun" SET "leaseUntil" = ${until} WHERE "id" = ${run.id} AND "status" = 'running'`;
    if (open > 0) await tx.$executeRaw`UPDATE "ImportSource" SET "leaseUntil" = ${until} WHERE "id" = ${run.sourceId}`;
  });
}

/** How many runs of a source are kept: the oldest beyond it go when a run ends. */
const RUNS_KEPT = 100;

/** Closes a run, and writes the source's schedule, validators and lease; keeps the last RUNS_KEPT runs. */
export function finishRun(
  db: Database,
  run: { id: number; sourceId: number },
  columns: RunColumns,
  source: SourceColumns,
): Promise<void> {
  return db.transact(async (tx) => {
    await updateRows(tx, "ImportRun", Prisma.sql`"id" = ${run.id}`, columns);
    await updateRows(tx, "ImportSource", Prisma.sql`"id" = ${run.sourceId}`, source);
    await tx.$executeRaw`DELETE FROM "ImportRun" WHERE "sourceId" = ${run.sourceId} AND "id" <= ${run.id - RUNS_KEPT}
      AND "id" NOT IN (SELECT "id" FROM "ImportRun" WHERE "sourceId" = ${run.sourceId} ORDER BY "id" DESC LIMIT ${RUNS_KEPT})`;
  });
}

const RUN_COLUMNS = Prisma.raw(
  `"id", "sourceId", "trigger", "status", "fetch", "startedAt", "finishedAt", "leaseUntil", "created", "updated",
  "unchanged", "removed", "failed", "errors", "error"`,
);

function runRowOf(row: Record<string, unknown>): ImportRun {
  return {
    ...(row as unknown as ImportRun),
    id: Number(row.id),
    sourceId: Number(row.sourceId),
    startedAt: Number(row.startedAt),
    finishedAt: numberOrNullOf(row.finishedAt),
    leaseUntil: numberOrNullOf(row.leaseUntil),
    created: Number(row.created),
    updated: Number(row.updated),
    unchanged: Number(row.unchanged),
    removed: Number(row.removed),
    failed: Number(row.failed),
  };
}

export async function runRow(db: Database, id: number): Promise<ImportRun | null> {
  const [row] = await db.direct.rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${RUN_COLUMNS} FROM "ImportRun" WHERE "id" = ${id}`,
  );
  return row ? runRowOf(row) : null;
}

/** A page of a source's runs, newest first, and their number. */
export async function runPage(db: Database, sourceId: number, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db.direct.rows<Record<string, unknown>>(
      Prisma.sql`SELECT ${RUN_COLUMNS} FROM "ImportRun" WHERE "sourceId" = ${sourceId} ORDER BY "id" DESC LIMIT ${limit} OFFSET ${offset}`,
    ),
    readCount(db, Prisma.sql`SELECT COUNT(*) AS "total" FROM "ImportRun" WHERE "sourceId" = ${sourceId}`),
  ]);
  return { rows: rows.map(runRowOf), total };
}

/** The last run of each of these sources. */
export async function lastRuns(db: Database, sourceIds: number[]): Promise<Map<number, ImportRun>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db.direct.rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${RUN_COLUMNS} FROM "ImportRun" WHERE "id" IN (
      SELECT MAX("id") FROM "ImportRun" WHERE "sourceId" IN (${Prisma.join(sourceIds)}) GROUP BY "sourceId")`,
  );
  return new Map(rows.map(runRowOf).map((run) => [run.sourceId, run]));
}

/** What a source imported before: its VEVENTs, the events they became, the digests of what the feed said. */
export async function importedRows(db: Database, sourceId: number): Promise<ImportedRow[]> {
  const rows = await db.direct.rows<Record<string, unknown>>(
    Prisma.sql`SELECT "uid", "recurrenceId", "eventId", "digest", "fields", "origin" FROM "ImportedItem" WHERE "sourceId" = ${sourceId}`,
  );
  return rows.map((row) => ({
    uid: String(row.uid),
    recurrenceId: String(row.recurrenceId),
    eventId: numberOrNullOf(row.eventId),
    digest: String(row.digest),
    fields: row.fields === null ? null : String(row.fields),
    origin: row.origin === null ? null : String(row.origin),
  }));
}

/** The events the sources `sourceIds` hold (imported, and not moved to the trash by the import). */
export async function eventsHeldBy(db: Database, sourceIds: number[]): Promise<Set<number>> {
  if (sourceIds.length === 0) return new Set();
  const rows = await db.direct.rows<{ eventId: unknown }>(
    Prisma.sql`SELECT DISTINCT "eventId" FROM "ImportedItem" WHERE "sourceId" IN (${Prisma.join(sourceIds)})
      AND "eventId" IS NOT NULL AND "digest" <> 'removed'`,
  );
  return new Set(rows.map((row) => Number(row.eventId)));
}

/** What the sources of one site brought (see ImportOrigin in prisma/models.prisma). */
export interface OriginRow {
  scope: string;
  kind: string;
  origin: string;
  itemId: number;
  owned: boolean;
  /** {language: digest} */
  digests: Record<string, string>;
}

function originRowOf(row: Record<string, unknown>): OriginRow {
  return {
    scope: String(row.scope),
    kind: String(row.kind),
    origin: String(row.origin),
    itemId: Number(row.itemId),
    owned: Boolean(row.owned),
    digests: JSON.parse(String(row.digests)) as Record<string, string>,
  };
}

const ORIGIN_COLUMNS = Prisma.raw(`"scope", "kind", "origin", "itemId", "owned", "digests"`);

/** The items of `kind` the scope's sources made (owned), by id. */
export async function ownedOfScope(db: Database, scope: string, kind: string): Promise<Set<number>> {
  const rows = await db.direct.rows<{ itemId: unknown }>(
    Prisma.sql`SELECT "itemId" FROM "ImportOrigin" WHERE "scope" = ${scope} AND "kind" = ${kind} AND "owned" = ${true}`,
  );
  return new Set(rows.map((row) => Number(row.itemId)));
}

/**
 * The item of `kind` first made as `origin`: the scope's own, else (`elsewhere`: an origin that is
 * a global id, the same whichever site names it) one of no known scope (from before scopes were
 * kept: `""`), else another scope's; null when none brought it.
 */
export async function originRow(
  db: Database,
  scope: string,
  kind: string,
  origin: string,
  elsewhere: boolean,
): Promise<OriginRow | null> {
  const scopes = elsewhere ? Prisma.empty : Prisma.sql`AND "scope" = ${scope}`;
  const rows = await db.direct.rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${ORIGIN_COLUMNS} FROM "ImportOrigin" WHERE "kind" = ${kind} AND "origin" = ${origin} ${scopes}`,
  );
  const found = rows.map(originRowOf);
  const rank = (row: OriginRow) => (row.scope === scope ? 0 : row.scope === "" ? 1 : row.owned ? 2 : 3);
  return found.sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/** Records what a scope brought (or took as its own: a row of no known scope). */
export async function saveOriginRow(tx: Tx, row: OriginRow, replacing?: OriginRow): Promise<void> {
  if (replacing)
    await tx.$executeRaw`DELETE FROM "ImportOrigin" WHERE "scope" = ${replacing.scope} AND "kind" = ${replacing.kind} AND "origin" = ${replacing.origin}`;
  await tx.$executeRaw`DELETE FROM "ImportOrigin" WHERE "scope" = ${row.scope} AND "kind" = ${row.kind} AND "origin" = ${row.origin}`;
  await insertRows(tx, "ImportOrigin", [{ ...row, digests: JSON.stringify(row.digests) }]);
}

/** Records what a source of the scope last wrote of an item in `language`. */
export async function saveOriginDigest(
  tx: Tx,
  key: Pick<OriginRow, "scope" | "kind" | "origin">,
  language: string,
  digest: string,
): Promise<void> {
  const [row] = await rowsOf(tx).rows<Record<string, unknown>>(
    Prisma.sql`SELECT ${ORIGIN_COLUMNS} FROM "ImportOrigin" WHERE "scope" = ${key.scope} AND "kind" = ${key.kind} AND "origin" = ${key.origin}`,
  );
  if (!row) return;
  const digests = { ...originRowOf(row).digests, [language]: digest };
  await tx.$executeRaw`UPDATE "ImportOrigin" SET "digests" = ${JSON.stringify(digests)} WHERE "scope" = ${key.scope} AND "kind" = ${key.kind} AND "origin" = ${key.origin}`;
}

/**
 * Keeps the lineage an imported event, venue or organizer had at its source (its
 * `global_id_lineage` follows its own id with it).
 */
export async function saveLineage(
  tx: Tx,
  table: "Event" | "Venue" | "Organizer",
  id: number,
  lineage: string[],
): Promise<void> {
  await updateRows(tx, table, Prisma.sql`"id" = ${id}`, { lineage: JSON.stringify(lineage) });
}

/** Records the fields an import left its event with, once the write is committed. */
export async function saveImportedFields(
  db: Database,
  sourceId: number,
  row: Pick<ImportedRow, "uid" | "recurrenceId">,
  fields: string,
): Promise<void> {
  await db.transact(
    (tx) =>
      tx.$executeRaw`UPDATE "ImportedItem" SET "fields" = ${fields} WHERE "sourceId" = ${sourceId} AND "uid" = ${row.uid} AND "recurrenceId" = ${row.recurrenceId}`,
  );
}

/** Records what a VEVENT became, in the transaction of the write that made it so. */
export async function saveImportedRow(tx: Tx, sourceId: number, row: ImportedRow): Promise<void> {
  await tx.$executeRaw`DELETE FROM "ImportedItem" WHERE "sourceId" = ${sourceId} AND "uid" = ${row.uid} AND "recurrenceId" = ${row.recurrenceId}`;
  await insertRows(tx, "ImportedItem", [{ sourceId, ...row }]);
}

/** Forgets a VEVENT of a source (it left the feed, and what it became was dealt with). */
export async function deleteImportedRow(tx: Tx, sourceId: number, row: Pick<ImportedRow, "uid" | "recurrenceId">) {
  await tx.$executeRaw`DELETE FROM "ImportedItem" WHERE "sourceId" = ${sourceId} AND "uid" = ${row.uid} AND "recurrenceId" = ${row.recurrenceId}`;
}

/** Runs a write of the import tables alone (when no event write carries it). */
export function writeImportRows(db: Database, work: (tx: Tx) => Promise<void>): Promise<void> {
  return db.transact(work);
}

/** The user a source writes as: their login and role (null: gone). */
export async function ownerOf(db: Database, userId: number): Promise<{ login: string; role: string } | null> {
  const [row] = await db.direct.rows<{ login: string; role: string }>(
    Prisma.sql`SELECT "login", "role" FROM "User" WHERE "id" = ${userId}`,
  );
  return row ?? null;
}
