// The filter `npm run check:breaking` puts on Optic's findings (scripts/breaking-findings.ts): it
// lets through only widenings of what a request may send, and a new request media type, and
// keeps every other finding breaking.
import { covers, findingsOf, isCompatible } from "../scripts/breaking-findings";

const flag = { type: "boolean", description: "true or false." };
const widerFlag = {
  anyOf: [{ type: "boolean" }, { type: "string", pattern: "^(true|false|1|0)$" }],
  description: "as WordPress reads booleans",
};

function document(showMap: object, media: Record<string, object> = {}) {
  const schema = { type: "object", allOf: [{ type: "object", properties: { show_map: showMap } }] };
  return { paths: { "/venues": { post: { requestBody: { content: { "application/json": { schema }, ...media } } } } } };
}

const report = `x Calendar
x POST /venues: 
  - request: 
    - body application/x-www-form-urlencoded: added
      - property /schema/properties/venue: 
        x [prevent changing request property to required] cannot add a required request property 'venue'
    - body application/json: 
      - property /schema/properties/show_map: changed
        x [prevent expanded in request union types] request property changed to anyOf did not overlap
  - response 200: 
    - body application/json: 
      - property /schema/properties/show_map: changed
        x [prevent changing response property type] type changed
`;

describe("breaking-change findings", () => {
  it("reads each finding with its operation, section, body and property", () => {
    expect(
      findingsOf(report).map(({ operation, section, mediaType, pointer, rule }) => [
        operation,
        section,
        mediaType,
        pointer,
        rule,
      ]),
    ).toEqual([
      [
        "POST /venues",
        "request",
        "application/x-www-form-urlencoded",
        "/schema/properties/venue",
        "prevent changing request property to required",
      ],
      [
        "POST /venues",
        "request",
        "application/json",
        "/schema/properties/show_map",
        "prevent expanded in request union types",
      ],
      [
        "POST /venues",
        "response",
        "application/json",
        "/schema/properties/show_map",
        "prevent changing response property type",
      ],
    ]);
  });

  it("takes a union as covering a schema when a branch takes all it took, type by type", () => {
    expect(covers(widerFlag, flag)).toBe(true);
    expect(covers({ anyOf: [widerFlag, { type: "null" }] }, { type: ["boolean", "null"] })).toBe(true);
    expect(covers({ type: "integer", format: "int32", maximum: 9 }, { type: "integer", maximum: 9 })).toBe(true);
    expect(covers({ anyOf: [{ type: "string" }] }, flag)).toBe(false);
    expect(covers({ anyOf: [{ type: "integer", maximum: 5 }] }, { type: "integer", maximum: 9 })).toBe(false);
    expect(covers(widerFlag, { type: ["boolean", "null"] })).toBe(false);
  });

  it("lets through a widened request property and a new request media type, and nothing else", () => {
    const before = document(flag);
    const [newMedia, widened, response] = findingsOf(report);
    expect(isCompatible(widened, before, document(widerFlag))).toBe(true);
    expect(isCompatible(widened, before, document({ anyOf: [{ type: "string" }] }))).toBe(false);
    expect(
      isCompatible(newMedia, before, document(flag, { "application/x-www-form-urlencoded": { schema: {} } })),
    ).toBe(true);
    expect(
      isCompatible(
        newMedia,
        document(flag, { "application/x-www-form-urlencoded": { schema: {} } }),
        document(flag, { "application/x-www-form-urlencoded": { schema: {} } }),
      ),
    ).toBe(false);
    expect(isCompatible(response, before, document(widerFlag))).toBe(false);
  });
});
