// Our folding of iCalendar lines replaced ical-generator's (which encoded every character with a
// new TextEncoder: most of a large feed's time). Feeds must not change a byte: the two are
// compared on lines of every kind of character, lone surrogates included.
import fc from "fast-check";
import { foldLines as generatorsFoldLines } from "ical-generator";
import { foldLines } from "../src/text/ical-folding";

const piece = fc.oneof(
  fc.constantFrom("a", " ", "é", "ß", "€", "中", "😀", "👩‍👩‍👧", "\r\n", "\r", "\n", "\ud800", "\udbff", "\udc00"),
  fc.string({ unit: "binary", maxLength: 3 }),
  fc.string({ unit: "grapheme-ascii", minLength: 60, maxLength: 90 }),
);
const text = fc.array(piece, { maxLength: 120 }).map((pieces) => pieces.join(""));

describe("folding iCalendar lines", () => {
  it("gives what ical-generator's foldLines gives, for any text", () => {
    fc.assert(
      fc.property(text, (line) => foldLines(line) === generatorsFoldLines(line)),
      { numRuns: 3000 },
    );
  });

  it("keeps each line within 75 octets, folding with CRLF and a space", () => {
    const line = `DESCRIPTION:${"Lisboa à noite, com música 🎶 e ".repeat(12)}`;
    const folded = foldLines(line);
    expect(folded.split("\r\n ").join("")).toBe(line);
    for (const part of folded.split("\r\n")) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
    expect(foldLines("SUMMARY:short\r\nLOCATION:Porto")).toBe("SUMMARY:short\r\nLOCATION:Porto");
  });
});
