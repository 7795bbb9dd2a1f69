import { DateTime } from "luxon";
import { formatWallClock, instantOfWallClock, parseDateInput, zoneAbbreviation } from "../../dates/date-input";
import { zoneNamed } from "../../dates/offset-zones";
import type { ParamProblems } from "../../http/errors";
import type { Schemas } from "../../http/operation-types";
import { flagOf } from "../post-kernel/write-flags";

/** When an event happens: wall clocks in its zone (the canonical form) and the instants they are. */
export interface EventTimes {
  timezone: string;
  timezoneAbbr: string;
  allDay: boolean;
  startLocal: string;
  endLocal: string;
  startsAt: Date;
  endsAt: Date;
}

/**
 * The longest an event may last: 50 years. The longest event's length is kept in seconds in a
 * 32-bit column (it bounds which events that start before a window end in it), which holds 68.
 */
const MAX_EVENT_MS = 50 * 365.25 * 86_400_000;

export type EventTimesInput = Pick<Schemas["EventFields"], "timezone" | "all_day" | "start_date" | "end_date">;

function dayOf(wall: string): string {
  return wall.slice(0, 10);
}

/**
 * An event's times after a write. Given dates are read in the event's time zone (the new one,
 * if the write changes it); dates not given keep their wall clock, so changing only the zone
 * moves the instants, not the times people read. An all-day event takes whole days: from
 * 00:00:00 of its start day to 23:59:59 of its end day.
 */
export function resolveEventTimes(
  input: EventTimesInput,
  current: EventTimes | null,
  siteTimezone: string,
  now: Date,
  problems: ParamProblems,
): EventTimes | null {
  // An update that gives none of them keeps the times as they are: reading its wall clocks again
  // in their zone was a third of the work of a PATCH of other fields.
  const givesTimes = [input.timezone, input.start_date, input.end_date, input.all_day].some((v) => v !== undefined);
  if (current !== null && !givesTimes) {
    const { timezone, timezoneAbbr, allDay, startLocal, endLocal, startsAt, endsAt } = current;
    return { timezone, timezoneAbbr, allDay, startLocal, endLocal, startsAt, endsAt };
  }
  let timezone = current?.timezone ?? siteTimezone;
  if (input.timezone !== undefined) {
    // A tz database name, or WordPress's name of an offset (`UTC+2`) read as its zone.
    const zone = zoneNamed(input.timezone);
    if (zone !== null) timezone = zone;
    else problems.add("timezone", "rest_invalid_timezone");
  }
  const wallClock = (param: "start_date" | "end_date", currentWall: string | undefined): string | null => {
    const value = input[param];
    if (value === undefined) return currentWall ?? null;
    const parsed = parseDateInput(value, timezone, now);
    if (!parsed) {
      problems.add(param, "rest_invalid_date");
      return null;
    }
    return formatWallClock(parsed, timezone);
  };
  let startLocal = wallClock("start_date", current?.startLocal);
  let endLocal = wallClock("end_date", current?.endLocal);
  if (startLocal === null || endLocal === null) return null;
  // `null` is given as "not all day" (see the spec); absent keeps what the event has.
  const allDay =
    input.all_day === undefined ? (current?.allDay ?? false) : input.all_day !== null && flagOf(input.all_day);
  if (allDay) {
    startLocal = `${dayOf(startLocal)} 00:00:00`;
    endLocal = `${dayOf(endLocal)} 23:59:59`;
  }
  const starts = instantOfWallClock(startLocal, timezone);
  const ends = instantOfWallClock(endLocal, timezone);
  if (ends < starts) {
    problems.add("end_date", "rest_end_before_start");
    return null;
  }
  if (ends.toMillis() - starts.toMillis() > MAX_EVENT_MS) {
    problems.add("end_date", "rest_event_too_long");
    return null;
  }
  // Wall clocks that do not exist (the hour skipped by a DST change) move to the next valid one.
  startLocal = formatWallClock(starts, timezone);
  endLocal = formatWallClock(ends, timezone);
  return {
    timezone,
    timezoneAbbr: zoneAbbreviation(timezone, starts.toJSDate()),
    allDay,
    startLocal,
    endLocal,
    startsAt: starts.toJSDate(),
    endsAt: ends.toJSDate(),
  };
}

export interface WindowQuery {
  start_date?: string;
  end_date?: string;
  starts_before?: string;
  starts_after?: string;
  ends_before?: string;
  ends_after?: string;
  strict_dates?: boolean;
}

/** The bounds `GET /events` applies to starts and ends, as instants. */
export interface EventWindow {
  startsFrom?: Date;
  startsBefore?: Date;
  startsAfter?: Date;
  endsUntil?: Date;
  endsBefore?: Date;
  endsAfter?: Date;
  /** The bounds as the collection's links repeat them: `YYYY-MM-DD HH:MM:SS`, site time. */
  echo: Record<string, string>;
}

const RELATIVE = ["starts_before", "starts_after", "ends_before", "ends_after"] as const;

/**
 * The date window of `GET /events` (docs/compatibility.md §5.2). Without `strict_dates`, whole days:
 * `start_date` from 00:00:00 of its day, the others to 23:59:59 of theirs. Defaults, when the
 * parameter is absent: `start_date` yesterday 23:59 UTC (so, inclusively, from the start of
 * yesterday on sites at or west of UTC), `end_date` 24 months from now. The defaults are dropped
 * when any `starts_*`/`ends_*` parameter is given (so relative queries can reach the past) and
 * when `include` is.
 */
export function eventWindow(
  query: WindowQuery,
  siteTimezone: string,
  now: Date,
  useDefaults: boolean,
  problems: ParamProblems,
): EventWindow {
  const strict = query.strict_dates === true;
  const nowUtc = DateTime.fromJSDate(now, { zone: "UTC" });
  const bound = (
    param: keyof WindowQuery & string,
    value: string | undefined,
    endOfDay: boolean,
  ): DateTime | undefined => {
    if (value === undefined) return undefined;
    const parsed = parseDateInput(value, siteTimezone, now);
    if (!parsed) {
      problems.add(param, "rest_invalid_date");
      return undefined;
    }
    if (strict) return parsed;
    return endOfDay ? parsed.endOf("day").set({ millisecond: 0 }) : parsed.startOf("day");
  };
  const defaults = useDefaults && RELATIVE.every((param) => query[param] === undefined);
  const startDefault =
    defaults && query.start_date === undefined
      ? nowUtc.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 }).setZone(siteTimezone)
      : undefined;
  const endDefault =
    defaults && query.end_date === undefined
      ? nowUtc.plus({ months: 24 }).set({ millisecond: 0 }).setZone(siteTimezone)
      : undefined;
  const inclusive = (dt: DateTime | undefined, endOfDay: boolean) =>
    dt === undefined || strict ? dt : endOfDay ? dt.endOf("day").set({ millisecond: 0 }) : dt.startOf("day");

  const startsFrom = bound("start_date", query.start_date, false) ?? inclusive(startDefault, false);
  const endsUntil = bound("end_date", query.end_date, true) ?? inclusive(endDefault, true);
  const startsBefore = bound("starts_before", query.starts_before, true);
  const startsAfter = bound("starts_after", query.starts_after, true);
  const endsBefore = bound("ends_before", query.ends_before, true);
  const endsAfter = bound("ends_after", query.ends_after, true);

  const echo: Record<string, string> = {};
  const bounds = {
    start_date: startsFrom,
    end_date: endsUntil,
    starts_before: startsBefore,
    starts_after: startsAfter,
    ends_before: endsBefore,
    ends_after: endsAfter,
  };
  for (const [param, dt] of Object.entries(bounds)) if (dt) echo[param] = formatWallClock(dt, siteTimezone);
  return {
    startsFrom: startsFrom?.toJSDate(),
    startsBefore: startsBefore?.toJSDate(),
    startsAfter: startsAfter?.toJSDate(),
    endsUntil: endsUntil?.toJSDate(),
    endsBefore: endsBefore?.toJSDate(),
    endsAfter: endsAfter?.toJSDate(),
    echo,
  };
}
