/** The hazard clock rules (README, Repairs and hazard clocks), computed from a repair's facts with `now` passed in. */
import { describe, expect, test } from "bun:test";
import { openDues, repairClocks, type Clock, type ClockFacts } from "../../src/maintenance_pro/clocks.ts";
import { workingCalendar } from "../../src/maintenance_pro/working_days.ts";

/** England and Wales bank holidays 2025–2028 as GOV.UK lists them. */
const holidays = [
  "2025-01-01 2025-04-18 2025-04-21 2025-05-05 2025-05-26 2025-08-25 2025-12-25 2025-12-26",
  "2026-01-01 2026-04-03 2026-04-06 2026-05-04 2026-05-25 2026-08-31 2026-12-25 2026-12-28",
  "2027-01-01 2027-03-26 2027-03-29 2027-05-03 2027-05-31 2027-08-30 2027-12-27 2027-12-28",
  "2028-01-03 2028-04-14 2028-04-17 2028-05-01 2028-05-29 2028-08-28 2028-12-25 2028-12-26",
]
  .join(" ")
  .split(" ")
  .map((date) => ({ date, title: "Bank holiday" }));
const calendar = workingCalendar(holidays, [2025, 2026, 2027, 2028]);
const policy = "awaabs-law-2025-10-27";

function facts(fields: Partial<ClockFacts>): ClockFacts {
  return {
    awareAt: "2026-06-01T09:00:00.000Z",
    hazard: "significant",
    hhsrsHazard: "damp_and_mould_growth",
    regime: "social",
    policyVersion: policy,
    milestones: [],
    cancelledAt: null,
    ...fields,
  };
}

function clocks(fields: Partial<ClockFacts>, now = "2026-06-01T09:00:00.000Z", prsInForceFrom: string | null = null) {
  return repairClocks(facts(fields), { calendar, prsInForceFrom, now });
}

const byKind = (list: Clock[]) => Object.fromEntries(list.map((c) => [c.kind, c]));
const m = (kind: string, at: string, outcome: string | null = null) => ({ kind, at, outcome });

describe("which clocks exist", () => {
  test("the contract's example: aware Wed 23 Dec 2026 10:00, due at the end of Mon 11 Jan 2027", () => {
    const [clock] = clocks({ awareAt: "2026-12-23T10:00:00Z" }, "2026-12-23T10:00:00Z");
    expect(clock).toEqual({
      kind: "significant_investigate",
      basis: "statutory",
      rule: "awaabs-law-2025-10-27/significant_investigate",
      startsAt: "2026-12-23T10:00:00.000Z",
      dueAt: "2027-01-11T23:59:59.999Z",
      status: "running",
      metAt: null,
      ceasedReason: null,
      explanation:
        "10 working days after Wed 23 Dec 2026, skipping Fri 25 Dec, Mon 28 Dec and Fri 1 Jan (bank holidays): due " +
        "by the end of Mon 11 Jan 2027",
    });
  });

  test("no clocks before triage, for hazard none, or for a legacy record", () => {
    expect(clocks({ hazard: null, hhsrsHazard: null, regime: null, policyVersion: null })).toEqual([]);
    expect(clocks({ hazard: "none", hhsrsHazard: null })).toEqual([]);
    expect(
      clocks({ hazard: "none", hhsrsHazard: null, milestones: [m("investigated", "2026-06-02T09:00:00Z")] }),
    ).toEqual([]);
    expect(clocks({ awareAt: null, hazard: null, hhsrsHazard: null, regime: null, policyVersion: null })).toEqual([]);
  });

  test("an emergency has two 24-hour clocks from awareness, elapsed time through weekends and clock changes", () => {
    // Sat 28 Mar 2026 12:00 GMT; the clocks go forward on Sunday 29 March: 24 hours later is 13:00 BST.
    const list = clocks({ hazard: "emergency", hhsrsHazard: "fire", awareAt: "2026-03-28T12:00:00Z" });
    expect(list.map((c) => [c.kind, c.startsAt, c.dueAt])).toEqual([
      ["emergency_investigate", "2026-03-28T12:00:00.000Z", "2026-03-29T12:00:00.000Z"],
      ["emergency_make_safe", "2026-03-28T12:00:00.000Z", "2026-03-29T12:00:00.000Z"],
    ]);
    expect(list[0]!.explanation).toBe("24 hours after Sat 28 Mar 2026 12:00 GMT: due by Sun 29 Mar 2026 13:00 BST");
    expect(list[1]!.rule).toBe("awaabs-law-2025-10-27/emergency_make_safe");
  });

  test("a significant hazard's working days end at midnight London time, in summer 23:59:59.999 BST", () => {
    // Mon 1 Jun 2026 is day 0; no bank holiday until 31 Aug: day 10 is Mon 15 Jun.
    const [clock] = clocks({ awareAt: "2026-06-01T09:00:00Z" });
    expect(clock!.dueAt).toBe("2026-06-15T22:59:59.999Z");
    expect(clock!.explanation).toBe("10 working days after Mon 1 Jun 2026: due by the end of Mon 15 Jun 2026");
  });

  test("the day of awareness is day 0 even late at night London time", () => {
    // 23:30 BST on Fri 5 Jun is 22:30 UTC: day 0 is Friday, so day 1 is Mon 8 Jun and day 10 Fri 19 Jun.
    const [clock] = clocks({ awareAt: "2026-06-05T22:30:00Z" });
    expect(clock!.dueAt).toBe("2026-06-19T22:59:59.999Z");
  });

  test("an investigation of a significant hazard that confirms it adds the summary, safety and preventative clocks", () => {
    const investigated = "2026-06-03T14:00:00+01:00";
    const list = clocks({ milestones: [m("investigated", investigated, "hazard_confirmed")] }, "2026-06-03T13:00:00Z");
    expect(list.map((c) => c.kind)).toEqual([
      "significant_investigate",
      "written_summary",
      "safety_work_start",
      "preventative_work_start",
    ]);
    const k = byKind(list);
    expect(k.significant_investigate!).toMatchObject({ status: "met", metAt: "2026-06-03T13:00:00.000Z" });
    // Wed 3 Jun is day 0: 3 working days → Mon 8 Jun; 5 → Wed 10 Jun; 84 calendar days → Wed 26 Aug.
    expect(k.written_summary!).toMatchObject({
      startsAt: "2026-06-03T13:00:00.000Z",
      dueAt: "2026-06-08T22:59:59.999Z",
      status: "running",
    });
    expect(k.safety_work_start!.dueAt).toBe("2026-06-10T22:59:59.999Z");
    expect(k.preventative_work_start!).toMatchObject({
      dueAt: "2026-08-26T22:59:59.999Z",
      explanation: "84 calendar days after Wed 3 Jun 2026: due by the end of Wed 26 Aug 2026",
    });
  });

  test("an emergency confirmed adds the summary and preventative clocks but no safety-work clock", () => {
    const list = clocks({
      hazard: "emergency",
      hhsrsHazard: "electrical_hazards",
      milestones: [m("investigated", "2026-06-01T12:00:00Z", "hazard_confirmed")],
    });
    expect(list.map((c) => c.kind)).toEqual([
      "emergency_investigate",
      "emergency_make_safe",
      "written_summary",
      "preventative_work_start",
    ]);
  });

  test("an investigation finding no hazard adds only the written summary", () => {
    const list = clocks({ milestones: [m("investigated", "2026-06-02T09:00:00Z", "no_hazard")] });
    expect(list.map((c) => [c.kind, c.status])).toEqual([
      ["significant_investigate", "met"],
      ["written_summary", "running"],
    ]);
  });

  test("working days skip bank holidays and say which; beyond the known years only weekends, and it says so", () => {
    const easter = byKind(clocks({ milestones: [m("investigated", "2027-03-25T10:00:00Z", "hazard_confirmed")] }));
    // Thu 25 Mar 2027 is day 0; Good Friday 26 Mar and Easter Monday 29 Mar are skipped: 3 → Thu 1 Apr.
    expect(easter.written_summary!.explanation).toBe(
      "3 working days after Thu 25 Mar 2027, skipping Fri 26 Mar and Mon 29 Mar (bank holidays): due by the end of " +
        "Thu 1 Apr 2027",
    );
    expect(easter.written_summary!.dueAt).toBe("2027-04-01T22:59:59.999Z");
    const [late] = clocks({ awareAt: "2030-12-20T10:00:00Z" }, "2030-12-20T10:00:00Z");
    expect(late!.dueAt).toBe("2031-01-03T23:59:59.999Z");
    expect(late!.explanation).toContain("counting only weekends as non-working days in 2030 and 2031");
  });
});

describe("statuses", () => {
  const due = "2026-06-15T22:59:59.999Z";

  test("running until the due instant, breached one millisecond after it", () => {
    expect(clocks({}, due)[0]!.status).toBe("running");
    expect(clocks({}, "2026-06-15T23:00:00.000Z")[0]!.status).toBe("breached");
  });

  test("met when its milestone is at or before the due instant, met_late after, with metAt either way", () => {
    const onTime = clocks({ milestones: [m("investigated", due, "hazard_confirmed")] }, "2026-07-01T00:00:00Z");
    expect(onTime[0]).toMatchObject({ status: "met", metAt: due, ceasedReason: null });
    const late = clocks(
      { milestones: [m("investigated", "2026-06-15T23:00:00Z", "no_hazard")] },
      "2026-07-01T00:00:00Z",
    );
    expect(late[0]).toMatchObject({ status: "met_late", metAt: "2026-06-15T23:00:00.000Z" });
  });

  test("the statuses of an emergency's clocks are each their own", () => {
    const list = clocks(
      {
        hazard: "emergency",
        hhsrsHazard: "carbon_monoxide_and_fuel_combustion_products",
        milestones: [m("made_safe", "2026-06-01T15:00:00Z")],
      },
      "2026-06-02T09:30:00Z",
    );
    expect(list.map((c) => [c.kind, c.status])).toEqual([
      ["emergency_investigate", "breached"],
      ["emergency_make_safe", "met"],
    ]);
  });
});

describe("ceasing", () => {
  const emergency = { hazard: "emergency" as const, hhsrsHazard: "structural_collapse_and_falling_elements" };

  test("no hazard found ceases the make-safe clock but not the written summary", () => {
    const list = byKind(
      clocks(
        { ...emergency, milestones: [m("investigated", "2026-06-01T11:00:00Z", "no_hazard")] },
        "2026-06-30T00:00:00Z",
      ),
    );
    expect(list.emergency_investigate).toMatchObject({ status: "met", ceasedReason: null });
    expect(list.emergency_make_safe).toMatchObject({ status: "ceased", ceasedReason: "no_hazard", metAt: null });
    expect(list.written_summary).toMatchObject({ status: "breached", ceasedReason: null });
  });

  test("decanting ceases only the make-safe clock", () => {
    const list = byKind(
      clocks({ ...emergency, milestones: [m("decanted", "2026-06-01T10:00:00Z")] }, "2026-06-03T00:00:00Z"),
    );
    expect(list.emergency_make_safe).toMatchObject({ status: "ceased", ceasedReason: "decanted" });
    expect(list.emergency_investigate).toMatchObject({ status: "breached", ceasedReason: null });
  });

  test("completion ceases every clock still running, the written summary included", () => {
    const list = clocks(
      {
        milestones: [
          m("investigated", "2026-06-02T09:00:00Z", "hazard_confirmed"),
          m("safety_work_started", "2026-06-03T09:00:00Z"),
          m("completed", "2026-06-04T09:00:00Z"),
        ],
      },
      "2026-12-01T00:00:00Z",
    );
    expect(list.map((c) => [c.kind, c.status, c.ceasedReason])).toEqual([
      ["significant_investigate", "met", null],
      ["written_summary", "ceased", "completed"],
      ["safety_work_start", "met", null],
      ["preventative_work_start", "ceased", "completed"],
    ]);
  });

  test("a cancel ceases every clock still running at the moment of the cancel", () => {
    const list = clocks(
      { ...emergency, milestones: [m("made_safe", "2026-06-01T10:00:00Z")], cancelledAt: "2026-06-01T12:00:00Z" },
      "2026-07-01T00:00:00Z",
    );
    expect(list.map((c) => [c.kind, c.status, c.ceasedReason])).toEqual([
      ["emergency_investigate", "ceased", "cancelled"],
      ["emergency_make_safe", "met", null],
    ]);
  });

  test("a breach is a fact: a ceasing after the due instant leaves the clock breached", () => {
    const afterDue = "2026-06-16T10:00:00Z";
    for (const ceasing of [
      { milestones: [m("completed", afterDue)] },
      { cancelledAt: afterDue },
      { milestones: [m("decanted", "2026-06-03T10:00:00Z")], ...emergency },
    ]) {
      const list = clocks(ceasing, "2026-06-20T00:00:00Z");
      expect(list.map((c) => c.status)).not.toContain("ceased");
      expect(list.map((c) => c.status)).toContain("breached");
      expect(list.every((c) => c.ceasedReason === null)).toBe(true);
    }
  });

  test("a breached clock whose milestone comes later is met_late, even after a ceasing milestone", () => {
    const list = byKind(
      clocks(
        { ...emergency, milestones: [m("decanted", "2026-06-03T10:00:00Z"), m("made_safe", "2026-06-04T10:00:00Z")] },
        "2026-06-20T00:00:00Z",
      ),
    );
    expect(list.emergency_make_safe).toMatchObject({ status: "met_late", metAt: "2026-06-04T10:00:00.000Z" });
  });

  test("of two ceasings before the due instant the earlier gives the reason", () => {
    const list = byKind(
      clocks(
        {
          ...emergency,
          milestones: [m("decanted", "2026-06-01T10:00:00Z"), m("completed", "2026-06-01T11:00:00Z")],
        },
        "2026-06-20T00:00:00Z",
      ),
    );
    expect(list.emergency_make_safe!.ceasedReason).toBe("decanted");
    expect(list.emergency_investigate!.ceasedReason).toBe("completed");
  });
});

describe("basis", () => {
  const basis = (fields: Partial<ClockFacts>, prs: string | null = null) =>
    clocks(fields, "2026-06-01T00:00:00Z", prs).map((c) => c.basis);

  test("social: statutory for damp and mould aware from 00:00 London on 27 October 2025, policy before", () => {
    expect(basis({ awareAt: "2025-10-27T00:00:00Z" })).toEqual(["statutory"]);
    expect(basis({ awareAt: "2025-10-26T23:59:59.999Z" })).toEqual(["policy"]);
  });

  test("a significant hazard other than damp and mould is policy; an emergency of any hazard but crowding is statutory", () => {
    expect(basis({ hhsrsHazard: "excess_cold" })).toEqual(["policy"]);
    expect(basis({ hazard: "emergency", hhsrsHazard: "excess_cold" })).toEqual(["statutory", "statutory"]);
    expect(basis({ hazard: "emergency", hhsrsHazard: "crowding_and_space" })).toEqual(["policy", "policy"]);
  });

  test("private: policy while no date is set; statutory for awareness from 00:00 London on the date once set", () => {
    expect(basis({ regime: "private" })).toEqual(["policy"]);
    // 1 April 2026 00:00 BST is 31 March 23:00 UTC.
    expect(basis({ regime: "private", awareAt: "2026-03-31T23:00:00Z" }, "2026-04-01")).toEqual(["statutory"]);
    expect(basis({ regime: "private", awareAt: "2026-03-31T22:59:59.999Z" }, "2026-04-01")).toEqual(["policy"]);
    expect(basis({ regime: "private", hhsrsHazard: "noise" }, "2026-04-01")).toEqual(["policy"]);
  });

  test("every clock of a repair has the same basis, those made later by milestones included", () => {
    const list = clocks({ milestones: [m("investigated", "2026-06-02T09:00:00Z", "hazard_confirmed")] });
    expect(new Set(list.map((c) => c.basis))).toEqual(new Set(["statutory"]));
    const settled = clocks({
      regime: "private",
      milestones: [m("investigated", "2026-06-02T09:00:00Z", "hazard_confirmed")],
    });
    expect(new Set(settled.map((c) => c.basis))).toEqual(new Set(["policy"]));
  });
});

describe("open dues", () => {
  test("the earliest and latest due among running and breached clocks, whatever now is", () => {
    const fields: Partial<ClockFacts> = {
      hazard: "emergency",
      hhsrsHazard: "fire",
      milestones: [m("investigated", "2026-06-01T10:00:00Z", "hazard_confirmed")],
    };
    for (const now of ["2026-06-01T10:00:00Z", "2026-06-03T00:00:00Z", "2027-01-01T00:00:00Z"]) {
      expect(openDues(clocks(fields, now))).toEqual({
        first: "2026-06-02T09:00:00.000Z",
        last: "2026-08-24T22:59:59.999Z",
      });
    }
  });

  test("none when every clock is met or ceased", () => {
    expect(openDues(clocks({ milestones: [m("completed", "2026-06-02T09:00:00Z")] }))).toEqual({
      first: null,
      last: null,
    });
    expect(openDues([])).toEqual({ first: null, last: null });
  });
});
