import express, { type Express } from "express";
import { authenticate } from "./auth/authenticate";
import { CredentialVerifier } from "./auth/credentials";
import { EventPasswords } from "./auth/event-passwords";
import { RepresentationCache } from "./sync/representation-cache";
import { SyncTokens } from "./sync/sync-token";
import type { Config } from "./config";
import type { Database } from "./db/database";
import { responseCompression } from "./http/compression";
import { cors } from "./http/cors";
import { createErrorHandler } from "./http/error-handler";
import type { AllOperations } from "./http/operation-types";
import { checkWriteTargets } from "./auth/write-targets";
import {
  discoveryLink,
  headAsGet,
  languagePrefix,
  namespaceRootSlash,
  noRoute,
  resolveContext,
  restIndexAliases,
} from "./http/request-pipeline";
import { readRequestBody } from "./http/request-body";
import { refuseCrossSiteWrites } from "./http/cross-site-writes";
import { jsonpCallbacks } from "./http/jsonp";
import { responseShaping } from "./http/response-shaping";
import { methodOverride, queryFieldsOfWrites, restRouteParameter } from "./http/wordpress-requests";
import { perLanguage, type Language } from "./i18n/languages";
import type { Logger } from "./logging/logger";
import { reportStoredValuesTo } from "./logging/stored-values";
import { rateLimit } from "./http/rate-limit";
import { securityHeaders } from "./http/security-headers";
import { requestLog } from "./logging/request-log";
import { Documentation } from "./openapi/documentation";
import { rejectNulInPath } from "./openapi/input-guard";
import { buildIndexRoutes, type IndexRoute } from "./openapi/namespace-index";
import { matchedOperationId } from "./openapi/query-normalizer";
import { intendedOperation, routeOptions } from "./openapi/route-options";
import { checkHandlers, mountOperations } from "./openapi/router";
import { documentedSpec, loadBundledSpec, namespaceBasePath, operationsOf, runtimeSpec } from "./openapi/spec";
import { specValidation } from "./openapi/validation";
import { eventOperations } from "./resources/events/event-operations";
import { healthOperations } from "./resources/health/health-operations";
import { namespaceOperations } from "./resources/namespace/namespace-operations";
import { organizerOperations } from "./resources/organizers/organizer-operations";
import { categoryOperations, tagOperations } from "./resources/terms/term-operations";
import { venueOperations } from "./resources/venues/venue-operations";
import { webhookOperations } from "./resources/webhooks/webhook-operations";
import { importedEventWriters } from "./resources/events/event-import-writes";
import { importedLinkedItemWriters } from "./resources/post-kernel/linked-post-import-writes";
import { importOperations } from "./resources/imports/import-operations";
import type { ResourceBridges, Services } from "./services";
import { eventFilterOf } from "./resources/events/event-store";
import { organizerStore } from "./resources/organizers/organizer-store";
import { nameTermIn, termIdsForEvent, termOfName } from "./resources/terms/term-store";
import { venueStore } from "./resources/venues/venue-store";
import * as credentialStore from "./resources/users/user-repository";
import { webhookQueueDepths } from "./resources/webhooks/webhook-repository";
import { Metrics } from "./metrics/metrics";
import { isWarmUpRequest, rememberWarmUp } from "./http/warm-up";

const ORIGIN_PROBES = ["getHealth", "getReadiness", "getMetrics"];

export interface AppOptions {
  config: Config;
  db: Database;
  logger: Logger;
  clock?: () => Date;
  /** What /metrics shows (server.ts shares it with the webhook worker); else the app's own. */
  metrics?: Metrics;
}

/** The metrics of a service on `db`. */
export function serviceMetrics(db: Database): Metrics {
  return new Metrics({ db, webhookQueues: () => webhookQueueDepths(db) });
}

/** Every operation of the spec, from each resource's module. */
function resourceOperations(
  services: Services,
  documentation: Documentation,
  indexRoutes: (language: Language) => Map<string, IndexRoute>,
): AllOperations {
  return {
    ...healthOperations(services),
    ...namespaceOperations(services, indexRoutes, documentation),
    ...eventOperations(services),
    ...venueOperations(services),
    ...organizerOperations(services),
    ...categoryOperations(services),
    ...tagOperations(services),
    ...webhookOperations(services),
    ...importOperations(services),
  };
}

/** What resources need of one another's rules (see ResourceBridges): wired here, so that no resource imports another's store. */
const LINKED_ITEMS = {
  venue: venueStore.reuseOrCreate,
  organizer: organizerStore.reuseOrCreate,
  terms: termIdsForEvent,
};
export const BRIDGES: ResourceBridges = {
  eventFilterOf,
  linkedItems: LINKED_ITEMS,
  importedEvents: importedEventWriters(LINKED_ITEMS),
  importedLinkedItems: importedLinkedItemWriters(
    { venue: venueStore, organizer: organizerStore },
    { term: termOfName, nameTerm: nameTermIn },
  ),
};

/** The HTTP application: everything the spec declares, nothing it does not. */
export function createApp({
  config,
  db,
  logger,
  clock = () => new Date(),
  metrics = serviceMetrics(db),
}: AppOptions): Express {
  // The routes run on the English document; each language's document (the same but for its
  // texts) is what /doc and the namespace index show in that language.
  // The other languages' documents are read when first asked for (/doc, the namespace index): a
  // tenth of a start-up for the three.
  reportStoredValuesTo(logger);
  const documentOf = perLanguage((language) => documentedSpec(loadBundledSpec(language), config));
  const namespaceOf = perLanguage((language) => runtimeSpec(documentOf(language), config));
  const spec = namespaceOf("en");
  const operations = operationsOf(documentOf("en"));
  // The health probes answer in the namespace, where the document puts them, and at the origin,
  // where orchestrators probe (no language prefix, no rate limit).
  const probes = operations.filter((operation) => ORIGIN_PROBES.includes(operation.operationId));
  const documentation = new Documentation(documentOf);
  // Each language's namespace index is built when it is first asked for: building all three took
  // a tenth of every start-up.
  const indexRoutes = perLanguage((language) => buildIndexRoutes(operationsOf(namespaceOf(language))));
  const representations = new RepresentationCache(db, config.representationCacheBytes, (hit) =>
    metrics.representationLookups.inc({ result: hit ? "hit" : "miss" }),
  );
  metrics.observeCache(representations);
  const services: Services = {
    config,
    db,
    logger,
    clock,
    eventPasswords: new EventPasswords(db),
    syncTokens: new SyncTokens(db),
    representations,
    bridges: BRIDGES,
    metrics,
  };
  const handlers = resourceOperations(services, documentation, indexRoutes);
  checkHandlers(operations, handlers);

  const labelOf = intendedOperation(namespaceBasePath(config), indexRoutes, operations, matchedOperationId);
  const app = express();
  app.disable("x-powered-by");
  // Representations carry strong tags of our own (http/conditional.ts), not Express's weak ones.
  app.set("etag", false);
  app.set("query parser", "extended");
  app.set("trust proxy", config.trustProxy);
  app.use(
    requestLog(logger, isWarmUpRequest, (req, res, seconds) => metrics.observeRequest(req, res, seconds, labelOf)),
  );
  app.use(securityHeaders);
  app.use(cors(config.corsOrigins));
  app.use(responseCompression());
  // Outside the namespace: no language prefix, no rate limit (see the spec's Health section).
  mountOperations(app, probes, handlers, "");
  app.use(languagePrefix);
  app.use(discoveryLink(config));
  app.use(restRouteParameter(config.restRoot));
  app.use(restIndexAliases(config.restRoot, namespaceBasePath(config)));
  app.use(jsonpCallbacks(config.jsonp));
  app.use(responseShaping);
  app.use(rateLimit(config.rateLimitPerMinute));
  app.use(rejectNulInPath);
  app.use(namespaceRootSlash(namespaceBasePath(config)));
  app.use(headAsGet);
  // Before the override: a page elsewhere sends `POST ...?_method=DELETE`, and no preflight asks.
  app.use(refuseCrossSiteWrites(config));
  app.use(methodOverride);
  app.use(authenticate(new CredentialVerifier(db, config, credentialStore)));
  app.use(routeOptions(config, namespaceBasePath(config), indexRoutes, operations));
  app.use(
    specValidation(spec, operations, {
      validateResponses: config.validateResponses,
      authorization: [checkWriteTargets(handlers)],
      bodyReaders: [readRequestBody(config.bodyLimitBytes), queryFieldsOfWrites],
    }),
  );
  app.use(resolveContext(config));
  mountOperations(app, operations, handlers, namespaceBasePath(config));
  rememberWarmUp(app, operations, namespaceBasePath(config));
  app.use(noRoute);
  app.use(createErrorHandler(config, logger));
  return app;
}
