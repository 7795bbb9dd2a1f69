import type { components, paths } from "../../generated/api-types";
import type { TestServer } from "./test-server";

export type EventJson = components["schemas"]["Event"];
export type EventCreateBody = paths["/events"]["post"]["requestBody"]["content"]["application/json"];

/** The fixed "now" of the event suites: Saturday 2026-11-21 12:00:00 UTC. */
export const NOW = new Date("2026-11-21T12:00:00Z");
export const fixedClock = () => NOW;

/** `YYYY-MM-DD HH:MM:SS` (UTC) of NOW shifted by hours. */
export function utcWall(hoursFromNow: number): string {
  return new Date(NOW.getTime() + hoursFromNow * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
}

/** Creates an event through the typed client, as the administrator; fails the test if refused. */
export async function createEventVia(server: TestServer, input: EventCreateBody, headers: Record<string, string> = {}): Promise<EventJson> {
  const { data, error, response } = await server.as(`Bearer ${server.config.adminToken}`).POST("/events", { body: input, headers });
  if (response.status !== 201 || !data) throw new Error(`creating event ${JSON.stringify(input)} gave ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/**
 * Events like the original's test helper makes them: starting `firstHour` hours from now (24
 * by default, i.e. tomorrow), `spacingHours` apart, each `durationHours` long.
 */
export async function createEvents(
  server: TestServer,
  count: number,
  options: { firstHour?: number; spacingHours?: number; durationHours?: number; fields?: Partial<EventCreateBody>; title?: (i: number) => string } = {},
): Promise<EventJson[]> {
  const { firstHour = 24, spacingHours = 1, durationHours = 2, fields = {}, title = (i) => `Event ${String(i + 1).padStart(2, "0")}` } = options;
  const events: EventJson[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = firstHour + i * spacingHours;
    events.push(await createEventVia(server, { title: title(i), start_date: utcWall(start), end_date: utcWall(start + durationHours), ...fields }));
  }
  return events;
}

export const ids = (events: Array<{ id: number }>) => events.map((event) => event.id);
