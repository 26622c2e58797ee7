/// <reference types="temporal-spec/global" />
/** The rules of repair writes that need no database: body pairs, instants sent, milestone order, the answer. */
import { RequestInvalid } from "../core/errors.ts";
import { openDues, repairClocks, type ClockContext, type ClockFacts } from "./clocks.ts";
import { MilestoneOutOfOrder, MilestoneRecorded, RepairRejected } from "./errors.ts";
import type { RepairRow } from "./queries.ts";
import {
  repairStatuses,
  type MilestoneKind,
  type Repair,
  type RepairAccessAttempt,
  type RepairMilestone,
  type RepairStatus,
} from "./repair_schema.ts";

/** How far ahead of now a sent instant may be (clocks of client and server differ). */
export const futureToleranceMs = 60_000;

/** An instant sent in any RFC 3339 form, as answers give it: UTC with milliseconds. */
export function instantText(value: string): string {
  return Temporal.Instant.from(value).toString({ fractionalSecondDigits: 3 });
}

const ms = (value: string) => Temporal.Instant.from(value).epochMilliseconds;

/** Refuses with RequestInvalid at `path`. */
function invalid(path: string, message: string): never {
  throw new RequestInvalid({ message: "The body does not match its schema.", issues: [{ path, message }] });
}

/**
 * A hazard and its HHSRS hazard as a body sends them: `hhsrsHazard` is required unless the hazard is `none`, refused
 * with `none`, and refused without a hazard (RequestInvalid, as the schema's own refusals).
 */
export function checkHazardPair(hazard: string | undefined, hhsrsHazard: string | undefined): void {
  if (hazard === undefined && hhsrsHazard !== undefined)
    invalid("/body/hhsrsHazard", "hhsrsHazard is sent with hazard only");
  if (hazard === "none" && hhsrsHazard !== undefined)
    invalid("/body/hhsrsHazard", "A hazard of none has no hhsrsHazard");
  if ((hazard === "significant" || hazard === "emergency") && hhsrsHazard === undefined)
    invalid("/body/hhsrsHazard", `A ${hazard} hazard needs its hhsrsHazard`);
}

/** A milestone's `outcome` and `method`: each required for its kind and refused on the others (RequestInvalid). */
export function checkMilestoneFields(body: {
  kind: MilestoneKind;
  outcome?: string;
  method?: string;
  note?: string;
}): void {
  if (body.kind === "investigated" && body.outcome === undefined)
    invalid("/body/outcome", "investigated needs an outcome: hazard_confirmed or no_hazard");
  if (body.kind !== "investigated" && body.outcome !== undefined)
    invalid("/body/outcome", "Only investigated takes an outcome");
  if (body.kind === "summary_sent" && body.method === undefined) invalid("/body/method", "summary_sent needs a method");
  // The note of a summary sent through the portal is the written summary the tenant reads there.
  if (body.kind === "summary_sent" && body.method === "portal" && !body.note?.trim())
    invalid("/body/note", "summary_sent through the portal needs the summary as its note");
  if (body.kind !== "summary_sent" && body.method !== undefined)
    invalid("/body/method", "Only summary_sent takes a method");
}

/** An instant sent for a milestone or an access attempt: not ahead of now by more than a minute, not before awareAt. */
export function checkAt(at: string, awareAt: string | null, now: string): void {
  if (ms(at) > ms(now) + futureToleranceMs) throw new RepairRejected({ reason: "at_in_future", field: "at" });
  if (awareAt !== null && ms(at) < ms(awareAt)) throw new RepairRejected({ reason: "before_aware", field: "at" });
}

/** The kinds that need `investigated` first, and whether they need it to have confirmed the hazard. */
const needsInvestigation: Partial<Record<MilestoneKind, "investigated" | "hazard_confirmed">> = {
  summary_sent: "investigated",
  safety_work_started: "hazard_confirmed",
  preventative_work_started: "hazard_confirmed",
};

/**
 * Checks a new milestone against those recorded, in order: the kind not recorded yet (MilestoneRecorded), its
 * preconditions (MilestoneOutOfOrder), then its `at` (RepairRejected: at_in_future, before_aware,
 * before_investigation).
 */
export function checkMilestone(
  repair: { id: string; awareAt: string | null; milestones: readonly RepairMilestone[] },
  kind: MilestoneKind,
  at: string,
  now: string,
): void {
  if (repair.milestones.some((m) => m.kind === kind)) throw new MilestoneRecorded({ repairId: repair.id, kind });
  const needs = needsInvestigation[kind];
  const investigated = repair.milestones.find((m) => m.kind === "investigated");
  if (needs && !investigated) throw new MilestoneOutOfOrder({ repairId: repair.id, kind, requires: "investigated" });
  if (needs === "hazard_confirmed" && investigated?.outcome !== "hazard_confirmed")
    throw new MilestoneOutOfOrder({ repairId: repair.id, kind, requires: "hazard_confirmed" });
  checkAt(at, repair.awareAt, now);
  if (needs && investigated && ms(at) < ms(investigated.at))
    throw new RepairRejected({ reason: "before_investigation", field: "at" });
}

/** Entries in the order a repair lists them: by `at`, then `recordedAt`. */
export function inOrder<T extends { at: string; recordedAt: string }>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => ms(a.at) - ms(b.at) || ms(a.recordedAt) - ms(b.recordedAt));
}

/** Whether a status is one of the five of repairs reported here (any other is an imported legacy record's). */
export function isRepairStatus(status: string | null): status is RepairStatus {
  return (repairStatuses as readonly (string | null)[]).includes(status);
}

/** The fields of a repair its clocks are computed from. */
export type ClockFields = Pick<
  RepairRow,
  "status" | "awareAt" | "hazard" | "hhsrsHazard" | "regime" | "policyVersion" | "milestones" | "cancelledAt"
>;

/** The facts of a repair the clocks read. */
export function clockFacts(repair: ClockFields): ClockFacts {
  const legacy = !isRepairStatus(repair.status);
  return {
    awareAt: legacy ? null : repair.awareAt,
    hazard: repair.hazard,
    hhsrsHazard: repair.hhsrsHazard,
    regime: repair.regime,
    policyVersion: repair.policyVersion,
    milestones: repair.milestones,
    cancelledAt: repair.cancelledAt,
  };
}

/**
 * The due instants every writer stores with a repair (`open_due_at`, `open_due_last_at`: the list's order and
 * filters): the earliest and latest among the open clocks it will have once written. The API's writes and the
 * workspace import both store these, so a repair's row is the same whichever wrote it. Which clocks are open depends
 * on neither `now` nor the basis, only on the repair and the working calendar.
 */
export function storedDues(repair: ClockFields, context: ClockContext): { first: string | null; last: string | null } {
  return openDues(repairClocks(clockFacts(repair), context));
}

/** A repair as answered: its stored fields in the resource's order, and its clocks computed now. */
export function repairAnswer(row: RepairRow, context: ClockContext): Repair {
  const milestones = row.milestones.map((m) => ({
    kind: m.kind,
    at: m.at,
    outcome: m.outcome,
    method: m.method,
    note: m.note,
    recordedAt: m.recordedAt,
    recordedByUserId: m.recordedByUserId,
  }));
  const accessAttempts: RepairAccessAttempt[] = row.accessAttempts.map((a) => ({
    id: a.id,
    at: a.at,
    outcome: a.outcome,
    note: a.note,
    recordedAt: a.recordedAt,
  }));
  return {
    id: row.id,
    reference: row.reference,
    propertyId: row.propertyId,
    unitId: row.unitId,
    tenancyId: row.tenancyId,
    title: row.title,
    description: row.description,
    location: row.location,
    category: row.category,
    reporter: row.reporter,
    channel: row.channel,
    awareAt: row.awareAt,
    status: row.status,
    hazard: row.hazard,
    hhsrsHazard: row.hhsrsHazard,
    regime: row.regime,
    policyVersion: row.policyVersion,
    triagedAt: row.triagedAt,
    triagedByUserId: row.triagedByUserId,
    milestones,
    triageNote: row.triageNote,
    accessAttempts,
    photos: row.photos,
    clocks: repairClocks(clockFacts(row), context),
    cancelReason: row.cancelReason,
    cancelledAt: row.cancelledAt,
    revision: row.revision,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
