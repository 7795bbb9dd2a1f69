/**
 * How many extra and excluded dates a series may list, in every form a rule reaches the service:
 * the canonical `{rrule, rdate, exdate}` (the spec's maxItems), RFC 5545 lines, the recurrence
 * add-on's rules and exclusions, and a feed's VEVENT. Counted before any value is read as a date
 * (each costs a time-zone conversion), so that a list past the cap is refused at once.
 */
export const MAX_RDATES = 366;
export const MAX_EXDATES = 730;

/** The most dates (RDATE values) a feed's VTIMEZONE may list for its changes of offset. */
export const MAX_ZONE_DATES = 1_000;
