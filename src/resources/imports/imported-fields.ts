import type { Schemas } from "../../http/operation-types";
import type { EventRecord } from "../events/event-record";

/**
 * What `preserve_changes` needs to know (a source's update authority): which of an imported
 * event's fields were edited here since the import wrote them. After each write, the event's
 * fields as the import left them are kept with its VEVENT (`importedFieldsOf`); a field that
 * differs now was edited here, and the next write of a changed VEVENT leaves it out.
 */

type Write = Schemas["CreateEventRequest"];

/** Each field as read back from the event, and the keys of a write that set it. */
const FIELDS: Record<string, { of: (record: EventRecord, language: string) => unknown; keys: Array<keyof Write> }> = {
  title: { of: (record, language) => textOf(record, language)?.title ?? null, keys: ["title"] },
  description: { of: (record, language) => textOf(record, language)?.description ?? null, keys: ["description"] },
  dates: {
    of: (record) => [record.startLocal, record.endLocal, record.timezone, record.allDay],
    keys: ["start_date", "end_date", "timezone", "all_day"],
  },
  website: { of: (record) => record.website, keys: ["website"] },
  image: { of: (record) => record.image, keys: ["image"] },
  venue: { of: (record) => record.venues.map(({ venue }) => venue.id), keys: ["venue"] },
  organizer: { of: (record) => record.organizers.map(({ organizer }) => organizer.id), keys: ["organizer"] },
  categories: { of: (record) => termIds(record, "category"), keys: ["categories"] },
  tags: { of: (record) => termIds(record, "tag"), keys: ["tags"] },
  status: { of: (record) => record.status, keys: ["status"] },
  recurrence: { of: (record) => record.recurrence, keys: ["recurrence"] },
};

function textOf(record: EventRecord, language: string) {
  return record.texts.find((text) => text.language === language);
}

function termIds(record: EventRecord, taxonomy: string): number[] {
  return record.terms.filter(({ term }) => term.taxonomy === taxonomy).map(({ term }) => term.id);
}

/** The event's fields an import writes, as read back from it (in the source's language), as JSON. */
export function importedFieldsOf(record: EventRecord, language: string): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, field.of(record, language)])),
  );
}

/** The write without the fields edited here since the import left them (`imported`, as importedFieldsOf gave it). */
export function withoutFieldsEditedHere(write: Write, imported: string, current: EventRecord, language: string): Write {
  const before = JSON.parse(imported) as Record<string, unknown>;
  const kept = { ...write };
  for (const [name, field] of Object.entries(FIELDS)) {
    if (!(name in before) || JSON.stringify(before[name]) === JSON.stringify(field.of(current, language))) continue;
    for (const key of field.keys) delete kept[key];
  }
  return kept;
}
