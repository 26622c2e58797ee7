/** The OpenAPI document, as served, names every rule a hazard clock can apply, with its period and what meets it. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { clockKinds, knownPolicyVersions } from "../../src/maintenance_pro/clocks.ts";

const h = await harness();
const served = await h.request("GET", "/openapi.json");

describe("the repair clock's rule in OpenAPI", () => {
  test("names every rule, `<policyVersion>/<kind>`, of every rule set the service knows", () => {
    expect(served.status).toBe(200);
    const rule = served.body.components.schemas.RepairClock.properties.rule.description as string;
    const rules = knownPolicyVersions.flatMap((version) => clockKinds.map((kind) => `${version}/${kind}`));
    expect(rules).toHaveLength(6);
    for (const name of rules) expect(rule).toContain(`\`${name}\``);
  });

  test("gives each rule's period and the milestone that meets it", () => {
    const rule = served.body.components.schemas.RepairClock.properties.rule.description as string;
    expect(rule).toContain("`awaabs-law-2025-10-27/emergency_make_safe` (24 hours, met by `made_safe`)");
    expect(rule).toContain("`awaabs-law-2025-10-27/significant_investigate` (10 working days, met by `investigated`)");
    expect(rule).toContain(
      "`awaabs-law-2025-10-27/preventative_work_start` (84 calendar days, met by `preventative_work_started`)",
    );
  });
});
