/** The outstanding rules (src/handovers/operations.ts' description), one table row per rule and direction. */
import { describe, expect, test } from "bun:test";
import {
  isOpenFollowUp,
  outstandingItems,
  rules,
  type HandoverInputs,
  type OutstandingInputs,
  type VisitInputs,
} from "../../src/handovers/outstanding.ts";
import { outstandingCodes } from "../../src/handovers/schema.ts";

const today = "2026-03-15";
const allMeters = ["electricity", "gas", "water"];
const readAll = allMeters.map((meter) => ({ meter }));
const done = (over: Partial<HandoverInputs> = {}): HandoverInputs => ({
  status: "completed",
  dueOn: null,
  meterReadings: readAll,
  forwardingAddress: "1 New Street, Leeds",
  noticeEvidenceDocumentId: "DOC-1",
  ...over,
});
const visit = (over: Partial<VisitInputs> = {}): VisitInputs => ({
  reference: "CI-1",
  status: "completed",
  dueOn: "2026-01-01",
  followUps: [],
  ...over,
});
const repair = (status: string | null) => ({ repair: { id: "r", reference: null, status }, task: null });
const task = (status: string) => ({ repair: null, task: { id: "t", title: "Fix", status, dueOn: null } });

/** A tenancy in the middle of its term with nothing left to do. */
const settled: OutstandingInputs = {
  tenancyStatus: "active",
  startsOn: "2026-01-01",
  noticeGivenOn: null,
  today,
  meters: allMeters,
  moveIn: done(),
  moveOut: null,
  checkIn: visit(),
  checkOut: null,
  held: 2,
  ambiguous: 0,
};
/** An ended tenancy whose move-out is complete. */
const movedOut: OutstandingInputs = {
  ...settled,
  tenancyStatus: "ended",
  noticeGivenOn: "2026-02-01",
  moveOut: done(),
  checkOut: visit({ reference: "CO-1" }),
  held: 0,
};
/** A tenancy under notice whose move-out is prepared, its keys still with the tenants. */
const noticeGiven: OutstandingInputs = { ...movedOut, tenancyStatus: "notice_given", held: 2 };

type Expected = [code: string, direction: string, count: number | null];
const cases: [name: string, inputs: OutstandingInputs, expected: Expected[]][] = [
  ["nothing is outstanding for a settled tenancy", settled, []],
  ["nothing is outstanding for a completed move-out", movedOut, []],
  ["nothing is outstanding for a prepared move-out under notice", noticeGiven, []],
  [
    "check_in_missing (move_in): no check-in at all",
    { ...settled, checkIn: null },
    [["check_in_missing", "move_in", null]],
  ],
  [
    "check_in_missing (move_in): only a cancelled check-in",
    { ...settled, checkIn: visit({ status: "cancelled" }) },
    [["check_in_missing", "move_in", null]],
  ],
  [
    "check_in_open (move_in): the check-in is due",
    { ...settled, checkIn: visit({ status: "due" }) },
    [["check_in_open", "move_in", null]],
  ],
  [
    "check_in_open (move_in): the check-in is booked",
    { ...settled, checkIn: visit({ status: "booked" }) },
    [["check_in_open", "move_in", null]],
  ],
  [
    "follow_ups_open (move_in): counts the check-in's open repairs and tasks only",
    {
      ...settled,
      checkIn: visit({
        followUps: [
          repair("open"),
          repair(null),
          task("in_progress"),
          repair("completed"),
          repair("cancelled"),
          task("done"),
          task("cancelled"),
        ],
      }),
    },
    [["follow_ups_open", "move_in", 3]],
  ],
  [
    "follow_ups_open: a finding is open while either its repair or its task is",
    {
      ...settled,
      checkIn: visit({
        followUps: [
          {
            repair: { id: "r", reference: "R", status: "completed" },
            task: { id: "t", title: "T", status: "open", dueOn: null },
          },
        ],
      }),
    },
    [["follow_ups_open", "move_in", 1]],
  ],
  [
    "follow_ups_open (move_in): a cancelled check-in's open follow-ups still count",
    { ...settled, checkIn: visit({ status: "cancelled", followUps: [task("open")] }) },
    [
      ["check_in_missing", "move_in", null],
      ["follow_ups_open", "move_in", 1],
    ],
  ],
  [
    "keys_not_handed_over (move_in): started and nothing held",
    { ...settled, held: 0 },
    [["keys_not_handed_over", "move_in", null]],
  ],
  [
    "keys_not_handed_over (move_in): starting today counts as started",
    { ...settled, held: 0, startsOn: today },
    [["keys_not_handed_over", "move_in", null]],
  ],
  ["keys_not_handed_over: not before the tenancy starts", { ...settled, held: 0, startsOn: "2026-03-16" }, []],
  ["keys_not_handed_over: not for a tenancy without a start date", { ...settled, held: 0, startsOn: null }, []],
  [
    "keys_not_handed_over (move_in): also while notice is given",
    {
      ...settled,
      tenancyStatus: "notice_given",
      noticeGivenOn: "2026-03-01",
      moveOut: done(),
      checkOut: visit(),
      held: 0,
    },
    [["keys_not_handed_over", "move_in", null]],
  ],
  ["keys_not_handed_over: not once the tenancy has ended", { ...movedOut, held: 0 }, []],
  ["keys_unattributed (move_in) while active", { ...settled, ambiguous: 2 }, [["keys_unattributed", "move_in", 2]]],
  [
    "keys_unattributed (move_out) once notice is given",
    {
      ...settled,
      tenancyStatus: "notice_given",
      noticeGivenOn: "2026-03-01",
      moveOut: done(),
      checkOut: visit(),
      ambiguous: 1,
    },
    [["keys_unattributed", "move_out", 1]],
  ],
  ["keys_unattributed (move_out) once ended", { ...movedOut, ambiguous: 3 }, [["keys_unattributed", "move_out", 3]]],
  [
    "meter_readings_missing (move_in): meters without a move-in reading",
    { ...settled, moveIn: done({ meterReadings: [{ meter: "gas" }] }) },
    [["meter_readings_missing", "move_in", 2]],
  ],
  [
    "meter_readings_missing: a unit without meters needs none",
    { ...settled, meters: [], moveIn: done({ meterReadings: [] }) },
    [],
  ],
  [
    "handover_open (move_in): no move-in handover, so no readings either",
    { ...settled, moveIn: null },
    [
      ["meter_readings_missing", "move_in", 3],
      ["handover_open", "move_in", null],
    ],
  ],
  [
    "handover_open (move_in): the move-in handover is open",
    { ...settled, moveIn: done({ status: "open" }) },
    [["handover_open", "move_in", null]],
  ],
  [
    "check_out_missing (move_out): notice given and no check-out",
    { ...noticeGiven, checkOut: null },
    [["check_out_missing", "move_out", null]],
  ],
  [
    "check_out_missing (move_out): ended with only a cancelled check-out",
    { ...movedOut, checkOut: visit({ status: "cancelled" }) },
    [["check_out_missing", "move_out", null]],
  ],
  ["check_out_missing: not while active", { ...settled, checkOut: null }, []],
  [
    "check_out_open (move_out): notice given, check-out due",
    { ...noticeGiven, checkOut: visit({ status: "due" }) },
    [["check_out_open", "move_out", null]],
  ],
  [
    "check_out_open (move_out): ended, check-out booked",
    { ...movedOut, checkOut: visit({ status: "booked" }) },
    [["check_out_open", "move_out", null]],
  ],
  ["check_out_open: not while active", { ...settled, checkOut: visit({ status: "booked" }) }, []],
  [
    "follow_ups_open (move_out): the check-out's open follow-ups",
    { ...movedOut, checkOut: visit({ followUps: [task("open"), repair("scheduled")] }) },
    [["follow_ups_open", "move_out", 2]],
  ],
  [
    "follow_ups_open (move_out): counted whatever the tenancy status",
    { ...settled, checkOut: visit({ followUps: [task("open")] }) },
    [["follow_ups_open", "move_out", 1]],
  ],
  ["keys_held (move_out): ended and key sets still held", { ...movedOut, held: 2 }, [["keys_held", "move_out", 2]]],
  ["keys_held: not while notice is given", { ...noticeGiven, held: 2 }, []],
  [
    "meter_readings_missing (move_out): notice given, meters without a move-out reading",
    { ...noticeGiven, moveOut: done({ meterReadings: [] }) },
    [["meter_readings_missing", "move_out", 3]],
  ],
  [
    "meter_readings_missing (move_out): not asked while active",
    { ...settled, moveOut: done({ meterReadings: [] }) },
    [],
  ],
  [
    "forwarding_missing (move_out): ended, none recorded",
    { ...movedOut, moveOut: done({ forwardingAddress: null }) },
    [["forwarding_missing", "move_out", null]],
  ],
  [
    "forwarding_missing (move_out): a blank address is no address",
    { ...movedOut, moveOut: done({ forwardingAddress: "  " }) },
    [["forwarding_missing", "move_out", null]],
  ],
  ["forwarding_missing: not while active", { ...settled, moveOut: done({ forwardingAddress: null }) }, []],
  [
    "notice_evidence_missing (move_out): notice given, no document",
    { ...noticeGiven, moveOut: done({ noticeEvidenceDocumentId: null }) },
    [["notice_evidence_missing", "move_out", null]],
  ],
  [
    "notice_evidence_missing (move_out): follows noticeGivenOn even while active",
    { ...settled, noticeGivenOn: "2026-03-01" },
    [["notice_evidence_missing", "move_out", null]],
  ],
  [
    "notice_evidence_missing: not without a notice date",
    { ...movedOut, noticeGivenOn: null, moveOut: done({ noticeEvidenceDocumentId: null }) },
    [],
  ],
  [
    "handover_open (move_out): notice given and the move-out handover is open",
    { ...noticeGiven, moveOut: done({ status: "open" }) },
    [["handover_open", "move_out", null]],
  ],
  [
    "handover_open (move_out): ended without a move-out handover brings its readings, address and evidence",
    { ...movedOut, moveOut: null },
    [
      ["meter_readings_missing", "move_out", 3],
      ["forwarding_missing", "move_out", null],
      ["notice_evidence_missing", "move_out", null],
      ["handover_open", "move_out", null],
    ],
  ],
  ["handover_open: no move-out handover is needed while active", { ...settled, moveOut: null }, []],
];

describe("outstanding rules", () => {
  test.each(cases)("%s", (_name, inputs, expected) => {
    const items = outstandingItems(inputs);
    expect(items.map((i): unknown[] => [i.code, i.direction, i.count])).toEqual(expected);
    for (const item of items) expect(item.message.length).toBeGreaterThan(10);
  });

  test("every code and direction of the contract has a rule", () => {
    const pairs = rules.map((r) => `${r.code}/${r.direction(settled)}`).sort();
    expect(pairs).toEqual([
      "check_in_missing/move_in",
      "check_in_open/move_in",
      "check_out_missing/move_out",
      "check_out_open/move_out",
      "follow_ups_open/move_in",
      "follow_ups_open/move_out",
      "forwarding_missing/move_out",
      "handover_open/move_in",
      "handover_open/move_out",
      "keys_held/move_out",
      "keys_not_handed_over/move_in",
      "keys_unattributed/move_in",
      "meter_readings_missing/move_in",
      "meter_readings_missing/move_out",
      "notice_evidence_missing/move_out",
    ]);
    expect(new Set(rules.map((r) => r.code))).toEqual(new Set(outstandingCodes));
  });

  test("items are ordered by direction, then by the code's place in the enumeration", () => {
    const everything: OutstandingInputs = {
      tenancyStatus: "ended",
      startsOn: "2026-01-01",
      noticeGivenOn: "2026-02-01",
      today,
      meters: allMeters,
      moveIn: null,
      moveOut: null,
      checkIn: visit({ status: "cancelled", followUps: [task("open")] }),
      checkOut: visit({ status: "cancelled", followUps: [task("open"), task("open")] }),
      held: 1,
      ambiguous: 2,
    };
    expect(outstandingItems(everything).map((i) => `${i.direction}:${i.code}:${i.count}`)).toEqual([
      "move_in:check_in_missing:null",
      "move_in:follow_ups_open:1",
      "move_in:meter_readings_missing:3",
      "move_in:handover_open:null",
      "move_out:check_out_missing:null",
      "move_out:follow_ups_open:2",
      "move_out:keys_held:1",
      "move_out:keys_unattributed:2",
      "move_out:meter_readings_missing:3",
      "move_out:forwarding_missing:null",
      "move_out:notice_evidence_missing:null",
      "move_out:handover_open:null",
    ]);
    const active = outstandingItems({
      ...everything,
      tenancyStatus: "active",
      held: 0,
      checkIn: visit({ status: "booked" }),
    });
    expect(active.map((i) => `${i.direction}:${i.code}`)).toEqual([
      "move_in:check_in_open",
      "move_in:keys_not_handed_over",
      "move_in:keys_unattributed",
      "move_in:meter_readings_missing",
      "move_in:handover_open",
      "move_out:follow_ups_open",
      "move_out:notice_evidence_missing",
    ]);
  });

  test("messages name what to do, with counts in words a person reads", () => {
    const [one] = outstandingItems({
      ...settled,
      moveIn: done({ meterReadings: [{ meter: "gas" }, { meter: "water" }] }),
    });
    expect(one!.message).toBe("1 meter has no move-in reading (electricity): record the readings.");
    const [two] = outstandingItems({ ...settled, moveIn: done({ meterReadings: [{ meter: "gas" }] }) });
    expect(two!.message).toStartWith("2 meters have no move-in reading (electricity, water)");
    const [held] = outstandingItems({ ...movedOut, held: 1 });
    expect(held!.message).toContain("1 key set is still held");
    const [notice] = outstandingItems({ ...settled, noticeGivenOn: "2026-03-01" });
    expect(notice!.message).toContain("2026-03-01");
    const [due] = outstandingItems({
      ...settled,
      checkIn: visit({ status: "due", reference: "CI-9", dueOn: "2026-04-01" }),
    });
    expect(due!.message).toBe("The check-in CI-9 is due on 2026-04-01 and not booked yet: book it.");
  });

  test("isOpenFollowUp: open unless every linked repair and task is finished", () => {
    const table: [Parameters<typeof isOpenFollowUp>[0], boolean][] = [
      [repair("open"), true],
      [repair(null), true],
      [repair("completed"), false],
      [repair("cancelled"), false],
      [task("open"), true],
      [task("in_progress"), true],
      [task("done"), false],
      [task("cancelled"), false],
      [{ repair: null, task: null }, false],
    ];
    for (const [followUp, open] of table) expect(isOpenFollowUp(followUp)).toBe(open);
  });
});
