/**
 * Dates the API accepts are bounded to 1900-01-01..2200-12-31 at validation (src/core/dates.ts): a date outside is a
 * 400 `RequestInvalid`, never a 500, and an unauthenticated one is refused as any unknown key is, logging no fault.
 */
import { describe, expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { agenda } from "../../src/calendar/operations.ts";
import { connectHttp, expectSameAsRest, rest, type Handler, type Input } from "../mcp/support.ts";
import { harness } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";

const h = await harness();
const ws = await h.workspace();
const property = await h.rows(ws).property({ label: "Flat 1" });

const { log, lines } = recordingLog();
const app = buildApp({ ...h.ctx, log }) as unknown as Handler;

const madeUpKey = `lk_${"A".repeat(43)}`;
const faults = () => lines.filter((l) => l.level === "error" || l.stack !== undefined);

describe("an agenda bound outside 1900-01-01..2200-12-31", () => {
  test.each([
    ["from=9999-12-31", { from: "9999-12-31" }],
    ["from=9999-12-31 and a staffId", { from: "9999-12-31", staffId: "someone" }],
    ["from=9999-12-31T00:00:00Z", { from: "9999-12-31T00:00:00Z" }],
  ])("with a made-up key (%s) is 401 ApiKeyRejected, and no fault is logged", async (_name, query) => {
    lines.length = 0;
    const res = await rest(app, agenda, { params: {}, query }, { key: madeUpKey });
    expect(res.status).toBe(401);
    expect(res.body._tag).toBe("ApiKeyRejected");
    expect(faults()).toEqual([]);
  });

  test.each([
    ["a date of year 9999", { from: "9999-12-31" }, "/query/from"],
    ["a date of year 9999 with a propertyId", { from: "9999-12-31", propertyId: property }, "/query/from"],
    [
      "an instant of year 9999 with a propertyId",
      { from: "9999-12-31T00:00:00Z", propertyId: property },
      "/query/from",
    ],
    ["a date of 1899", { from: "1899-12-31" }, "/query/from"],
    [
      "an instant of 1899 with a propertyId",
      { from: "1899-12-31T23:00:00-01:00", propertyId: property },
      "/query/from",
    ],
    ["a `to` of 2201", { from: "2200-12-31", to: "2201-01-01" }, "/query/to"],
    ["a `to` of 2201 with a propertyId", { from: "2200-12-31", to: "2201-01-02", propertyId: property }, "/query/to"],
  ])("with a valid key (%s) is 400 RequestInvalid naming it, over REST and MCP", async (_name, query, path) => {
    lines.length = 0;
    const input: Input = { params: {}, query };
    const res = await rest(app, agenda, input, { key: ws.key });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    const s = await connectHttp(app, { key: ws.key });
    try {
      await expectSameAsRest(s.client, agenda, input, res, "legacy");
    } finally {
      await s.close();
    }
    expect(faults()).toEqual([]);
  });

  test.each([
    ["from 1900-01-01", { from: "1900-01-01" }],
    ["from 1900-01-01 with a propertyId", { from: "1900-01-01", propertyId: property }],
    ["from 2200-12-31 (the default `to` is in 2201)", { from: "2200-12-31" }],
    ["from 2200-12-31 with a propertyId", { from: "2200-12-31", propertyId: property }],
    ["to 2200-12-31T23:59:59.999Z", { from: "2200-12-01", to: "2200-12-31T23:59:59.999Z" }],
  ])("inside the bounds (%s) is listed", async (_name, query) => {
    const res = await rest(app, agenda, { params: {}, query }, { key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  test("the bounds are stated in the agenda's OpenAPI parameters", async () => {
    const res = await h.request("GET", "/openapi.json");
    const parameters = res.body.paths["/calendar/agenda"].get.parameters as {
      name: string;
      schema: { description: string; pattern: string };
    }[];
    for (const name of ["from", "to"]) {
      const schema = parameters.find((p) => p.name === name)!.schema;
      expect(schema.description).toContain("1900-01-01 to 2200-12-31");
      expect(new RegExp(schema.pattern).test("2200-12-31")).toBe(true);
      expect(new RegExp(schema.pattern).test("2201-01-01")).toBe(false);
    }
  });
});
