// Compiled (strictly) and run by test/sdk-generation.test.ts beside a client that
// @hey-api/openapi-ts generated from the live /doc, in ./client: every operation of the document,
// called with its required fields, as a third party would. Not part of this project's build.
import * as sdk from "./client/sdk.gen";
import { createClient, createConfig } from "./client/client";

export async function exercise(baseUrl: string, adminToken: string): Promise<Record<string, number>> {
  // How a generated client authenticates: the document offers Bearer (API keys) and Basic (user
  // and password) as alternatives; give the token for the scheme it belongs to only.
  const admin = createClient(
    createConfig({ baseUrl, auth: (scheme) => (scheme.scheme === "bearer" ? adminToken : undefined) }),
  );
  const anonymous = createClient(createConfig({ baseUrl }));
  const statuses: Record<string, number> = {};
  const seen = async <T extends { response: Response }>(name: string, call: Promise<T>): Promise<T> => {
    const result = await call;
    statuses[name] = result.response.status;
    return result;
  };
  const stamp = Date.now();

  await seen("getNamespaceIndex", sdk.getNamespaceIndex({ client: anonymous }));
  await seen("getRestIndex", sdk.getRestIndex({ client: anonymous }));
  await seen("getApiDocumentation", sdk.getApiDocumentation({ client: anonymous }));
  await seen("getHealth", sdk.getHealth({ client: anonymous }));
  await seen("getReadiness", sdk.getReadiness({ client: anonymous }));
  const metrics = await seen("getMetrics", sdk.getMetrics({ client: anonymous }));
  if (typeof metrics.data !== "string" || !metrics.data.includes("# TYPE ")) statuses.unreadableMetrics = 0;

  const category = (
    await seen("createCategory", sdk.createCategory({ client: admin, body: { name: `Generated ${stamp}` } }))
  ).data!;
  await seen("listCategories", sdk.listCategories({ client: anonymous, query: { hide_empty: false } }));
  await seen("getCategory", sdk.getCategory({ client: anonymous, path: { id: category.id } }));
  await seen(
    "patchCategory",
    sdk.patchCategory({ client: admin, path: { id: category.id }, body: { description: "Patched" } }),
  );
  await seen(
    "updateCategory",
    sdk.updateCategory({ client: admin, path: { id: category.id }, body: { description: "Updated" } }),
  );
  await seen(
    "putCategory",
    sdk.putCategory({ client: admin, path: { id: category.id }, body: { description: "Put" } }),
  );

  const tag = (await seen("createTag", sdk.createTag({ client: admin, body: { name: `generated-${stamp}` } }))).data!;
  await seen("listTags", sdk.listTags({ client: anonymous, query: { hide_empty: false } }));
  await seen("getTag", sdk.getTag({ client: anonymous, path: { id: tag.id } }));
  await seen("patchTag", sdk.patchTag({ client: admin, path: { id: tag.id }, body: { description: "Patched" } }));
  await seen("updateTag", sdk.updateTag({ client: admin, path: { id: tag.id }, body: { description: "Updated" } }));
  await seen("putTag", sdk.putTag({ client: admin, path: { id: tag.id }, body: { description: "Put" } }));

  const venue = (
    await seen(
      "createVenue",
      sdk.createVenue({ client: admin, body: { venue: `Generated Hall ${stamp}`, city: "Lisbon" } }),
    )
  ).data!;
  await seen("listVenues", sdk.listVenues({ client: anonymous }));
  await seen("getVenue", sdk.getVenue({ client: anonymous, path: { id: venue.id } }));
  await seen("getVenueBySlug", sdk.getVenueBySlug({ client: anonymous, path: { slug: venue.slug } }));
  await seen("patchVenue", sdk.patchVenue({ client: admin, path: { id: venue.id }, body: { phone: "1" } }));
  await seen("updateVenue", sdk.updateVenue({ client: admin, path: { id: venue.id }, body: { phone: "2" } }));
  await seen("putVenue", sdk.putVenue({ client: admin, path: { id: venue.id }, body: { phone: "3" } }));
  await seen(
    "patchVenueBySlug",
    sdk.patchVenueBySlug({ client: admin, path: { slug: venue.slug }, body: { phone: "4" } }),
  );
  await seen(
    "updateVenueBySlug",
    sdk.updateVenueBySlug({ client: admin, path: { slug: venue.slug }, body: { phone: "5" } }),
  );
  await seen("putVenueBySlug", sdk.putVenueBySlug({ client: admin, path: { slug: venue.slug }, body: { phone: "6" } }));

  const organizer = (
    await seen(
      "createOrganizer",
      sdk.createOrganizer({ client: admin, body: { organizer: `Generated Society ${stamp}` } }),
    )
  ).data!;
  await seen("listOrganizers", sdk.listOrganizers({ client: anonymous }));
  await seen("getOrganizer", sdk.getOrganizer({ client: anonymous, path: { id: organizer.id } }));
  await seen("getOrganizerBySlug", sdk.getOrganizerBySlug({ client: anonymous, path: { slug: organizer.slug } }));
  await seen("patchOrganizer", sdk.patchOrganizer({ client: admin, path: { id: organizer.id }, body: { phone: "1" } }));
  await seen(
    "updateOrganizer",
    sdk.updateOrganizer({ client: admin, path: { id: organizer.id }, body: { phone: "2" } }),
  );
  await seen("putOrganizer", sdk.putOrganizer({ client: admin, path: { id: organizer.id }, body: { phone: "3" } }));
  await seen(
    "patchOrganizerBySlug",
    sdk.patchOrganizerBySlug({ client: admin, path: { slug: organizer.slug }, body: { phone: "4" } }),
  );
  await seen(
    "updateOrganizerBySlug",
    sdk.updateOrganizerBySlug({ client: admin, path: { slug: organizer.slug }, body: { phone: "5" } }),
  );
  await seen(
    "putOrganizerBySlug",
    sdk.putOrganizerBySlug({ client: admin, path: { slug: organizer.slug }, body: { phone: "6" } }),
  );

  const event = (
    await seen(
      "createEvent",
      sdk.createEvent({
        client: admin,
        body: {
          title: `Generated Concert ${stamp}`,
          start_date: "2030-01-10 20:00:00",
          end_date: "2030-01-10 22:00:00",
          venue: [venue.id],
          organizer: [organizer.id],
          categories: [category.id],
          tags: [tag.id],
        },
      }),
    )
  ).data!;
  await seen(
    "listEvents",
    sdk.listEvents({ client: anonymous, query: { start_date: "2030-01-01", end_date: "2030-01-31", per_page: 5 } }),
  );
  await seen("getEvent", sdk.getEvent({ client: anonymous, path: { id: event.id } }));
  await seen("getEventBySlug", sdk.getEventBySlug({ client: anonymous, path: { slug: event.slug } }));
  // The feeds: the generated functions give their iCalendar as text, ready to read.
  const feed = await seen("getEventsFeed", sdk.getEventsFeed({ client: anonymous, query: { featured: "0" } }));
  const file = await seen("getEventCalendar", sdk.getEventCalendar({ client: anonymous, path: { id: event.id } }));
  for (const calendar of [feed.data, file.data])
    if (typeof calendar !== "string" || !calendar.startsWith("BEGIN:VCALENDAR")) statuses.unreadableFeed = 0;
  await seen("patchEvent", sdk.patchEvent({ client: admin, path: { id: event.id }, body: { cost: "$1" } }));
  await seen("updateEvent", sdk.updateEvent({ client: admin, path: { id: event.id }, body: { cost: "$2" } }));
  await seen("putEvent", sdk.putEvent({ client: admin, path: { id: event.id }, body: { cost: "$3" } }));
  await seen(
    "patchEventBySlug",
    sdk.patchEventBySlug({ client: admin, path: { slug: event.slug }, body: { cost: "$4" } }),
  );
  await seen(
    "updateEventBySlug",
    sdk.updateEventBySlug({ client: admin, path: { slug: event.slug }, body: { cost: "$5" } }),
  );
  await seen("putEventBySlug", sdk.putEventBySlug({ client: admin, path: { slug: event.slug }, body: { cost: "$6" } }));

  // Webhooks: a receiver on a loopback name, which the service refuses at delivery time (a ping
  // answers how it went, without sending anything).
  const webhook = (
    await seen(
      "createWebhook",
      sdk.createWebhook({ client: admin, body: { url: "http://localhost:9/hook", event_types: ["event.created"] } }),
    )
  ).data!;
  await seen("listWebhooks", sdk.listWebhooks({ client: admin }));
  await seen("getWebhook", sdk.getWebhook({ client: admin, path: { id: webhook.id } }));
  await seen("patchWebhook", sdk.patchWebhook({ client: admin, path: { id: webhook.id }, body: { active: false } }));
  await seen(
    "updateWebhook",
    sdk.updateWebhook({ client: admin, path: { id: webhook.id }, body: { description: "Updated" } }),
  );
  await seen(
    "putWebhook",
    sdk.putWebhook({ client: admin, path: { id: webhook.id }, body: { filter: { categories: [category.id] } } }),
  );
  await seen("pingWebhook", sdk.pingWebhook({ client: admin, path: { id: webhook.id } }));
  await seen(
    "listWebhookDeliveries",
    sdk.listWebhookDeliveries({ client: admin, path: { id: webhook.id }, query: { status: "failed" } }),
  );
  await seen("deleteWebhook", sdk.deleteWebhook({ client: admin, path: { id: webhook.id } }));

  // Imports: a feed on a loopback name, which the service refuses when it fetches (the run answers
  // how it went: failed, and why).
  const source = (
    await seen(
      "createImport",
      sdk.createImport({ client: admin, body: { url: "http://localhost:9/calendar.ics", frequency: "manual" } }),
    )
  ).data!;
  await seen("listImports", sdk.listImports({ client: admin }));
  await seen("getImport", sdk.getImport({ client: admin, path: { id: source.id } }));
  await seen("patchImport", sdk.patchImport({ client: admin, path: { id: source.id }, body: { active: false } }));
  await seen("updateImport", sdk.updateImport({ client: admin, path: { id: source.id }, body: { status: "draft" } }));
  await seen("putImport", sdk.putImport({ client: admin, path: { id: source.id }, body: { tags: [] } }));
  const run = await seen("runImport", sdk.runImport({ client: admin, path: { id: source.id } }));
  if (run.data?.status !== "failed") statuses.unrefusedImport = 0;
  await seen("listImportRuns", sdk.listImportRuns({ client: admin, path: { id: source.id } }));
  await seen("deleteImport", sdk.deleteImport({ client: admin, path: { id: source.id } }));

  // Deletes last: by slug first (to the trash), then by id (the event in the trash, for good).
  await seen("deleteEventBySlug", sdk.deleteEventBySlug({ client: admin, path: { slug: event.slug } }));
  await seen("deleteEvent", sdk.deleteEvent({ client: admin, path: { id: event.id }, query: { force: true } }));
  await seen("deleteVenueBySlug", sdk.deleteVenueBySlug({ client: admin, path: { slug: venue.slug } }));
  await seen("deleteVenue", sdk.deleteVenue({ client: admin, path: { id: venue.id }, query: { force: true } }));
  await seen("deleteOrganizerBySlug", sdk.deleteOrganizerBySlug({ client: admin, path: { slug: organizer.slug } }));
  await seen(
    "deleteOrganizer",
    sdk.deleteOrganizer({ client: admin, path: { id: organizer.id }, query: { force: true } }),
  );
  await seen("deleteCategory", sdk.deleteCategory({ client: admin, path: { id: category.id } }));
  await seen("deleteTag", sdk.deleteTag({ client: admin, path: { id: tag.id } }));
  return statuses;
}

/** Never called: what must not compile, because the document says a field is required. */
export function requiredFieldsAreRequired(): void {
  // @ts-expect-error title, start_date and end_date are required
  void sdk.createEvent({ body: { cost: "$1" } });
  // @ts-expect-error start_date and end_date are required
  void sdk.createEvent({ body: { title: "No dates" } });
  // @ts-expect-error venue (the name) is required
  void sdk.createVenue({ body: { city: "Oslo" } });
  // @ts-expect-error organizer (the name) is required
  void sdk.createOrganizer({ body: { email: "a@example.org" } });
  // @ts-expect-error name is required
  void sdk.createCategory({ body: { description: "No name" } });
  // @ts-expect-error name is required
  void sdk.createTag({ body: {} });
  // @ts-expect-error the id is required
  void sdk.getEvent({ path: {} });
  // @ts-expect-error url is required
  void sdk.createWebhook({ body: { event_types: ["event.created"] } });
  // @ts-expect-error the slug is required
  void sdk.getVenueBySlug({});
  // @ts-expect-error url is required
  void sdk.createImport({ body: { frequency: "hourly" } });
}
