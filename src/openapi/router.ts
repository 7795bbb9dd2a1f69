import type { Express } from "express";
import type { AllOperations } from "../http/operation-types";
import { mountedPath, type SpecOperation } from "./spec";
import { nameRequestSpan } from "../tracing/tracing";

/**
 * The spec decides which routes exist: an operation without a handler, or a handler without an
 * operation, stops the service from starting.
 */
export function checkHandlers(operations: SpecOperation[], handlers: AllOperations): void {
  const declared = new Set(operations.map((operation) => operation.operationId));
  const missing = [...declared].filter((id) => !(id in handlers));
  const extra = Object.keys(handlers).filter((id) => !declared.has(id));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `spec and handlers disagree: no handler for [${missing.join(", ")}], no operation for [${extra.join(", ")}]`,
    );
  }
}

/** Mounts one Express route per operation, under `basePath`, with the handler of its operationId. */
export function mountOperations(
  app: Express,
  operations: SpecOperation[],
  handlers: AllOperations,
  basePath: string,
): void {
  // Express tries routes in order: literal path segments must come before parameters
  // (`/events/by-slug/{slug}` before a hypothetical `/events/{id}/{x}`), and a parameter with a
  // literal part before a bare one (`/events/{id}.ics` before `/events/{id}`).
  const specificity = (path: string) =>
    path
      .split("/")
      .map((segment) => (!segment.includes("{") ? "0" : /^\{\w+\}$/.test(segment) ? "2" : "1"))
      .join("");
  const sorted = [...operations].sort((a, b) => specificity(a.path).localeCompare(specificity(b.path)));
  for (const operation of sorted) {
    const path = mountedPath(basePath, operation.path, (name) => `:${name}`);
    const route = mountedPath(basePath, operation.path);
    const { operationId } = operation;
    app[operation.method](path, (req, res) => {
      // Which operation answered (the metrics label requests with it, validated or not; traces too).
      res.locals.operationId = operationId;
      nameRequestSpan(route, operationId);
      return handlers[operationId as keyof AllOperations].run(req, res);
    });
  }
}
