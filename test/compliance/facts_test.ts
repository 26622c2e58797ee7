/** Fact inheritance: the block's own value, else its property's, else unknown; and where each comes from. */
import { describe, expect, test } from "bun:test";
import { recordedFacts, resolveFacts, factNames } from "../../src/compliance/facts.ts";

describe("resolveFacts", () => {
  const cases: [string, unknown, unknown, string, string, string][] = [
    // name, block facts, property facts, effective fireAlarm, its source, own fireAlarm
    ["the block's own value wins over the property's", { fireAlarm: "no" }, { fireAlarm: "yes" }, "no", "own", "no"],
    [
      "an own unknown is a value of the block's own and wins",
      { fireAlarm: "unknown" },
      { fireAlarm: "yes" },
      "unknown",
      "own",
      "unknown",
    ],
    ["nothing on the block: inherited from the property", {}, { fireAlarm: "yes" }, "yes", "property", "unknown"],
    ["a property's unknown is inherited as such", {}, { fireAlarm: "unknown" }, "unknown", "property", "unknown"],
    ["recorded nowhere: unknown by default", {}, {}, "unknown", "default", "unknown"],
    [
      "an invalid own value counts as not recorded",
      { fireAlarm: "maybe" },
      { fireAlarm: "no" },
      "no",
      "property",
      "unknown",
    ],
    ["a non-string own value counts as not recorded", { fireAlarm: true }, {}, "unknown", "default", "unknown"],
    ["stored facts that are not an object record nothing", ["yes"], "yes", "unknown", "default", "unknown"],
    ["null stored facts record nothing", null, null, "unknown", "default", "unknown"],
  ];
  for (const [name, block, property, effective, source, own] of cases) {
    test(name, () => {
      const r = resolveFacts(block, property);
      expect(r.facts.fireAlarm).toBe(effective as any);
      expect(r.factSources.fireAlarm).toBe(source as any);
      expect(r.ownFacts.fireAlarm).toBe(own as any);
    });
  }

  test("every one of the five facts is resolved on its own", () => {
    const r = resolveFacts(
      { storeyOver11m: "yes", communalWater: "no" },
      { storeyOver11m: "no", builtBefore2000: "yes" },
    );
    expect(r).toEqual({
      facts: {
        storeyOver11m: "yes",
        builtBefore2000: "yes",
        fireAlarm: "unknown",
        emergencyLighting: "unknown",
        communalWater: "no",
      },
      ownFacts: {
        storeyOver11m: "yes",
        builtBefore2000: "unknown",
        fireAlarm: "unknown",
        emergencyLighting: "unknown",
        communalWater: "no",
      },
      factSources: {
        storeyOver11m: "own",
        builtBefore2000: "property",
        fireAlarm: "default",
        emergencyLighting: "default",
        communalWater: "own",
      },
    });
    expect(Object.keys(r.facts)).toEqual([...factNames]);
  });

  test("names other than the five are ignored", () => {
    expect(recordedFacts({ liftInstalled: "yes", fireAlarm: "yes" })).toEqual({ fireAlarm: "yes" });
  });
});
