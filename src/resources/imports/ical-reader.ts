import ICAL from "ical.js";
import { DateTime, IANAZone } from "luxon";
import { findIana } from "windows-iana";
import { wallClockIn } from "../../dates/date-input";
import { isWebUrl } from "../../text/web-url";
import { contentLineValueCount, MAX_EXDATES, MAX_RDATES, MAX_ZONE_DATES } from "../../dates/recurrence-limits";
import type { FeedEvent, FeedProblem, FeedReading, FeedText } from "./feed-event";
import { withFirstOccurrencesSplit } from "./first-occurrences";
import { ZoneMatcher } from "./zone-matching";

/**
 * Reading an iCalendar feed (RFC 5545) into the events it describes, with ical.js: each VEVENT's
 * times as wall clocks of an IANA zone, its rule and exceptions as our recurrence's canonical
 * form (`{rrule, rdate, exdate}`, wall clocks of the event's zone), its text as given. Zones: an
 * IANA name as such; a Windows name (as Outlook writes `TZID:W. Europe Standard Time`) as the
 * IANA zone CLDR maps it to; another name by the feed's VTIMEZONE of that name, as the IANA zone
 * with its offsets (zone-matching.ts; with none, its instants as wall clocks of the calendar's
 * zone); UTC and floating times in the calendar's zone, which is the feed's `X-WR-TIMEZONE`, or
 * the site's. A series' overridden first occurrence leaves it (first-occurrences.ts).
 */

/** The feed is not iCalendar at all (no VCALENDAR could be read), or holds more VEVENTs than a run takes. */
export class UnreadableFeed extends Error {
  override name = "UnreadableFeed";
}

const WALL = "yyyy-MM-dd HH:mm:ss";

interface Zones {
  calendarZone: string;
  /** The feed's VTIMEZONEs by TZID, for names that are neither IANA nor Windows ones; a text: why one is not used. */
  defined: Map<string, ICAL.Timezone | string>;
  /** The IANA zones of the VTIMEZONEs (zone-matching.ts). */
  matcher: ZoneMatcher;
}

const zonesByName = new Map<string, string | null>();

/** The IANA zone a TZID names, when it names one: an IANA name, or a Windows one. */
export function ianaZoneOf(tzid: string): string | null {
  let zone = zonesByName.get(tzid);
  if (zone === undefined) {
    // Feeds name a handful of zones, thousands of times: each name is looked up once.
    if (zonesByName.size > 1000) zonesByName.clear();
    zonesByName.set(tzid, (zone = lookUpZone(tzid)));
  }
  return zone;
}

function lookUpZone(tzid: string): string | null {
  const name = tzid.trim().replace(/^"(.*)"$/, "$1");
  if (IANAZone.isValidZone(name)) return name;
  try {
    const [first] = findIana(name) ?? [];
    return first && IANAZone.isValidZone(first) ? first : null;
  } catch {
    return null;
  }
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

function wallOfFields(time: ICAL.Time): string {
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`;
}

function dayOf(time: ICAL.Time): string {
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
}

/** A DATE-TIME value of a property, as a zone and a wall clock of it; throws when its zone is unknown. */
function zonedWall(property: ICAL.Property, time: ICAL.Time, zones: Zones): { zone: string; wall: string } {
  const tzid = property.getParameter("tzid") as string | undefined;
  const isUtc = time.zone === ICAL.Timezone.utcTimezone || /Z$/.test(time.toString());
  if (tzid === undefined || isUtc) {
    if (!isUtc) return { zone: zones.calendarZone, wall: wallOfFields(time) };
    const instant = DateTime.fromISO(`${wallOfFields(time).replace(" ", "T")}Z`, { setZone: true });
    return { zone: zones.calendarZone, wall: instant.setZone(zones.calendarZone).toFormat(WALL) };
  }
  const iana = ianaZoneOf(tzid);
  if (iana) return { zone: iana, wall: wallOfFields(time) };
  const defined = zones.defined.get(tzid);
  if (!defined) throw new Error(`unknown time zone "${tzid}" (neither IANA, Windows, nor a VTIMEZONE of the feed)`);
  if (typeof defined === "string") throw new Error(`the feed's VTIMEZONE "${tzid}" is not used: ${defined}`);
  const matched = zones.matcher.zoneOf(defined, tzid, time.year);
  if (matched !== null) return { zone: matched, wall: wallOfFields(time) };
  // No IANA zone keeps its offsets: the instant, as a wall clock of the calendar's zone.
  const offsetSeconds = defined.utcOffset(time);
  const instant = DateTime.fromISO(`${wallOfFields(time).replace(" ", "T")}Z`).minus({ seconds: offsetSeconds });
  return { zone: zones.calendarZone, wall: instant.setZone(zones.calendarZone).toFormat(WALL) };
}

/** How many values the properties `name` of a component list, counted before any is read as a date. */
function valueCount(component: ICAL.Component, name: string): number {
  return component.getAllProperties(name).reduce((count, property) => count + property.getValues().length, 0);
}

/** The values of a date list (EXDATE, RDATE) as wall clocks of the event's zone (days alone for all-day events). */
function datesOfList(vevent: ICAL.Component, name: string, zone: string, allDay: boolean, zones: Zones): string[] {
  const cap = name === "rdate" ? MAX_RDATES : MAX_EXDATES;
  if (valueCount(vevent, name) > cap) throw new Error(`more than ${cap} ${name.toUpperCase()} values`);
  const dates: string[] = [];
  for (const property of vevent.getAllProperties(name)) {
    for (const value of property.getValues() as Array<ICAL.Time | ICAL.Period>) {
      const time = value instanceof ICAL.Period ? value.start : value;
      if (time.isDate || allDay) dates.push(dayOf(time));
      else {
        const given = zonedWall(property, time, zones);
        dates.push(wallClockIn(given.wall, given.zone, zone));
      }
    }
  }
  return [...new Set(dates)].sort();
}

/** Plain text (DESCRIPTION) as HTML: escaped, blank lines between paragraphs, single breaks kept. */
export function textAsHtml(text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return escaped
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => `<p>${paragraph.replace(/\r?\n/g, "<br>")}</p>`)
    .join("\n");
}

function stringOf(vevent: ICAL.Component, name: string): string | null {
  const value = vevent.getFirstPropertyValue(name);
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === "" ? null : text;
}

/**
 * A TEXT value's escapes undone (RFC 5545 §3.3.11): ical.js undoes them for the properties it
 * knows, and leaves an X- property's value (Outlook's X-ALT-DESC) as written.
 */
function unescapedText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_escape, character: string) =>
    character === "n" || character === "N" ? "\n" : character,
  );
}

/**
 * Elements that say a DESCRIPTION is HTML, not text: Google Calendar writes its descriptions' markup
 * as it is (`<b>`, `<br>`, `<a href>`, `<ul><li>`, and its `<html-blob>` wrapper), where RFC 5545
 * has plain text. A text's "<3" or "a < b" is none of them.
 */
const HTML_ELEMENT =
  /<\/?(?:a|b|i|u|s|em|strong|br|p|div|span|ul|ol|li|h[1-6]|blockquote|pre|code|html-blob)(?:\s[^<>]*)?\/?>/i;

function descriptionOf(vevent: ICAL.Component): string | null {
  const alternative = vevent
    .getAllProperties("x-alt-desc")
    .find((property) => String(property.getParameter("fmttype") ?? "").toLowerCase() === "text/html");
  const html = alternative ? unescapedText(String(alternative.getFirstValue() ?? "")).trim() : "";
  if (html !== "") return html;
  const text = stringOf(vevent, "description");
  if (text === null) return null;
  // Its lines stay lines, as Google shows them.
  return HTML_ELEMENT.test(text) ? text.replace(/\r?\n/g, "<br>") : textAsHtml(text);
}

function organizerOf(vevent: ICAL.Component): FeedEvent["organizer"] {
  const property = vevent.getFirstProperty("organizer");
  if (!property) return null;
  const address = String(property.getFirstValue() ?? "").trim();
  const email = /^mailto:/i.test(address) ? address.replace(/^mailto:/i, "").trim() || null : null;
  const cn = property.getParameter("cn");
  const name = typeof cn === "string" && cn.trim() !== "" ? cn.trim() : null;
  return name === null && email === null ? null : { name, email };
}

const IMAGE_PATH = /\.(?:jpe?g|png|gif|webp|avif)$/i;

/**
 * The event's image: an http(s) URL given by RFC 7986's IMAGE (`IMAGE;VALUE=URI;DISPLAY=BADGE:…`),
 * or by an ATTACH whose FMTTYPE is an image's (`ATTACH;FMTTYPE=image/jpeg:…`, as Apple, Mobilizon
 * and this service's feeds write it) or whose URL's path ends as an image's. Inline (BINARY) ones
 * are not taken.
 */
function imageOf(vevent: ICAL.Component): string | null {
  const uri = (property: ICAL.Property) => {
    const value = String(property.getFirstValue() ?? "").trim();
    return String(property.getParameter("value") ?? "").toUpperCase() !== "BINARY" && isWebUrl(value) ? value : null;
  };
  const isImage = (property: ICAL.Property, value: string) => {
    const type = String(property.getParameter("fmttype") ?? "").toLowerCase();
    if (type !== "") return type.startsWith("image/");
    return IMAGE_PATH.test(new URL(value).pathname);
  };
  for (const property of vevent.getAllProperties("image")) {
    const value = uri(property);
    if (value !== null) return value;
  }
  for (const property of vevent.getAllProperties("attach")) {
    const value = uri(property);
    if (value !== null && isImage(property, value)) return value;
  }
  return null;
}

/** GEO, or the `geo:` URI of Apple's X-APPLE-STRUCTURED-LOCATION (`geo:38.7157,-9.1413`), which Apple writes instead. */
function geoOf(vevent: ICAL.Component): FeedEvent["geo"] {
  const value = vevent.getFirstPropertyValue("geo") as unknown;
  const apple = /^geo:([-+\d.]+),([-+\d.]+)/i.exec(
    String(vevent.getFirstPropertyValue("x-apple-structured-location") ?? ""),
  );
  const pair = Array.isArray(value) && value.length === 2 ? value : apple ? [apple[1], apple[2]] : null;
  if (pair === null) return null;
  const [lat, lng] = pair.map(Number);
  return Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180
    ? { lat, lng }
    : null;
}

const DAY_END = "23:59:59";

/** One VEVENT as a FeedEvent; throws with the reason it cannot be one. */
function readEvent(vevent: ICAL.Component, uid: string, zones: Zones): FeedEvent {
  const startProperty = vevent.getFirstProperty("dtstart");
  if (!startProperty) throw new Error("no DTSTART");
  const start = startProperty.getFirstValue() as ICAL.Time;
  const endProperty = vevent.getFirstProperty("dtend");
  const duration = vevent.getFirstPropertyValue("duration") as ICAL.Duration | null;
  const allDay = start.isDate;
  let timezone: string;
  let startLocal: string;
  let endLocal: string;
  if (allDay) {
    // Days have no zone: the one this service's own feeds give (X-CALENDAR-TIMEZONE), or the calendar's.
    const given = vevent.getFirstPropertyValue("x-calendar-timezone");
    timezone = (typeof given === "string" && ianaZoneOf(given)) || zones.calendarZone;
    // DTEND is exclusive: an event of one day ends on the day after it.
    let end = endProperty ? (endProperty.getFirstValue() as ICAL.Time).clone() : start.clone();
    if (!endProperty && duration) end.addDuration(duration);
    if (end.compare(start) > 0) end.adjust(-1, 0, 0, 0);
    else end = start.clone();
    startLocal = `${dayOf(start)} 00:00:00`;
    endLocal = `${dayOf(end)} ${DAY_END}`;
  } else {
    const given = zonedWall(startProperty, start, zones);
    timezone = given.zone;
    startLocal = given.wall;
    if (endProperty) {
      const endTime = endProperty.getFirstValue() as ICAL.Time;
      const end = endTime.isDate
        ? { zone: timezone, wall: `${dayOf(endTime)} 00:00:00` }
        : zonedWall(endProperty, endTime, zones);
      endLocal = wallClockIn(end.wall, end.zone, timezone);
    } else if (duration) {
      endLocal = DateTime.fromFormat(startLocal, WALL, { zone: "UTC" })
        .plus({ seconds: duration.toSeconds() })
        .toFormat(WALL);
    } else endLocal = startLocal;
    if (endLocal < startLocal) endLocal = startLocal;
  }
  const recurrenceIdProperty = vevent.getFirstProperty("recurrence-id");
  let recurrenceId: string | null = null;
  if (recurrenceIdProperty) {
    const time = recurrenceIdProperty.getFirstValue() as ICAL.Time;
    if (time.isDate) recurrenceId = `${dayOf(time)} ${allDay ? "00:00:00" : startLocal.slice(11)}`;
    else {
      const given = zonedWall(recurrenceIdProperty, time, zones);
      recurrenceId = wallClockIn(given.wall, given.zone, timezone);
    }
  }
  const rule = vevent.getFirstPropertyValue("rrule") as ICAL.Recur | null;
  const rdate = datesOfList(vevent, "rdate", timezone, allDay, zones);
  const recurrence =
    rule && recurrenceId === null
      ? { rrule: rule.toString(), rdate, exdate: datesOfList(vevent, "exdate", timezone, allDay, zones) }
      : null;
  return {
    uid,
    recurrenceId,
    timezone,
    allDay,
    startLocal,
    endLocal,
    recurrence,
    title: stringOf(vevent, "summary"),
    description: descriptionOf(vevent),
    url: stringOf(vevent, "url"),
    image: imageOf(vevent),
    location: stringOf(vevent, "location"),
    geo: geoOf(vevent),
    organizer: organizerOf(vevent),
    categories: [
      ...new Set(
        vevent
          .getAllProperties("categories")
          .flatMap((property) => property.getValues().map((value) => String(value).trim()))
          .filter((name) => name !== ""),
      ),
    ],
    cancelled: String(vevent.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED",
  };
}

/** The zone floating and UTC times are read in: the feed's X-WR-TIMEZONE when it names a zone, else `siteZone`. */
function calendarZoneOf(calendar: ICAL.Component, siteZone: string): string {
  const named = calendar.getFirstPropertyValue("x-wr-timezone");
  return (typeof named === "string" && ianaZoneOf(named)) || siteZone;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** What a zone's yearly rule needs to say when its offset changes ("the last Sunday of March"). */
const ZONE_RULE_PARTS = new Set(["BYMONTH", "BYDAY", "BYMONTHDAY", "WKST"]);

/**
 * Why a feed's VTIMEZONE is not used, or null when it is. ical.js finds an offset by walking the
 * zone's rules from their start to the date asked for, keeping every change: a zone's rules change
 * its offset once a year, on a day of a month (RFC 5545's examples, and every zone Outlook and
 * Google write), and a rule of another frequency (hourly from 1601), one that never matches (the
 * 30th of February, the 9th Sunday of March) or a list of a million dates is a feed making the
 * reader walk without end. Such a zone is not used, and the VEVENTs in it are problems of the run.
 */
function unusableZoneReason(zone: ICAL.Component): string | null {
  for (const observance of [...zone.getAllSubcomponents("standard"), ...zone.getAllSubcomponents("daylight")]) {
    for (const rule of observance.getAllProperties("rrule").map((property) => property.getFirstValue() as ICAL.Recur)) {
      if (rule.freq !== "YEARLY") return `its offset changes by a rule of FREQ=${rule.freq}, not YEARLY`;
      const other = Object.keys(rule.parts).find((part) => !ZONE_RULE_PARTS.has(part));
      if (other !== undefined) return `its yearly rule has ${other}, which no zone needs`;
      const ordinals = ((rule.parts.BYDAY as string[] | undefined) ?? []).map((day) =>
        Number(/^[+-]?\d+/.exec(day)?.[0] ?? 0),
      );
      if (ordinals.some((ordinal) => Math.abs(ordinal) > 5)) return "its yearly rule names a weekday no month has";
      const months = (rule.parts.BYMONTH as number[] | undefined) ?? [];
      const monthDays = ((rule.parts.BYMONTHDAY as number[] | undefined) ?? []).map(Math.abs);
      if (months.length === 0 || months.some((month) => !(month >= 1 && month <= 12)))
        return "its yearly rule names no month";
      if (monthDays.length > 0 && !months.some((month) => monthDays.some((day) => day <= DAYS_IN_MONTH[month - 1])))
        return "its yearly rule names a day its month does not have";
    }
  }
  return null;
}

const DATE_LIST = /^(RDATE|EXDATE)[;:]/i;

/** What the first pass over a feed leaves for ical.js to parse, and what it took out. */
interface Screened {
  text: string;
  problems: FeedProblem[];
  /** Feed-defined zones taken out, with why. */
  zonesTakenOut: Map<string, string>;
}

/**
 * A first pass over the feed's lines, before ical.js parses any of it, linear in its size: counts
 * its VEVENTs (past `maxEvents`, the feed is refused there and then), and takes out the VEVENTs
 * whose RDATE or EXDATE lists are past their caps (reported as problems) and the VTIMEZONEs that
 * list more than MAX_ZONE_DATES dates: ical.js took longer than any deadline to parse a property
 * of 500,000 values, which no check after parsing can prevent.
 */
function screen(source: string, maxEvents: number): Screened {
  const lines = source.replace(/\r?\n[ \t]/g, "").split(/\r?\n/);
  const kept: string[] = [];
  const problems: FeedProblem[] = [];
  const zonesTakenOut = new Map<string, string>();
  let events = 0;
  let component: { name: "VEVENT" | "VTIMEZONE"; from: number; id: string | null; rid: string | null } | null = null;
  let counts = { rdate: 0, exdate: 0 };
  for (const line of lines) {
    const upper = line.slice(0, 16).toUpperCase();
    if (component === null && (upper === "BEGIN:VEVENT" || upper === "BEGIN:VTIMEZONE")) {
      if (upper === "BEGIN:VEVENT" && ++events > maxEvents)
        throw new UnreadableFeed(`the feed has more than ${maxEvents} VEVENTs (IMPORT_MAX_EVENTS)`);
      component = { name: upper === "BEGIN:VEVENT" ? "VEVENT" : "VTIMEZONE", from: kept.length, id: null, rid: null };
      counts = { rdate: 0, exdate: 0 };
    } else if (component !== null) {
      const dateList = DATE_LIST.exec(line)?.[1].toLowerCase() as "rdate" | "exdate" | undefined;
      if (dateList) counts[dateList] += contentLineValueCount(line);
      else if (/^(UID|TZID)[;:]/i.test(line)) component.id ??= line.slice(line.indexOf(":") + 1).trim();
      else if (/^RECURRENCE-ID[;:]/i.test(line)) component.rid = line.slice(line.indexOf(":") + 1).trim();
      if (upper === `END:${component.name}`) {
        const reason =
          component.name === "VEVENT"
            ? counts.rdate > MAX_RDATES
              ? `more than ${MAX_RDATES} RDATE values`
              : counts.exdate > MAX_EXDATES
                ? `more than ${MAX_EXDATES} EXDATE values`
                : null
            : counts.rdate > MAX_ZONE_DATES
              ? `it lists more than ${MAX_ZONE_DATES} dates`
              : null;
        if (reason !== null) {
          kept.length = component.from;
          if (component.name === "VEVENT")
            problems.push({ uid: component.id, recurrence_id: component.rid, message: reason });
          else if (component.id !== null) zonesTakenOut.set(component.id, reason);
          component = null;
          continue;
        }
        component = null;
      }
    }
    kept.push(line);
  }
  return { text: kept.join("\r\n"), problems, zonesTakenOut };
}

/**
 * Reads a feed's text; VEVENTs that cannot be read are problems, the others events. Each
 * component is read detached from the calendar: ical.js looks a TZID up through its parents,
 * scanning every component of the calendar each time (a 10 MiB feed took half a minute), and
 * zones here are looked up by the reader's own rules anyway. Runs in the work thread, under its
 * deadline and heap (feed-reading.ts): a feed may be made to cost what no check here foresees.
 */
export function readFeed({ text: source, siteZone, maxEvents }: FeedText): FeedReading {
  const { text, problems, zonesTakenOut } = screen(source, maxEvents);
  let root: unknown[];
  try {
    const parsed = ICAL.parse(text) as unknown[];
    root = (Array.isArray(parsed[0]) ? parsed[0] : parsed) as unknown[];
  } catch (error) {
    throw new UnreadableFeed(`not an iCalendar feed: ${(error as Error).message}`);
  }
  if (root[0] !== "vcalendar") throw new UnreadableFeed(`not an iCalendar feed: it holds a ${String(root[0])}`);
  const calendar = new ICAL.Component([root[0], root[1], []] as unknown[]);
  const children = (root[2] ?? []) as unknown[][];
  const detached = (name: string) =>
    children.filter((child) => child[0] === name).map((child) => new ICAL.Component(child));
  const defined = new Map<string, ICAL.Timezone | string>(zonesTakenOut);
  for (const component of detached("vtimezone")) {
    const tzid = component.getFirstPropertyValue("tzid");
    if (typeof tzid === "string") defined.set(tzid, unusableZoneReason(component) ?? new ICAL.Timezone(component));
  }
  const calendarZone = calendarZoneOf(calendar, siteZone);
  const zones: Zones = { calendarZone, defined, matcher: new ZoneMatcher(calendarZone) };
  const events: FeedEvent[] = [];
  for (const vevent of detached("vevent")) {
    const uid = stringOf(vevent, "uid");
    const rid = vevent.getFirstProperty("recurrence-id");
    const recurrenceIdText = rid ? String(rid.getFirstValue()) : null;
    if (uid === null) {
      problems.push({ uid: null, recurrence_id: recurrenceIdText, message: "no UID: it cannot be kept in step" });
      continue;
    }
    try {
      events.push(readEvent(vevent, uid, zones));
    } catch (error) {
      problems.push({ uid, recurrence_id: recurrenceIdText, message: (error as Error).message });
    }
  }
  return { events: withFirstOccurrencesSplit(events), problems };
}
