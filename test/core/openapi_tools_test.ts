/** Independent OpenAPI tools accept the document: Redocly's linter (recommended rules) and openapi-typescript. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { harness } from "../support/harness.ts";
import { envWithout, root, runToEnd } from "../support/service.ts";

const h = await harness();
const doc = (await h.request("GET", "/openapi.json")).body;
const dir = mkdtempSync(join(tmpdir(), "openapi-tools-"));
const file = join(dir, "openapi.json");
writeFileSync(file, JSON.stringify(doc));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the OpenAPI document", () => {
  test("passes `redocly lint` with the recommended rules and no error", async () => {
    const lint = await runToEnd(
      ["bun", join(root, "node_modules", ".bin", "redocly"), "lint", file, "--extends=recommended", "--format=json"],
      { cwd: dir, env: envWithout([], { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }) },
    );
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
    };
    const listed = report.problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} ${p.location[0]?.pointer ?? ""}`,
    );
    if (report.totals.warnings) console.log(`redocly lint warnings:\n  ${listed.join("\n  ")}`);
    expect(listed.filter((p) => p.startsWith("error"))).toEqual([]);
    expect({ errors: report.totals.errors, code: lint.code, err: lint.code ? lint.stderr : "" }).toEqual({
      errors: 0,
      code: 0,
      err: "",
    });
  }, 60_000);

  test("gives openapi-typescript a named type for every shared resource, body and error", async () => {
    const types = astToString(await openapiTS(doc));
    expect(types).not.toContain("schemas: never");
    for (const name of [
      "HandoverRow",
      "ContractorInvoice",
      "Company",
      "Task",
      "SmsThread",
      "RequestInvalid",
      "RateLimited",
      "RouteNotFound",
    ]) {
      expect(types).toMatch(new RegExp(`^        ${name}: \\{`, "m"));
    }
    expect(types).toContain('content: {\n                    "application/json": components["schemas"]["Task"];');
  }, 60_000);
});
