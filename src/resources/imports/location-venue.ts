/**
 * A venue from an iCalendar LOCATION, which is free text. Apple Calendar writes a place as its name,
 * a line break, and its address (`Coliseu dos Recreios\nRua das Portas de Santo Antão 96, 1150-268
 * Lisboa, Portugal`, the address itself sometimes on several lines): the name is the first line and
 * the address is read into its fields. On one line, Google's "name, address" (see googleForm) is
 * read so too; any other LOCATION is the venue's name, as written.
 */

export interface LocationVenue {
  venue: string;
  address?: string;
  city?: string;
  stateprovince?: string;
  zip?: string;
  country?: string;
}

/** A postal code before or after a place: `1150-268`, `10115`, `SW1A 1AA`, `95014-1234`. */
const POSTAL_CODE = String.raw`(?:\d{4,5}(?:-\d{3,4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})`;
/** `CA 95014`: a state's code, then the code. */
const STATE_AND_CODE = new RegExp(String.raw`^([A-Z]{2})\s+(${POSTAL_CODE})$`);
/** `1150-268 Lisboa`, `10115 Berlin`. */
const CODE_THEN_PLACE = new RegExp(String.raw`^(${POSTAL_CODE})\s+(\D.*)$`);
/** `London SW1A 1AA`, `Cupertino 95014`. */
const PLACE_THEN_CODE = new RegExp(String.raw`^(\D.*?)\s+(${POSTAL_CODE})$`);
/** `1150-268`, `10012`: a code standing alone between commas (this service's feeds write addresses so). */
const CODE_ALONE = new RegExp(String.raw`^${POSTAL_CODE}$`);
/** `1578`, `1578 - Bela Vista`, `12A`. */
const HOUSE_NUMBER = /^\d+[A-Za-z]?(?:\s+-\s+\D.*)?$/;
/** `São Paulo - SP`: a Brazilian city and its state's code, as Apple writes them. */
const PLACE_DASH_STATE = /^(\D.*?)\s+-\s+([A-Z]{2})$/;
const FIELD_LENGTH = 200;

const cut = (text: string) => (text.length > FIELD_LENGTH ? text.slice(0, FIELD_LENGTH) : text);

/** The address's fields: its street first, its country last when it has three parts or more. */
function addressFields(address: string): Omit<LocationVenue, "venue"> {
  const parts = address
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) return {};
  const fields: Omit<LocationVenue, "venue"> = { address: parts[0] };
  const rest = parts.slice(1);
  // `Avenida Paulista, 1578 - Bela Vista`: the house number (and district) after the street's name, as Brazil writes it.
  if (!/\d/.test(parts[0]) && rest.length > 0 && HOUSE_NUMBER.test(rest[0])) fields.address += `, ${rest.shift()}`;
  if (rest.length >= 2) fields.country = rest.pop();
  for (const part of rest) {
    const stateAndCode = STATE_AND_CODE.exec(part);
    const codeThenPlace = CODE_THEN_PLACE.exec(part);
    const placeThenCode = PLACE_THEN_CODE.exec(part);
    const placeDashState = PLACE_DASH_STATE.exec(part);
    if (CODE_ALONE.test(part)) fields.zip ??= part;
    else if (placeDashState) {
      fields.city ??= placeDashState[1];
      fields.stateprovince ??= placeDashState[2];
    } else if (stateAndCode) {
      fields.stateprovince ??= stateAndCode[1];
      fields.zip ??= stateAndCode[2];
    } else if (codeThenPlace) {
      fields.zip ??= codeThenPlace[1];
      fields.city ??= codeThenPlace[2];
    } else if (placeThenCode) {
      fields.city ??= placeThenCode[1];
      fields.zip ??= placeThenCode[2];
    } else if (fields.city === undefined) fields.city = part;
    else fields.stateprovince ??= part;
  }
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, cut(value)]));
}

/** A line's parts between commas, not counting those inside parentheses ("Startup Lisboa (Rua da Prata 121, Lisboa)" is one). */
function topLevelParts(line: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let at = 0; at < line.length; at++) {
    const character = line[at];
    if (character === "(") depth += 1;
    else if (character === ")") depth = Math.max(0, depth - 1);
    else if (character === "," && depth === 0) {
      parts.push(line.slice(from, at).trim());
      from = at + 1;
    }
  }
  parts.push(line.slice(from).trim());
  return parts.filter((part) => part !== "");
}

/**
 * Google's form, on one line: a place's name, then its address, as Google Maps gives places ("Clube
 * de Fado, Rua S. João da Praça 94, Lisboa"; this service's feeds write venues so too). Taken as
 * such only when the name has no digit and the address's first part has one (a house number, a
 * postcode): "Café, Bar & Grill" stays a name, and so does an address alone ("Rua da Prata 121, …").
 */
function googleForm(line: string): LocationVenue | null {
  const [name, ...address] = topLevelParts(line);
  if (address.length < 2 || /\d/.test(name) || !/\d/.test(address[0])) return null;
  return { venue: cut(name), ...addressFields(address.join(", ")) };
}

/** The venue a LOCATION names, its name cut to what a venue's name may be; null for a blank one. */
export function venueOfLocation(location: string): LocationVenue | null {
  const lines = location
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (lines.length === 0) return null;
  if (lines.length > 1) return { venue: cut(lines[0]), ...addressFields(lines.slice(1).join(", ")) };
  return googleForm(lines[0]) ?? { venue: cut(lines[0]) };
}
