import express, { type Express } from "express";
import { authenticate } from "./auth/authenticate";
import { CredentialVerifier } from "./auth/credentials";
import type { Config } from "./config";
import type { Database } from "./db/database";
import { cors } from "./http/cors";
import { createErrorHandler } from "./http/error-handler";
import type { OperationHandlers } from "./http/operation-types";
import { headAsGet, jsonBody, languagePrefix, namespaceRootSlash, noRoute, resolveContext } from "./http/request-pipeline";
import { LANGUAGES, type Language } from "./i18n/languages";
import type { Logger } from "./logging/logger";
import { rateLimit } from "./http/rate-limit";
import { securityHeaders } from "./http/security-headers";
import { requestLog } from "./logging/request-log";
import { Documentation } from "./openapi/documentation";
import { rejectNulInPath } from "./openapi/nul-guard";
import { buildIndexRoutes, type IndexRoute } from "./openapi/namespace-index";
import { checkHandlers, mountOperations } from "./openapi/router";
import { documentedSpec, loadBundledSpec, namespaceBasePath, operationsOf, runtimeSpec } from "./openapi/spec";
import { specValidation } from "./openapi/validation";
import { eventHandlers } from "./resources/events/event-handlers";
import { healthHandlers } from "./resources/health/health-handlers";
import { namespaceHandlers } from "./resources/namespace/namespace-handlers";
import { ORGANIZERS } from "./resources/organizers/organizer-resource";
import { authorizeItemWrites } from "./resources/posts/item-authorization";
import { linkedPostHandlers } from "./resources/posts/linked-post-handlers";
import { CATEGORIES, TAGS } from "./resources/terms/taxonomies";
import { termHandlers } from "./resources/terms/term-handlers";
import { VENUES } from "./resources/venues/venue-resource";
import type { Services } from "./services";

export interface AppOptions {
  config: Config;
  db: Database;
  logger: Logger;
  clock?: () => Date;
}

function operationHandlers(services: Services, documentation: Documentation, indexRoutes: Map<Language, Map<string, IndexRoute>>): OperationHandlers {
  const categories = termHandlers(CATEGORIES, services);
  const tags = termHandlers(TAGS, services);
  const events = eventHandlers(services);
  const venues = linkedPostHandlers(VENUES, services);
  const organizers = linkedPostHandlers(ORGANIZERS, services);
  return {
    ...healthHandlers(services),
    ...namespaceHandlers(services, indexRoutes, documentation),
    listEvents: events.list,
    createEvent: events.create,
    getEvent: events.get,
    updateEvent: events.update,
    putEvent: events.update,
    patchEvent: events.update,
    deleteEvent: events.remove,
    getEventBySlug: events.get,
    updateEventBySlug: events.update,
    putEventBySlug: events.update,
    patchEventBySlug: events.update,
    deleteEventBySlug: events.remove,
    listVenues: venues.list,
    createVenue: venues.create,
    getVenue: venues.get,
    updateVenue: venues.update,
    putVenue: venues.update,
    patchVenue: venues.update,
    deleteVenue: venues.remove,
    getVenueBySlug: venues.getBySlug,
    updateVenueBySlug: venues.updateBySlug,
    putVenueBySlug: venues.updateBySlug,
    patchVenueBySlug: venues.updateBySlug,
    deleteVenueBySlug: venues.removeBySlug,
    listOrganizers: organizers.list,
    createOrganizer: organizers.create,
    getOrganizer: organizers.get,
    updateOrganizer: organizers.update,
    putOrganizer: organizers.update,
    patchOrganizer: organizers.update,
    deleteOrganizer: organizers.remove,
    getOrganizerBySlug: organizers.getBySlug,
    updateOrganizerBySlug: organizers.updateBySlug,
    putOrganizerBySlug: organizers.updateBySlug,
    patchOrganizerBySlug: organizers.updateBySlug,
    deleteOrganizerBySlug: organizers.removeBySlug,
    listCategories: categories.list,
    createCategory: categories.create,
    getCategory: categories.get,
    updateCategory: categories.update,
    putCategory: categories.update,
    patchCategory: categories.update,
    deleteCategory: categories.remove,
    listTags: tags.list,
    createTag: tags.create,
    getTag: tags.get,
    updateTag: tags.update,
    putTag: tags.update,
    patchTag: tags.update,
    deleteTag: tags.remove,
  };
}

/** The HTTP application: everything the spec declares, nothing it does not. */
export function createApp({ config, db, logger, clock = () => new Date() }: AppOptions): Express {
  // The routes run on the English document; each language's document (the same but for its
  // texts) is what /doc and the namespace index show in that language.
  const documents = new Map(LANGUAGES.map((language) => [language, documentedSpec(loadBundledSpec(language), config)]));
  const namespaces = new Map(LANGUAGES.map((language) => [language, runtimeSpec(documents.get(language)!, config)]));
  const spec = namespaces.get("en")!;
  const allOperations = operationsOf(documents.get("en")!);
  const operations = allOperations.filter((operation) => !operation.atOrigin);
  const originOperations = allOperations.filter((operation) => operation.atOrigin);
  const documentation = new Documentation(documents);
  const indexRoutes = new Map(LANGUAGES.map((language) => [language, buildIndexRoutes(operationsOf(namespaces.get(language)!))]));
  const services: Services = { config, db, logger, clock };
  const handlers = operationHandlers(services, documentation, indexRoutes);
  checkHandlers([...originOperations, ...operations], handlers);

  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "extended");
  app.set("trust proxy", config.trustProxy);
  app.use(requestLog(logger));
  app.use(securityHeaders);
  app.use(cors(config.corsOrigins));
  // Outside the namespace: no language prefix, no rate limit (see the spec's Health section).
  mountOperations(app, originOperations, handlers, "");
  app.use(languagePrefix);
  app.use(rateLimit(config.rateLimitPerMinute));
  app.use(rejectNulInPath);
  app.use(namespaceRootSlash(namespaceBasePath(config)));
  app.use(headAsGet);
  app.use(jsonBody(config.bodyLimitBytes));
  app.use(authenticate(new CredentialVerifier(db, config)));
  app.use(specValidation(spec, operations, { validateResponses: config.validateResponses, authorization: [authorizeItemWrites(operations, db, config)] }));
  app.use(resolveContext(config));
  mountOperations(app, operations, handlers, namespaceBasePath(config));
  app.use(noRoute);
  app.use(createErrorHandler(config, logger));
  return app;
}
