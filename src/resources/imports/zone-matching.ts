import ICAL from "ical.js";
import { IANAZone } from "luxon";
import { WINDOWS_TO_IANA_MAP } from "windows-iana";

/**
 * The IANA zone a feed's own VTIMEZONE describes, for a zone named neither by IANA nor by Windows
 * (Outlook writes localized names: "Mitteleuropäische Zeit", "(UTC+01:00) Amsterdam, Berlin, …").
 * A series is expanded on the wall clock of its zone, so its zone must change offset when the
 * feed's does: a series read in another zone (the calendar's) was an hour off after a DST change.
 * The zone is the IANA zone with the same offsets over the years around the time read: at every
 * change of the VTIMEZONE (a quarter of an hour before and after it) and every week between.
 * Several zones have the same rules (Berlin, Paris, Rome): the calendar's zone is taken when it
 * is one of them, else one whose city the name mentions, else, of those that had the same offsets
 * for longest before (25, 10 or 5 years), CLDR's zone for a Windows zone, else the first by region
 * and name.
 */

/** The changes of offset ical.js expands a VTIMEZONE into: UTC fields, and the offsets before and after (seconds). */
interface ZoneChange extends Pick<ICAL.Time, "year" | "month" | "day" | "hour" | "minute" | "second"> {
  utcOffset: number;
  prevUtcOffset: number;
}

const WEEK_MS = 7 * 86_400_000;
const AROUND_CHANGE_MS = 15 * 60_000;
/** How far back zones alike now are compared, longest first. */
const HISTORY_YEARS = [25, 10, 5];
/** Regions in the order a zone of several with the same rules is chosen from. */
const REGIONS = ["Europe", "America", "Asia", "Australia", "Pacific", "Africa", "Atlantic", "Indian"];

let zoneNames: string[] | undefined;

/** Every IANA zone this runtime knows, by region (REGIONS' order) and name. */
function candidates(): string[] {
  if (zoneNames === undefined) {
    // UTC, then the zones of places (not the links US/Eastern, EST5EDT, Etc/GMT+5).
    const rank = (name: string) => (name === "UTC" ? -1 : REGIONS.indexOf(name.split("/")[0]));
    const places = Intl.supportedValuesOf("timeZone").filter((name) => rank(name) >= 0 && IANAZone.isValidZone(name));
    zoneNames = ["UTC", ...places.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))];
  }
  return zoneNames;
}

/**
 * Instants with the feed zone's offset at each (seconds east of UTC), over the years `from` to `to`:
 * around each of its changes, and every week (`weekly`) or once between two changes.
 */
function samplesOf(zone: ICAL.Timezone, from: number, to: number, weekly: boolean): Array<[number, number]> {
  // ical.js expands a zone's changes up to the year of the latest time it is asked about.
  zone.utcOffset(ICAL.Time.fromData({ year: to + 1, month: 12, day: 31, hour: 0, minute: 0, second: 0 }));
  const changes = ((zone as unknown as { changes: ZoneChange[] }).changes ?? [])
    .map((change) => ({
      at: Date.UTC(change.year, change.month - 1, change.day, change.hour, change.minute, change.second),
      before: change.prevUtcOffset,
      after: change.utcOffset,
    }))
    .sort((a, b) => a.at - b.at);
  const start = Date.UTC(from, 0, 1);
  const end = Date.UTC(to + 1, 0, 1);
  const offsetAt = (instant: number) => {
    let offset = changes.length > 0 ? changes[0].before : 0;
    for (const change of changes) {
      if (change.at > instant) break;
      offset = change.after;
    }
    return offset;
  };
  const inRange = changes.filter((change) => change.at >= start && change.at < end);
  const samples: Array<[number, number]> = [];
  if (weekly) for (let instant = start; instant < end; instant += WEEK_MS) samples.push([instant, offsetAt(instant)]);
  else {
    const bounds = [start, ...inRange.map((change) => change.at), end];
    for (let at = 1; at < bounds.length; at++) {
      const between = (bounds[at - 1] + bounds[at]) / 2;
      samples.push([between, offsetAt(between)]);
    }
  }
  for (const change of inRange)
    samples.push([change.at - AROUND_CHANGE_MS, change.before], [change.at + AROUND_CHANGE_MS, change.after]);
  return samples;
}

const matches = (name: string, samples: Array<[number, number]>) => {
  const zone = IANAZone.create(name);
  return samples.every(([instant, seconds]) => zone.offset(instant) * 60 === seconds);
};

let representatives: string[] | undefined;

/**
 * The zone CLDR gives for each Windows zone (its territory "001"): the one people of that zone know
 * it by. In CLDR's order, which puts Windows' main zone of an offset before its variants (Eastern
 * Standard Time, America/New_York, before US Eastern Standard Time, America/Indianapolis).
 */
function representativeZones(): string[] {
  return (representatives ??= WINDOWS_TO_IANA_MAP.filter((entry) => entry.territory === "001").map(
    (entry) => entry.iana[0],
  ));
}

/** Names ICU still lists zones under, for their current ones (tzdata's `backward` links). */
const CURRENT_NAMES: Record<string, string> = {
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

/** Its current name, when this runtime knows it. */
function currentName(name: string): string {
  const current = CURRENT_NAMES[name];
  return current !== undefined && IANAZone.isValidZone(current) ? current : name;
}

/** The zones with a VTIMEZONE's offsets around a year, and of them those that had them for longest before. */
interface Alike {
  now: string[];
  longest: string[];
}

function alikeZones(zone: ICAL.Timezone, year: number): Alike {
  const samples = samplesOf(zone, year - 1, year + 2, true);
  // A sample a quarter first: most zones differ there; the few left are checked at every sample.
  const quarterly = samples.filter((_sample, index) => index % 13 === 0);
  const now = candidates().filter((name) => matches(name, quarterly) && matches(name, samples));
  for (const years of HISTORY_YEARS) {
    if (now.length < 2) break;
    const history = samplesOf(zone, year - years, year - 2, false);
    const longest = now.filter((name) => matches(name, history));
    if (longest.length > 0) return { now, longest };
  }
  return { now, longest: now };
}

/** Of the zones alike, the calendar's, one the name mentions, or CLDR's for a Windows zone (see above). */
function chosenZone({ now, longest }: Alike, tzid: string, calendarZone: string): string | null {
  if (now.length === 0) return null;
  if (now.includes(calendarZone)) return calendarZone;
  const mentioned = now.find((name) => {
    const city = currentName(name).split("/").at(-1)!.replace(/_/g, " ");
    return tzid.toLowerCase().includes(city.toLowerCase());
  });
  return currentName(mentioned ?? representativeZones().find((name) => longest.includes(name)) ?? longest[0]);
}

/** Sets of rules one reading matches at most (see ZoneMatcher). */
const MATCHED_RULES = 100;

/**
 * The IANA zones of one reading's VTIMEZONEs, each set of rules (the zone's observances; not its
 * name, which a feed may vary at will) matched once. A set costs 10–20 ms to match (200 took
 * 2.4 s): past MATCHED_RULES, a feed's other zones are not matched (their times are read as
 * instants in the calendar's zone, as before matching), so that a feed of a thousand made-up zones
 * spends about a second and a half here.
 */
export class ZoneMatcher {
  private readonly alikeByRules = new Map<string, Alike>();

  constructor(private readonly calendarZone: string) {}

  /**
   * The IANA zone with `zone`'s offsets around `year` (the year before to two after), or null when
   * none has them. Matched around the year of the first time read in it: a zone's other years are
   * the IANA zone's (a VTIMEZONE often gives only today's rules, the IANA zone what the offsets
   * were then).
   */
  zoneOf(zone: ICAL.Timezone, tzid: string, year: number): string | null {
    const rules = zone.component
      .getAllSubcomponents()
      .map((observance) => observance.toString())
      .join("\n");
    let alike = this.alikeByRules.get(rules);
    if (alike === undefined) {
      if (this.alikeByRules.size >= MATCHED_RULES) return null;
      this.alikeByRules.set(rules, (alike = alikeZones(zone, year)));
    }
    return chosenZone(alike, tzid, this.calendarZone);
  }
}
