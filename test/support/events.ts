import type { components, paths } from "../../generated/api-types";
import type { Database } from "../../src/db/database";
import { inTransaction } from "../../src/db/transaction";
import { formatWallClock, zoneAbbreviation } from "../../src/dates/date-input";
import { localizedRows } from "../../src/i18n/localized-rows";
import { EVENT_TEXT } from "../../src/resources/events/event-record";
import { slugify } from "../../src/text/slug";
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
export async function createEventVia(
  server: TestServer,
  input: EventCreateBody,
  headers: Record<string, string> = {},
): Promise<EventJson> {
  const { data, error, response } = await server
    .as(`Bearer ${server.config.adminToken}`)
    .POST("/events", { body: input, headers });
  if (response.status !== 201 || !data)
    throw new Error(`creating event ${JSON.stringify(input)} gave ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/**
 * Events like the original's test helper makes them: starting `firstHour` hours from now (24
 * by default, i.e. tomorrow), `spacingHours` apart, each `durationHours` long.
 */
export async function createEvents(
  server: TestServer,
  count: number,
  options: {
    firstHour?: number;
    spacingHours?: number;
    durationHours?: number;
    fields?: Partial<EventCreateBody>;
    title?: (i: number) => string;
  } = {},
): Promise<EventJson[]> {
  const {
    firstHour = 24,
    spacingHours = 1,
    durationHours = 2,
    fields = {},
    title = (i) => `Event ${String(i + 1).padStart(2, "0")}`,
  } = options;
  const events: EventJson[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = firstHour + i * spacingHours;
    events.push(
      await createEventVia(server, {
        title: title(i),
        start_date: utcWall(start),
        end_date: utcWall(start + durationHours),
        ...fields,
      }),
    );
  }
  return events;
}

export const ids = (events: Array<{ id: number }>) => events.map((event) => event.id);

/**
 * `count` published events written straight into the database in bulk (as the bench's seed
 * writes them), for tests about large calendars that would wait minutes for as many POSTs:
 * one an hour from tomorrow, in Lisbon, each with `description`. Their changes are logged and
 * positioned as a write's are.
 */
export async function seedPublicEvents(
  db: Database,
  count: number,
  description: string,
  titlePrefix = "Seeded",
): Promise<void> {
  const author = await db.write.user.findFirstOrThrow({ select: { id: true } });
  for (let first = 0; first < count; first += 200) {
    const batch = Array.from({ length: Math.min(200, count - first) }, (_, i) => first + i);
    const made = await db.write.event.createManyAndReturn({
      data: batch.map((i) => {
        const startsAt = new Date(NOW.getTime() + (24 + i) * 3_600_000);
        const endsAt = new Date(startsAt.getTime() + 3_600_000);
        return {
          authorId: author.id,
          status: "publish",
          sourceLanguage: "en",
          postDate: NOW,
          modifiedAt: NOW,
          startLocal: formatWallClock(startsAt, "Europe/Lisbon"),
          endLocal: formatWallClock(endsAt, "Europe/Lisbon"),
          startsAt,
          endsAt,
          timezone: "Europe/Lisbon",
          timezoneAbbr: zoneAbbreviation("Europe/Lisbon", startsAt),
        };
      }),
      select: { id: true },
    });
    const order = { defaultLanguage: "en" as const, sourceLanguage: "en" };
    await db.write.eventText.createMany({
      data: made.flatMap(({ id }) =>
        localizedRows(
          EVENT_TEXT,
          [],
          "en",
          { title: `${titlePrefix} ${id}`, description, slug: `${slugify(titlePrefix)}-${id}` },
          order,
        ).map((row) => ({
          eventId: id,
          language: row.language,
          ...row.own,
          searchText: row.searchText,
          sortKey: row.sortKey,
        })),
      ),
    });
  }
  await inTransaction(db, async () => undefined);
}
