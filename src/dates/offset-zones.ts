import { isValidZone } from "./date-input";

/**
 * WordPress names a site set to an offset, rather than to a city, by that offset (`UTC+2`,
 * `UTC-3:30`, `UTC+5.5`, `UTC+0`), The Events Calendar gives that name as its events' `timezone`,
 * and clients copy it into their writes. Such a name is read as the time zone of the tz database
 * that has that offset all year: a whole hour is its `Etc/GMT` zone (POSIX's sign is the reverse:
 * `UTC+2` is `Etc/GMT-2`), `UTC+0` is `UTC`, and an offset of a fraction of an hour is the zone of
 * the place that has kept it, without daylight saving time, since before 1990. An offset no place
 * keeps all year (`UTC+3.5`, Tehran's until 2022) is no zone: its events would show the wrong
 * time for part of the year.
 */
const UTC_OFFSET = /^UTC([+-])(\d{1,2})(?::(\d{2})|\.(\d+))?$/i;

const ZONE_OF_FRACTIONAL_OFFSET = new Map<number, string>([
  [270, "Asia/Kabul"],
  [330, "Asia/Kolkata"],
  [345, "Asia/Kathmandu"],
  [390, "Asia/Yangon"],
  [570, "Australia/Darwin"],
  [-570, "Pacific/Marquesas"],
]);

/** Minutes east of UTC of an offset's name, or null for a name that is not one. */
function offsetMinutes(name: string): number | null {
  const match = UTC_OFFSET.exec(name);
  if (!match) return null;
  const [, sign, hours, minutes, fraction] = match;
  const magnitude =
    Number(hours) * 60 + (minutes !== undefined ? Number(minutes) : Math.round(Number(`0.${fraction ?? 0}`) * 60));
  if (magnitude > 14 * 60 || (minutes !== undefined && Number(minutes) >= 60)) return null;
  return sign === "-" ? -magnitude : magnitude;
}

/** The tz database zone a WordPress offset name stands for (see above), or null. */
export function zoneOfOffsetName(name: string): string | null {
  const minutes = offsetMinutes(name);
  if (minutes === null) return null;
  if (minutes === 0) return "UTC";
  if (minutes % 60 === 0) return `Etc/GMT${minutes > 0 ? "-" : "+"}${Math.abs(minutes) / 60}`;
  return ZONE_OF_FRACTIONAL_OFFSET.get(minutes) ?? null;
}

/** The zone a write names: a tz database name as given, or the zone of a WordPress offset name; null for neither. */
export function zoneNamed(name: string): string | null {
  if (isValidZone(name)) return name;
  return zoneOfOffsetName(name);
}
