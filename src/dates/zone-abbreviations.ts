import { IANAZone } from "luxon";

/**
 * The time zone database's abbreviations (JST, CET, EDT, -03, +0530), as PHP's `date('T')` gives
 * them to the original's `timezone_abbr`: Intl names most zones only as `GMT+9`.
 *
 * The data is moment-timezone's packed copy of the database (`name|abbrs|offsets|indices|untils`,
 * numbers in base 60, untils as minutes after the one before), read when first asked for and each
 * zone unpacked when first asked for: a start that never reads an event pays nothing.
 */
interface PackedData {
  zones: string[];
  links: string[];
}
interface ZonePeriods {
  /** The abbreviation of each period, in order. */
  abbreviations: string[];
  /** Minutes east of UTC in each period. */
  offsets: number[];
  /** Each period's end (epoch milliseconds); the last one's is Infinity. */
  untils: number[];
}

// 0-9, a-z, then A-X: sixty digits.
const BASE60_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX";

function base60(text: string): number {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
  let value = 0;
  for (const digit of whole) value = value * 60 + BASE60_DIGITS.indexOf(digit);
  let scale = 1 / 60;
  for (const digit of fraction) {
    value += BASE60_DIGITS.indexOf(digit) * scale;
    scale /= 60;
  }
  return negative ? -value : value;
}

function unpack(packed: string): ZonePeriods {
  const [, abbreviationList, offsetList, indexList, untilList] = packed.split("|");
  const abbreviations = abbreviationList.split(" ");
  // The packed offsets count minutes west of UTC, as Date.getTimezoneOffset does.
  const offsets = offsetList.split(" ").map((offset) => -base60(offset));
  const indices = [...indexList].map(base60);
  const deltas = untilList ? untilList.split(" ").map(base60) : [];
  const untils: number[] = [];
  let minutes = 0;
  for (let i = 0; i < indices.length - 1; i++) untils.push(Math.round((minutes += deltas[i]) * 60_000));
  untils.push(Infinity);
  return {
    abbreviations: indices.map((index) => abbreviations[index]),
    offsets: indices.map((index) => offsets[index]),
    untils,
  };
}

let packedZones: Map<string, string> | undefined;
const unpackedZones = new Map<string, ZonePeriods | null>();

function packedZoneMap(): Map<string, string> {
  if (packedZones) return packedZones;
  const data = require("moment-timezone/data/packed/latest.json") as PackedData;
  packedZones = new Map(data.zones.map((zone) => [zone.slice(0, zone.indexOf("|")), zone]));
  for (const link of data.links) {
    const [target, alias] = link.split("|");
    const zone = packedZones.get(target);
    if (zone) packedZones.set(alias, zone);
  }
  return packedZones;
}

function periodsOf(zone: string): ZonePeriods | null {
  let periods = unpackedZones.get(zone);
  if (periods === undefined) {
    const packed = packedZoneMap().get(zone);
    unpackedZones.set(zone, (periods = packed ? unpack(packed) : null));
  }
  return periods;
}

/**
 * The database's abbreviation for a zone at an instant, or undefined for a zone it does not hold.
 * Past the data's last change (it runs to 2037) the zone's rules still change offsets: the period
 * of the last years whose offset is the zone's at that instant names it.
 */
export function databaseAbbreviation(zone: string, at: Date): string | undefined {
  const periods = periodsOf(zone);
  if (!periods) return undefined;
  const time = at.getTime();
  const { untils, abbreviations, offsets } = periods;
  let low = 0;
  let high = untils.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (time < untils[middle]) high = middle;
    else low = middle + 1;
  }
  if (low < untils.length - 1) return abbreviations[low];
  const offset = IANAZone.create(zone).offset(time);
  for (let i = untils.length - 1; i >= Math.max(0, untils.length - 4); i--) {
    if (offsets[i] === offset) return abbreviations[i];
  }
  return abbreviations[low];
}
