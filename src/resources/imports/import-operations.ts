import type { Request } from "express";
import { sendPage } from "../../http/collection";
import { sendRepresentation } from "../../http/conditional";
import { ApiError } from "../../http/errors";
import { bodyOf, itemRefOf, queryOf, type OperationHandler, type Operations } from "../../http/operation-types";
import { context } from "../../http/request-context";
import type { Services } from "../../services";
import { runPage } from "./import-repository";
import type { RunDependencies } from "./import-run";
import { serializeRun, serializeSource } from "./import-serializer";
import { createSource, deleteSource, findSource, listSources, updateSource, type Source } from "./import-sources";
import { runNow } from "./import-worker";

/** What a run needs of the services. */
export function runDependencies(services: Pick<Services, "db" | "config" | "logger" | "bridges">): RunDependencies {
  const { db, config, logger, bridges } = services;
  return { db, config, logger, events: bridges.importedEvents, linked: bridges.importedLinkedItems };
}

/** The import sources' operations (administrators only: the spec's scopes say so). */
export function importOperations(
  services: Services,
): Operations<
  | "listImports"
  | "createImport"
  | "getImport"
  | "updateImport"
  | "putImport"
  | "patchImport"
  | "deleteImport"
  | "runImport"
  | "listImportRuns"
> {
  const { db, config } = services;
  const idOf = (req: Request) => (itemRefOf(req) as { id: number }).id;
  const found = async (req: Request): Promise<Source> => {
    const source = await findSource(db, idOf(req));
    if (!source) throw new ApiError("rest_import_not_found", { id: idOf(req) });
    return source;
  };

  const list: OperationHandler = (req, res) => {
    const ctx = context(req);
    const page = { path: "/imports", key: "imports", query: queryOf(req, "listImports") };
    return sendPage(req, res, config, page, async (offset, limit) => {
      const { items, total } = await listSources(db, offset, limit);
      return { items: items.map((item) => serializeSource(item, ctx)), total };
    });
  };

  const create: OperationHandler = async (req, res) => {
    const ctx = context(req);
    const owner = { userId: ctx.principal!.userId, language: ctx.language };
    const source = await createSource(db, config, bodyOf(req, "createImport"), owner, services.clock());
    const body = serializeSource(source, ctx);
    res.setHeader("Location", body.rest_url);
    sendRepresentation(res, body, { status: 201 });
  };

  const get: OperationHandler = async (req, res) =>
    sendRepresentation(res, serializeSource(await found(req), context(req)));

  const update: OperationHandler = async (req, res) => {
    const updated = await updateSource(db, config, await found(req), bodyOf(req, "updateImport"), services.clock());
    if (!updated) throw new ApiError("rest_import_not_found", { id: idOf(req) });
    sendRepresentation(res, serializeSource(updated, context(req)));
  };

  const remove: OperationHandler = async (req, res) => {
    const source = await found(req);
    await deleteSource(db, source.row.id);
    sendRepresentation(res, { deleted: true, previous: serializeSource(source, context(req)) }, { etag: null });
  };

  const run: OperationHandler = async (req, res) => {
    const source = await found(req);
    const outcome = await runNow(runDependencies(services), source.row.id, config.imports.runWaitMs);
    if (outcome === "running") throw new ApiError("rest_import_running", { id: source.row.id });
    sendRepresentation(res, serializeRun(outcome.run), { status: outcome.finished ? 200 : 202, etag: null });
  };

  const runs: OperationHandler = async (req, res) => {
    const { id } = (await found(req)).row;
    const page = { path: `/imports/${id}/runs`, key: "runs", query: queryOf(req, "listImportRuns") };
    await sendPage(req, res, config, page, async (offset, limit) => {
      const { rows, total } = await runPage(db, id, offset, limit);
      return { items: rows.map((run) => serializeRun(run)), total };
    });
  };

  return {
    listImports: { run: list },
    createImport: { run: create },
    getImport: { run: get },
    updateImport: { run: update },
    putImport: { run: update },
    patchImport: { run: update },
    deleteImport: { run: remove },
    runImport: { run },
    listImportRuns: { run: runs },
  };
}
