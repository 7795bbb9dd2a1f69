import strtotime from "locutus/php/datetime/strtotime";
import { DateTime, IANAZone } from "luxon";
import { databaseAbbreviation } from "./zone-abbreviations";

/**
 * Date inputs, as clients of the original send them (docs/compatibility.md "What this service promises"):
 * - Unix seconds (a number, or a string of digits);
 * - ISO 8601 with an offset or `Z` (an instant);
 * - `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` (a wall clock in the field's time zone);
 * - the relative phrases PHP's strtotime understands (`now`, `today`, `tomorrow 9am`,
 *   `+5 days`, `next wednesday 4pm`, `-1 week`), through locutus's port of it, evaluated
 *   against the current wall clock of the field's time zone.
 *
 * Relative phrases are computed on wall clocks, not instants: "tomorrow 9am" in New York is
 * 09:00 there, on either side of a DST change. locutus works in the process's local time, so the
 * process runs in UTC (set below) and a wall clock is handled as if it were a UTC time.
 */
if (new Date(2020, 0, 1).getTimezoneOffset() !== 0 || new Date(2020, 6, 1).getTimezoneOffset() !== 0) {
  process.env.TZ = "UTC";
}

/** Luxon makes an invalid DateTime (rather than failing) of seconds past what a Date holds. */
function validOrNull(dt: DateTime | null): DateTime | null {
  return dt && dt.isValid ? dt : null;
}
const PLAIN_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;
const UNIX_SECONDS = /^-?\d+$/;
const MAX_INPUT_LENGTH = 100;

/** Zone names already judged: luxon judges one by making an Intl.DateTimeFormat, ~0.1 ms each time. */
const zoneValidity = new Map<string, boolean>();
const ZONES_REMEMBERED = 1_000;

export function isValidZone(zone: string): boolean {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    // Names come from requests too: what is remembered stays bounded.
    if (zoneValidity.size >= ZONES_REMEMBERED) zoneValidity.clear();
    zoneValidity.set(zone, (valid = IANAZone.isValidZone(zone)));
  }
  return valid;
}

/** A wall clock (year...second, as in a zone) to the instant it is in `zone`. */
type WallParts = { year: number; month: number; day: number; hour: number; minute: number; second: number };

const DAY_MS = 86_400_000;

/**
 * The instant of a wall clock (its fields given as UTC milliseconds) in `zone`, as RFC 5545 §3.3.5
 * and PHP read one: a time that happens twice (the hour repeated when clocks go back) is its first
 * occurrence; one that does not happen (the hour skipped when they go forward) is moved forward by
 * the gap, that is, read with the offset from before the change. In every zone alike, whatever the
 * size of its change (Lord Howe's is 30 minutes).
 */
function instantMillisOf(wallMillis: number, zone: string): number {
  const tz = IANAZone.create(zone);
  const before = tz.offset(wallMillis - DAY_MS);
  const after = tz.offset(wallMillis + DAY_MS);
  const fitting = [...new Set([before, after])]
    .map((offset) => wallMillis - offset * 60_000)
    .filter((instant) => wallMillis - instant === tz.offset(instant) * 60_000);
  return fitting.length > 0 ? Math.min(...fitting) : wallMillis - before * 60_000;
}

/** A wall clock's fields as UTC milliseconds; null for a date that does not exist (2018-02-30). */
function wallMillisOf(parts: WallParts): number | null {
  const date = new Date(0);
  date.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  date.setUTCHours(parts.hour, parts.minute, parts.second, 0);
  const valid =
    date.getUTCFullYear() === parts.year &&
    date.getUTCMonth() === parts.month - 1 &&
    date.getUTCDate() === parts.day &&
    parts.hour < 24 &&
    parts.minute < 60 &&
    parts.second < 60;
  return valid ? date.getTime() : null;
}

function fromWallClock(parts: WallParts, zone: string): DateTime | null {
  const wall = wallMillisOf(parts);
  if (wall === null || !isValidZone(zone)) return null;
  const key = `${zone}|${wall}`;
  let dt = datesOfWallClocks.get(key);
  if (dt === undefined) {
    if (datesOfWallClocks.size >= DATES_KEPT) datesOfWallClocks.clear();
    datesOfWallClocks.set(key, (dt = DateTime.fromMillis(instantMillisOf(wall, zone), { zone })));
  }
  return dt.isValid ? dt : null;
}

/**
 * Wall clocks lately read, as dates (luxon's are immutable): the same ones come again and again (a
 * list's window is whole days; "-1 year" is the same second for every request within it), and
 * each costs four readings of the zone's offset through Intl, a fifth of a filtered list's work.
 */
const datesOfWallClocks = new Map<string, DateTime>();
const DATES_KEPT = 1_000;

function wallClockOf(dt: DateTime): {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
} {
  return { year: dt.year, month: dt.month, day: dt.day, hour: dt.hour, minute: dt.minute, second: dt.second };
}

/** The years the service keeps dates in: both databases store these, and PostgreSQL no year 0. */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

/**
 * The instant an input stands for, in `zone` (an IANA zone), relative to `now`; null when the
 * input is not a date, or is one outside the years 1 to 9999 (UTC).
 */
export function parseDateInput(input: string | number, zone: string, now: Date): DateTime | null {
  const parsed = parseAnyDate(input, zone, now);
  if (!parsed) return null;
  const year = parsed.toUTC().year;
  return year >= FIRST_YEAR && year <= LAST_YEAR ? parsed : null;
}

function parseAnyDate(input: string | number, zone: string, now: Date): DateTime | null {
  if (typeof input === "number")
    return validOrNull(Number.isFinite(input) ? DateTime.fromSeconds(Math.trunc(input), { zone }) : null);
  const text = input.trim();
  if (text === "" || text.length > MAX_INPUT_LENGTH) return null;
  if (UNIX_SECONDS.test(text)) {
    const seconds = Number(text);
    return validOrNull(Number.isSafeInteger(seconds) ? DateTime.fromSeconds(seconds, { zone }) : null);
  }
  if (WITH_OFFSET.test(text)) {
    const dt = DateTime.fromISO(text.replace(" ", "T"), { setZone: true });
    return dt.isValid ? dt.setZone(zone) : null;
  }
  // strtotime reads a year of five digits as something else entirely ("10000-01-01" as 2000-01-01 10:00).
  if (/^[+-]?\d{5,}[-/.]/.test(text)) return null;
  const plain = PLAIN_DATE_TIME.exec(text);
  if (plain) {
    const [, year, month, day, hour = "0", minute = "0", second = "0"] = plain;
    return fromWallClock(
      { year: +year, month: +month, day: +day, hour: +hour, minute: +minute, second: +second },
      zone,
    );
  }
  const wallNow = wallClockOf(DateTime.fromJSDate(now, { zone }));
  const fakeNow =
    Date.UTC(wallNow.year, wallNow.month - 1, wallNow.day, wallNow.hour, wallNow.minute, wallNow.second) / 1000;
  const result = relativeSeconds(text.toLowerCase(), fakeNow);
  if (result === null) return null;
  const wall = DateTime.fromSeconds(result, { zone: "UTC" });
  return fromWallClock(wallClockOf(wall), zone);
}

const DAY_SECONDS = 86_400;
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const WEEKDAY = "(sunday|sun|monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thu|friday|fri|saturday|sat)";
const ORDINALS = ["first", "second", "third", "fourth", "fifth"];
const ORDINAL_WEEKDAY_OF = new RegExp(`^(first|second|third|fourth|fifth|last)\\s+${WEEKDAY}\\s+of\\s+(.+)$`);
const NEXT_WEEKDAY = new RegExp(`\\bnext\\s+${WEEKDAY}\\b`);

function weekdayIndex(name: string): number {
  return WEEKDAYS.findIndex((day) => day.startsWith(name));
}

/**
 * A relative phrase (lower case) read as PHP reads it, against `now` (a wall clock as UTC
 * seconds), in UTC seconds; null when it is not one. locutus's strtotime, with PHP's behaviour
 * where it departs from it: `first|second|...|last <weekday> of <month>` (which it does not read:
 * midnight of that day, as PHP gives it), and `next <weekday>` on that very weekday (the week
 * after, not today).
 */
function relativeSeconds(text: string, now: number): number | null {
  const ordinal = ORDINAL_WEEKDAY_OF.exec(text);
  if (ordinal) {
    const [, position, day, month] = ordinal;
    const inMonth = strtotime(month, now);
    if (inMonth === false || !Number.isFinite(inMonth)) return null;
    const date = new Date(inMonth * 1000);
    const weekday = weekdayIndex(day);
    if (position === "last") {
      const lastDay = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0) / 1000;
      const back = (new Date(lastDay * 1000).getUTCDay() - weekday + 7) % 7;
      return lastDay - back * DAY_SECONDS;
    }
    const firstDay = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
    const ahead = (weekday - new Date(firstDay * 1000).getUTCDay() + 7) % 7;
    // Past the month's last such day ("fifth"), PHP runs on into the next month; so does this.
    return firstDay + (ahead + 7 * ORDINALS.indexOf(position)) * DAY_SECONDS;
  }
  const result = strtotime(text, now);
  if (result === false || !Number.isFinite(result)) return null;
  if (NEXT_WEEKDAY.test(text) && Math.floor(result / DAY_SECONDS) === Math.floor(now / DAY_SECONDS))
    return result + 7 * DAY_SECONDS;
  return result;
}

const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * `YYYY-MM-DD HH:MM:SS` of an instant, as the wall clock of `zone`. Representations call this
 * several times per item, so it avoids Luxon (an order of magnitude slower here): UTC comes from
 * the ISO string, other zones from a cached Intl formatter.
 */
export function formatWallClock(instant: DateTime | Date, zone: string): string {
  const date = instant instanceof Date ? instant : instant.toJSDate();
  if (zone === "UTC") return date.toISOString().slice(0, 19).replace("T", " ");
  let format = wallClockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    wallClockFormats.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(date)) parts[part.type] = part.value;
  return `${parts.year.padStart(4, "0")}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** A `YYYY-MM-DD HH:MM:SS` wall clock of `zone` to its instant (see instantMillisOf for the hours a change repeats or skips). */
export function instantOfWallClock(wall: string, zone: string): DateTime {
  const [year, month, day, hour, minute, second] = wall.split(/[- :]/).map(Number);
  return fromWallClock({ year, month, day, hour, minute, second }, zone) ?? DateTime.invalid("not a wall clock");
}

/** A `YYYY-MM-DD HH:MM:SS` wall clock of `from` as the wall clock of the same instant in `to`. */
export function wallClockIn(wall: string, from: string, to: string): string {
  return from === to ? wall : formatWallClock(instantOfWallClock(wall, from), to);
}

/** A date input given as a plain wall clock (`YYYY-MM-DD HH:MM[:SS]`), as `YYYY-MM-DD HH:MM:SS`; null for any other form. */
export function plainWallClock(input: string | number): string | null {
  const plain = typeof input === "string" ? PLAIN_DATE_TIME.exec(input.trim()) : null;
  if (!plain) return null;
  const [, year, month, day, hour = "00", minute = "00", second = "00"] = plain;
  return `${year}-${month}-${day} ${hour}:${minute}:${second}`;
}

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

/** The zero-padded parts of a `YYYY-MM-DD HH:MM:SS` wall clock, as the original gives them. */
export function dateDetails(wall: string): DateDetails {
  return {
    year: wall.slice(0, 4),
    month: wall.slice(5, 7),
    day: wall.slice(8, 10),
    hour: wall.slice(11, 13),
    minutes: wall.slice(14, 16),
    seconds: wall.slice(17, 19),
  };
}

/**
 * The abbreviation of a zone at an instant as the time zone database gives it (JST, CET, EDT, -03),
 * as the original's PHP does; a zone the data does not hold gets Intl's short name (`GMT+9`).
 */
export function zoneAbbreviation(zone: string, at: Date): string {
  return databaseAbbreviation(zone, at) ?? intlAbbreviation(zone, at);
}

// Making a formatter costs a tenth of a millisecond or more: a daily series asks for hundreds.
const abbreviationFormats = new Map<string, Intl.DateTimeFormat>();

function intlAbbreviation(zone: string, at: Date): string {
  let format = abbreviationFormats.get(zone);
  if (!format)
    abbreviationFormats.set(
      zone,
      (format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" })),
    );
  return format.formatToParts(at).find((part) => part.type === "timeZoneName")?.value ?? "";
}
