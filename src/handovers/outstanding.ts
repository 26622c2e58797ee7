/** The outstanding items of a tenancy's handovers (described in src/handovers/operations.ts): pure rules. */
import {
  outstandingCodes,
  type Direction,
  type FollowUp,
  type OutstandingCode,
  type OutstandingItem,
  type TenancyStatus,
} from "./schema.ts";

/** A handover as the rules need it. */
export interface HandoverInputs {
  status: "open" | "completed";
  dueOn: string | null;
  meterReadings: { meter: string }[];
  forwardingAddress: string | null;
  noticeEvidenceDocumentId: string | null;
}

/** A check-in or check-out as the rules need it: the one shown on the row. */
export interface VisitInputs {
  reference: string;
  status: "due" | "booked" | "completed" | "cancelled";
  dueOn: string | null;
  followUps: Pick<FollowUp, "repair" | "task">[];
}

/** What the outstanding items are computed from. */
export interface OutstandingInputs {
  tenancyStatus: TenancyStatus;
  startsOn: string | null;
  noticeGivenOn: string | null;
  /** Today in Europe/London, YYYY-MM-DD. */
  today: string;
  /** The unit's meters. */
  meters: string[];
  moveIn: HandoverInputs | null;
  moveOut: HandoverInputs | null;
  checkIn: VisitInputs | null;
  checkOut: VisitInputs | null;
  /** How many key sets the tenancy holds (checked out with its tenancyId). */
  held: number;
  /** How many key sets are checked out to a tenant or an occupant without a tenancyId. */
  ambiguous: number;
}

/** Whether a follow-up still needs work: its repair is not completed/cancelled, or its task is not done/cancelled. */
export function isOpenFollowUp(followUp: Pick<FollowUp, "repair" | "task">): boolean {
  const repairOpen =
    followUp.repair !== null && followUp.repair.status !== "completed" && followUp.repair.status !== "cancelled";
  const taskOpen = followUp.task !== null && followUp.task.status !== "done" && followUp.task.status !== "cancelled";
  return repairOpen || taskOpen;
}

type Found = { count: number | null; message: string } | null;

/** One rule: the item of one code and direction, or null when it does not apply. */
export interface Rule {
  code: OutstandingCode;
  /** The direction the item takes for these inputs. */
  direction(f: OutstandingInputs): Direction;
  check(f: OutstandingInputs): Found;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const leaving = (s: TenancyStatus) => s === "notice_given" || s === "ended";
const live = (v: VisitInputs | null) => (v && v.status !== "cancelled" ? v : null);
const always = (d: Direction) => () => d;
const words: Record<Direction, { visit: string; handover: string; reading: string }> = {
  move_in: { visit: "check-in", handover: "move-in handover", reading: "move-in reading" },
  move_out: { visit: "check-out", handover: "move-out handover", reading: "move-out reading" },
};

function visitMissing(direction: Direction, f: OutstandingInputs, visit: VisitInputs | null): Found {
  if (live(visit)) return null;
  const { visit: name } = words[direction];
  const why =
    direction === "move_out"
      ? f.tenancyStatus === "ended"
        ? " although the tenancy has ended"
        : " although notice has been given"
      : "";
  const cancelled = visit ? ` (${visit.reference} was cancelled)` : "";
  return { count: null, message: `No ${name} is arranged${why}${cancelled}: create and book one.` };
}

function visitOpen(direction: Direction, visit: VisitInputs | null): Found {
  const v = live(visit);
  if (!v || (v.status !== "due" && v.status !== "booked")) return null;
  const { visit: name } = words[direction];
  const message =
    v.status === "due"
      ? `The ${name} ${v.reference} is due${v.dueOn ? ` on ${v.dueOn}` : ""} and not booked yet: book it.`
      : `The ${name} ${v.reference} is booked but not completed: complete it and record the outcome.`;
  return { count: null, message };
}

function followUpsOpen(direction: Direction, visit: VisitInputs | null): Found {
  if (!visit) return null;
  const open = visit.followUps.filter(isOpenFollowUp).length;
  if (open === 0) return null;
  const verb = open === 1 ? "is" : "are";
  return {
    count: open,
    message:
      `${plural(open, "follow-up", "follow-ups")} from the ${words[direction].visit} ${visit.reference} ` +
      `${verb} still open: complete or cancel the repairs and tasks.`,
  };
}

function metersMissing(direction: Direction, f: OutstandingInputs, handover: HandoverInputs | null): Found {
  const read = new Set((handover?.meterReadings ?? []).map((r) => r.meter));
  const missing = f.meters.filter((m) => !read.has(m));
  if (missing.length === 0) return null;
  const verb = missing.length === 1 ? "has" : "have";
  return {
    count: missing.length,
    message:
      `${plural(missing.length, "meter", "meters")} ${verb} no ${words[direction].reading} ` +
      `(${missing.join(", ")}): record the readings.`,
  };
}

function handoverOpen(direction: Direction, handover: HandoverInputs | null): Found {
  const { handover: name } = words[direction];
  if (!handover) return { count: null, message: `The ${name} has not been started: start it.` };
  if (handover.status !== "open") return null;
  return {
    count: null,
    message: `The ${name} is still open${handover.dueOn ? ` (due on ${handover.dueOn})` : ""}: complete it.`,
  };
}

/**
 * Every outstanding rule (the OpenAPI description's table), one per code and direction. A rule reading `f.today`
 * makes stored rows expire: it must also move `validBefore` (row.ts), or a stored row outlives the day its item
 * changes.
 */
export const rules: readonly Rule[] = [
  { code: "check_in_missing", direction: always("move_in"), check: (f) => visitMissing("move_in", f, f.checkIn) },
  { code: "check_in_open", direction: always("move_in"), check: (f) => visitOpen("move_in", f.checkIn) },
  { code: "follow_ups_open", direction: always("move_in"), check: (f) => followUpsOpen("move_in", f.checkIn) },
  {
    code: "keys_not_handed_over",
    direction: always("move_in"),
    check: (f) =>
      f.tenancyStatus !== "ended" && f.startsOn !== null && f.startsOn <= f.today && f.held === 0
        ? {
            count: null,
            message:
              "The tenancy has started but no key set is recorded as handed over to it: check the keys out to " +
              "the tenants for this tenancy.",
          }
        : null,
  },
  {
    code: "keys_unattributed",
    direction: (f) => (f.tenancyStatus === "active" ? "move_in" : "move_out"),
    check: (f) =>
      f.ambiguous > 0
        ? {
            count: f.ambiguous,
            message:
              `${plural(f.ambiguous, "key set is", "key sets are")} checked out to a tenant without ` +
              `naming a tenancy: record which tenancy holds ${f.ambiguous === 1 ? "it" : "them"}.`,
          }
        : null,
  },
  { code: "meter_readings_missing", direction: always("move_in"), check: (f) => metersMissing("move_in", f, f.moveIn) },
  { code: "handover_open", direction: always("move_in"), check: (f) => handoverOpen("move_in", f.moveIn) },
  {
    code: "check_out_missing",
    direction: always("move_out"),
    check: (f) => (leaving(f.tenancyStatus) ? visitMissing("move_out", f, f.checkOut) : null),
  },
  {
    code: "check_out_open",
    direction: always("move_out"),
    check: (f) => (leaving(f.tenancyStatus) ? visitOpen("move_out", f.checkOut) : null),
  },
  { code: "follow_ups_open", direction: always("move_out"), check: (f) => followUpsOpen("move_out", f.checkOut) },
  {
    code: "keys_held",
    direction: always("move_out"),
    check: (f) =>
      f.tenancyStatus === "ended" && f.held > 0
        ? {
            count: f.held,
            message:
              `The tenancy has ended but ${plural(f.held, "key set is", "key sets are")} still held for ` +
              `it: record ${f.held === 1 ? "its" : "their"} return.`,
          }
        : null,
  },
  {
    code: "meter_readings_missing",
    direction: always("move_out"),
    check: (f) => (leaving(f.tenancyStatus) ? metersMissing("move_out", f, f.moveOut) : null),
  },
  {
    code: "forwarding_missing",
    direction: always("move_out"),
    check: (f) =>
      leaving(f.tenancyStatus) && !f.moveOut?.forwardingAddress?.trim()
        ? {
            count: null,
            message: "No forwarding address is recorded for the outgoing tenants: add it to the move-out handover.",
          }
        : null,
  },
  {
    code: "notice_evidence_missing",
    direction: always("move_out"),
    check: (f) =>
      f.noticeGivenOn !== null && !f.moveOut?.noticeEvidenceDocumentId
        ? {
            count: null,
            message:
              `Notice was given on ${f.noticeGivenOn} but no notice document is attached: attach it to ` +
              `the move-out handover.`,
          }
        : null,
  },
  {
    code: "handover_open",
    direction: always("move_out"),
    check: (f) => (leaving(f.tenancyStatus) ? handoverOpen("move_out", f.moveOut) : null),
  },
];

const directionOrder: Record<Direction, number> = { move_in: 0, move_out: 1 };

/** The outstanding items, move-in first, then in the order of the code enumeration (schema.ts). */
export function outstandingItems(inputs: OutstandingInputs): OutstandingItem[] {
  const items: OutstandingItem[] = [];
  for (const rule of rules) {
    const found = rule.check(inputs);
    if (found)
      items.push({ code: rule.code, direction: rule.direction(inputs), message: found.message, count: found.count });
  }
  return items.sort(
    (a, b) =>
      directionOrder[a.direction] - directionOrder[b.direction] ||
      outstandingCodes.indexOf(a.code) - outstandingCodes.indexOf(b.code),
  );
}
