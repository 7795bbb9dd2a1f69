import type { components } from "../../generated/api-types";
import type { TestServer } from "./test-server";

export type Collection = "categories" | "tags";
export type TermJson = components["schemas"]["Category"] | components["schemas"]["Tag"];

export interface TermInput {
  name: string;
  description?: string;
  slug?: string;
  parent?: number;
}

/** Creates a category or tag through the typed client, as the administrator; fails the test if refused. */
export async function createTermVia(server: TestServer, collection: Collection, input: TermInput): Promise<TermJson> {
  const { data, error, response } =
    collection === "categories"
      ? await server.admin.POST("/categories", { body: input })
      : await server.admin.POST("/tags", { body: input });
  if (response.status !== 201 || !data)
    throw new Error(
      `creating ${collection} ${JSON.stringify(input)} gave ${response.status}: ${JSON.stringify(error)}`,
    );
  return data;
}

export async function createTermsVia(server: TestServer, collection: Collection, names: string[]): Promise<TermJson[]> {
  const terms: TermJson[] = [];
  for (const name of names) terms.push(await createTermVia(server, collection, { name }));
  return terms;
}

export type LinkedCollection = "venues" | "organizers";
export type VenueJson = components["schemas"]["Venue"];
export type OrganizerJson = components["schemas"]["Organizer"];

/** Creates a venue or organizer through the API, as the administrator; fails the test if refused. */
export async function createLinkedVia(
  server: TestServer,
  collection: LinkedCollection,
  input: Record<string, unknown>,
): Promise<VenueJson & OrganizerJson> {
  const response = await server.raw("POST", `/calendar/events/v1/${collection}`, {
    body: input,
    headers: { Authorization: `Bearer ${server.config.adminToken}` },
  });
  if (response.status !== 201)
    throw new Error(`creating ${collection} ${JSON.stringify(input)} gave ${response.status}: ${response.text}`);
  return response.body;
}

/** The name field of a venue or organizer body. */
export function nameField(collection: LinkedCollection): "venue" | "organizer" {
  return collection === "venues" ? "venue" : "organizer";
}

export async function createNamedVia(
  server: TestServer,
  collection: LinkedCollection,
  names: string[],
  extra: Record<string, unknown> = {},
) {
  const created = [];
  for (const name of names)
    created.push(await createLinkedVia(server, collection, { [nameField(collection)]: name, ...extra }));
  return created;
}

/** A user, straight into the database (there is no users API; the CLI makes them in production). */
export async function createUser(server: TestServer, login: string, role: string): Promise<{ id: number }> {
  return server.db.write.user.create({ data: { login, displayName: login, role }, select: { id: true } });
}

/** Removes every event, venue, organizer and term (what a test wrote), keeping the users. */
export async function clearContent(server: TestServer): Promise<void> {
  await server.db.write.event.deleteMany({});
  await server.db.write.venue.deleteMany({});
  await server.db.write.organizer.deleteMany({});
  await server.db.write.term.deleteMany({});
}
