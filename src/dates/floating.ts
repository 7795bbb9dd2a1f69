import { DateTime } from "luxon";

/**
 * Rules and wall clocks as rrule computes with them: an RRULE's parts, and "floating" Dates, whose
 * UTC fields are the wall clock's (a series is expanded on the wall clock of its zone, whatever
 * the offsets do).
 */

/** An RRULE's UNTIL: a date, or a date and time, in UTC with `Z` or floating. */
export const UNTIL = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/;

/** An RRULE's parts by name (`RRULE:` before it or not, upper case); null when one is not `NAME=value` or comes twice. */
export function ruleParts(rrule: string): Map<string, string> | null {
  const text = rrule
    .trim()
    .replace(/^RRULE:/i, "")
    .toUpperCase();
  const parts = new Map<string, string>();
  for (const part of text.split(";").filter((item) => item !== "")) {
    const [name, value, ...rest] = part.split("=");
    if (value === undefined || rest.length > 0 || parts.has(name)) return null;
    parts.set(name, value);
  }
  return parts;
}

/** A wall clock (`YYYY-MM-DD HH:MM:SS`) as a floating Date. */
export function floating(wall: string): Date {
  return new Date(`${wall.replace(" ", "T")}Z`);
}

/** The wall clock of a floating Date. */
export function wallOf(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/**
 * UNTIL as a floating wall clock of `zone`: a UTC one (…Z, as RFC 5545 asks with a time zone) is
 * the wall clock it is there; one without a zone is that wall clock; a date alone, that whole day.
 */
export function untilOf(value: string, zone: string): Date {
  const [, year, month, day, hour, minute, second, utc] = UNTIL.exec(value)!;
  if (hour === undefined) return floating(`${year}-${month}-${day} 23:59:59`);
  const wall = `${year}-${month}-${day} ${hour}:${minute}:${second}`;
  if (!utc) return floating(wall);
  return floating(
    DateTime.fromISO(`${wall.replace(" ", "T")}Z`)
      .setZone(zone)
      .toFormat("yyyy-MM-dd HH:mm:ss"),
  );
}
