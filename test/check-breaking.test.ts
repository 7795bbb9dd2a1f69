// npm run check:breaking fails on the breaking edits Optic let through (issue 59): a query
// parameter removed and a request body property made required, each made to a copy of the
// document, against that document released under the same major version. Its own checks run here
// without Optic (a minute a run); the edits Optic catches are its tests' business.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { ownBreakingFindings } from "../scripts/breaking-own-checks";
import type { JsonObject } from "../src/openapi/spec";

const ROOT = resolve(__dirname, "..");
const released = JSON.parse(readFileSync(join(ROOT, "generated/openapi.json"), "utf8")) as JsonObject;
const copy = () => structuredClone(released) as any;

function withoutFeatured() {
  const document = copy();
  const get = document.paths["/events"].get;
  get.parameters = get.parameters.filter((parameter: { $ref?: string }) => !/\/Featured$/.test(parameter.$ref ?? ""));
  expect(get.parameters.length).toBe((released as any).paths["/events"].get.parameters.length - 1);
  return document;
}

function withCityRequired() {
  const document = copy();
  document.components.schemas.CreateVenueRequest.allOf[1].required.push("city");
  return document;
}

function withFewerRequired() {
  const document = copy();
  document.components.schemas.CreateVenueRequest.allOf[1].required = [];
  return document;
}

describe("its own checks", () => {
  it("find nothing between a document and itself, nor in a body that requires less", () => {
    expect(ownBreakingFindings(released, copy())).toEqual([]);
    expect(ownBreakingFindings(released, withFewerRequired())).toEqual([]);
  });

  it("find a removed query parameter", () => {
    expect(ownBreakingFindings(released, withoutFeatured())).toEqual([
      expect.objectContaining({ operation: "GET /events", rule: "parameter removed" }),
    ]);
  });

  it("find a body property made required, in each media type of the body", () => {
    const findings = ownBreakingFindings(released, withCityRequired());
    expect(findings.map((finding) => [finding.operation, finding.mediaType, finding.pointer])).toEqual([
      ["POST /venues", "application/json", "/schema/properties/city"],
      ["POST /venues", "application/x-www-form-urlencoded", "/schema/properties/city"],
      ["POST /venues", "multipart/form-data", "/schema/properties/city"],
    ]);
  });
});

describe("npm run check:breaking", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "calendar-breaking-"));
    const version = (released as { info: { version: string } }).info.version;
    mkdirSync(join(scratch, "released"));
    writeFileSync(join(scratch, "released", `${version}.json`), JSON.stringify(released));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const check = async (document: JsonObject) => {
    const current = join(scratch, "current.json");
    writeFileSync(current, JSON.stringify(document));
    const env = {
      ...process.env,
      BREAKING_CURRENT: current,
      BREAKING_RELEASED_DIR: join(scratch, "released"),
      BREAKING_WITHOUT_OPTIC: "true",
    };
    return promisify(execFile)(process.execPath, ["--import", "tsx", join(ROOT, "scripts/check-breaking.ts")], {
      cwd: ROOT,
      env,
    }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
  };

  it("passes an unchanged document", async () => {
    expect(await check(copy())).toEqual({ code: 0, output: expect.stringContaining("no breaking change") });
  }, 60_000);

  it.each([
    ["a query parameter removed", withoutFeatured, "GET /events"],
    ["a body property made required", withCityRequired, "POST /venues"],
  ])(
    "fails on %s",
    async (_, edit, operation) => {
      const result = await check(edit());
      expect(result.code).toBe(1);
      expect(result.output).toContain(`breaking: ${operation}`);
    },
    60_000,
  );
});
