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

/** Creates a category or tag through the API, as the administrator; fails the test if refused. */
export async function createTermVia(server: TestServer, collection: Collection, input: TermInput): Promise<TermJson> {
  const response = await server.raw("POST", `/calendar/events/v1/${collection}`, {
    body: input,
    headers: { Authorization: `Bearer ${server.config.adminToken}` },
  });
  if (response.status !== 201) throw new Error(`creating ${collection} ${JSON.stringify(input)} gave ${response.status}: ${response.text}`);
  return response.body as TermJson;
}

export async function createTermsVia(server: TestServer, collection: Collection, names: string[]): Promise<TermJson[]> {
  const terms: TermJson[] = [];
  for (const name of names) terms.push(await createTermVia(server, collection, { name }));
  return terms;
}
