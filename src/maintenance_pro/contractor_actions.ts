/**
 * What the contractor does through the link of a works order: accept, decline, agree an appointment, record a visit,
 * report that the order's key set does not work.
 * Each write moves the order along its statuses (orderShape in works_order_operations.ts) under the order's row lock,
 * writes on the repair what the agency would have written (a milestone or an access attempt, through the repair
 * writes' own functions), and records activity entries and events naming the contractor, in one transaction.
 */
import { monotonicFactory, ulid } from "ulid";
import { recordActivity } from "../core/activity.ts";
import type { Db, Tx } from "../core/db.ts";
import type { AppContext } from "../core/operation.ts";
import type { EventType } from "../events/event_type.ts";
import { type Actor, recordEvent } from "../events/record.ts";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import type { ClockContext } from "./clocks.ts";
import {
  type ContractorView,
  closeRepairVisit,
  insertRepairKeyReport,
  scheduleRepairVisit,
} from "./contractor_queries.ts";
import { insertPhotos, touchRepair } from "./photo_queries.ts";
import type { Photo } from "./photos.ts";
import {
  repairAccessAttemptRecorded,
  repairMilestoneRecorded,
  worksOrderAccepted,
  worksOrderCompleted,
  worksOrderDeclined,
  worksOrderNoAccess,
  worksOrderScheduled,
} from "./events.ts";
import { addAccessAttempt, addMilestone, type LockedRepair, lockedRepair } from "./repair_operations.ts";
import { checkMilestone, isRepairStatus } from "./repair_rules.ts";
import type { MilestoneKind, Repair, RepairMilestone } from "./repair_schema.ts";
import { worksOrderAnswer } from "./works_order_operations.ts";
import { lockWorksOrder, updateWorksOrder } from "./works_order_queries.ts";
import type { WorksOrder, WorksOrderPurpose, WorksOrderStatus } from "./works_order_schema.ts";

/** An investigation's finding, as the contractor gives it. */
export type Finding = "hazard_confirmed" | "no_hazard";

/** What the contractor asks for. */
/** Ids that grow within a process: a visit's photos, stored at one instant, keep the order they were sent in. */
const photoId = monotonicFactory();

/** The most photos a visit may carry. */
export const visitPhotosMax = 3;

export type ContractorAction =
  | { kind: "accept" }
  | { kind: "decline"; reason: string }
  | { kind: "schedule"; startsAt: string; endsAt: string }
  | { kind: "attended"; note: string | null; finding: Finding | null }
  | { kind: "no_access"; note: string; refused: boolean }
  | { kind: "completed"; note: string | null; finding: Finding | null };

/** The statuses each action starts from, and the status it leaves. */
export const contractorTransitions: Record<
  ContractorAction["kind"],
  { from: readonly WorksOrderStatus[]; to: WorksOrderStatus }
> = {
  accept: { from: ["raised"], to: "accepted" },
  decline: { from: ["raised"], to: "declined" },
  schedule: { from: ["accepted", "scheduled", "no_access"], to: "scheduled" },
  attended: { from: ["scheduled"], to: "attended" },
  no_access: { from: ["scheduled"], to: "no_access" },
  completed: { from: ["scheduled", "attended"], to: "completed" },
};

/** The final statuses: the link stops writing. */
export const closedStatuses: readonly WorksOrderStatus[] = ["completed", "declined", "cancelled"];

/** The milestone each purpose records on the repair, by the visit that records it. */
export const purposeMilestones: Record<WorksOrderPurpose, Partial<Record<ContractorAction["kind"], MilestoneKind>>> = {
  investigation: { attended: "investigated", completed: "investigated" },
  make_safe: { completed: "made_safe" },
  safety_work: { attended: "safety_work_started" },
  preventative_work: {},
  repair: { completed: "completed" },
};

/** The events of the actions (`attended` records none). */
const actionEvents: Partial<Record<ContractorAction["kind"], EventType<typeof WorksOrder>>> = {
  accept: worksOrderAccepted,
  decline: worksOrderDeclined,
  schedule: worksOrderScheduled,
  no_access: worksOrderNoAccess,
  completed: worksOrderCompleted,
};

/** How a contractor's write ended. */
export type ContractorOutcome =
  | { kind: "done"; order: WorksOrder; repairWrite: string | null }
  /** The order was completed, declined or cancelled first. */
  | { kind: "closed"; order: WorksOrder }
  /** The order changed since the page was read (its revision moved). */
  | { kind: "stale"; order: WorksOrder }
  /** The action does not apply to the order's status. */
  | { kind: "not_now"; order: WorksOrder };

/** The actor of a contractor's writes. */
export function contractorActor(contactId: string): Actor {
  return { kind: "contractor", id: contactId };
}

/** Why the repair would refuse the milestone, or null when it takes it. */
function milestoneRefusal(repair: LockedRepair, kind: MilestoneKind, at: string): string | null {
  if (repair.status === "completed" || repair.status === "cancelled") return "RepairClosed";
  if (repair.status === "reported" || !isRepairStatus(repair.status)) return "RepairNotTriaged";
  try {
    checkMilestone(repair, kind, at, at);
    return null;
  } catch (error) {
    return (error as { tag?: string }).tag ?? "RepairRejected";
  }
}

/**
 * Does `action` for the contractor of `view`'s order, if its revision is still `expectedRevision` and its status
 * allows it; the repair gets its milestone or access attempt in the same transaction.
 */
export async function actAsContractor(
  app: Pick<AppContext, "config">,
  db: Db,
  view: ContractorView,
  action: ContractorAction,
  expectedRevision: number,
  requestId: string,
  photos: readonly Photo[] = [],
): Promise<ContractorOutcome> {
  const now = new Date().toISOString();
  const context: ClockContext = {
    calendar: await currentWorkingCalendar(db),
    prsInForceFrom: app.config.prsInForceFrom,
    now,
  };
  const { workspaceId } = view;
  const contactId = view.order.contractorContactId;
  const actor = contractorActor(contactId);
  return db.begin(async (tx): Promise<ContractorOutcome> => {
    const row = await lockWorksOrder(tx, workspaceId, view.order.id);
    if (!row) throw new Error(`works order ${view.order.id} vanished`); // orders are never deleted
    const current = worksOrderAnswer(row);
    if (closedStatuses.includes(row.status)) return { kind: "closed", order: current };
    if (row.revision !== expectedRevision) return { kind: "stale", order: current };
    const transition = contractorTransitions[action.kind];
    if (!transition.from.includes(row.status)) return { kind: "not_now", order: current };
    const updated = await updateWorksOrder(tx, workspaceId, row.id, row.revision, {
      status: transition.to,
      declineReason: action.kind === "decline" ? action.reason : undefined,
      appointment: action.kind === "schedule" ? { startsAt: action.startsAt, endsAt: action.endsAt } : undefined,
      now,
    });
    // The row is locked: its revision cannot have moved since it was read.
    if (!updated) return { kind: "stale", order: current };
    const order = worksOrderAnswer(updated);
    await writeOnAgenda(tx, view, order, action);
    // The visit's photos first, so that the repair's write (and its event) lists them.
    const stored = await insertPhotos(
      tx,
      { workspaceId, repairId: order.repairId, worksOrderId: order.id, source: "contractor" },
      photos.map((photo) => ({ ...photo, id: photoId() })),
    );
    const repairWrite = await writeOnRepair(tx, view, order, action, context, requestId);
    // Photos that came with no write of the repair (a visit its order's purpose records nothing for, or a milestone
    // the repair refused) still changed it: they are its write.
    const written = repairWrite !== null && !repairWrite.startsWith("skipped");
    if (stored.length && !written) await touchRepair(tx, workspaceId, order.repairId);
    await recordContractorActivity(tx, view, order, `works_order_${transition.to}`, {
      from: row.status,
      ...(action.kind === "decline" ? { reason: action.reason } : {}),
      ...(action.kind === "schedule" ? { appointment: order.appointment } : {}),
      ...("note" in action && action.note ? { note: action.note } : {}),
      ...(stored.length ? { photoIds: stored.map((p) => p.id) } : {}),
      repairWrite,
    });
    const event = actionEvents[action.kind];
    if (event) await recordEvent(tx, event, { workspaceId, subjectId: order.id, data: order, requestId, actor });
    return { kind: "done", order, repairWrite };
  });
}

/**
 * Keeps the order's visit on the agenda: an appointment is a `repair_visit` event (moved when agreed again before
 * the visit); the visit recorded closes it (attended, or no_show for no access).
 */
async function writeOnAgenda(tx: Tx, view: ContractorView, order: WorksOrder, action: ContractorAction) {
  if (action.kind === "schedule") {
    await scheduleRepairVisit(tx, {
      workspaceId: view.workspaceId,
      id: ulid(),
      worksOrderId: order.id,
      title: `Repair visit ${order.reference}: ${view.contractorName}`,
      startsAt: action.startsAt,
      endsAt: action.endsAt,
      location: view.address || null,
      propertyId: view.propertyId,
      contactId: order.contractorContactId,
    });
  } else if (action.kind === "attended" || action.kind === "completed" || action.kind === "no_access") {
    const outcome = action.kind === "no_access" ? "no_show" : "attended";
    await closeRepairVisit(tx, view.workspaceId, order.id, { status: "completed", outcome, note: action.note });
  }
}

/**
 * Writes on the order's repair what the agency would have: the purpose's milestone for this visit, or an access
 * attempt for no access. Returns what was written (`investigated`, `access_attempt`…), `skipped: <why>` when the
 * repair would refuse the milestone, or null when the action writes nothing there.
 */
async function writeOnRepair(
  tx: Tx,
  view: ContractorView,
  order: WorksOrder,
  action: ContractorAction,
  context: ClockContext,
  requestId: string,
): Promise<string | null> {
  const kind = purposeMilestones[order.purpose][action.kind];
  if (!kind && action.kind !== "no_access") return null;
  const now = context.now as string;
  const repairRow = await lockedRepair(tx, view.workspaceId, order.repairId);
  const by = `${view.contractorName} (contractor, works order ${order.reference})`;
  const note = "note" in action && action.note ? action.note : null;
  let repair: Repair;
  let written: string;
  let detail: Record<string, unknown>;
  if (action.kind === "no_access") {
    if (repairRow.status === "completed" || repairRow.status === "cancelled") return "skipped: RepairClosed";
    const attempt = {
      id: ulid(),
      at: now,
      outcome: action.refused ? ("refused" as const) : ("no_answer" as const),
      note: `${by}: ${action.note}`,
      recordedAt: now,
    };
    repair = await addAccessAttempt(tx, repairRow, attempt, context);
    written = "access_attempt";
    detail = { attemptId: attempt.id, at: attempt.at, outcome: attempt.outcome };
  } else {
    const refusal = milestoneRefusal(repairRow, kind!, now);
    if (refusal) return `skipped: ${refusal}`;
    const finding = "finding" in action ? action.finding : null;
    const milestone: RepairMilestone = {
      kind: kind!,
      at: now,
      outcome: kind === "investigated" ? (finding ?? "hazard_confirmed") : null,
      method: null,
      note: note ? `${by}: ${note}` : `${by}.`,
      recordedAt: now,
      recordedByUserId: view.contact.userId ?? order.contractorContactId,
    };
    repair = await addMilestone(tx, repairRow, milestone, context);
    written = kind!;
    detail = { kind: milestone.kind, at: milestone.at, outcome: milestone.outcome, method: null };
  }
  const actor = contractorActor(order.contractorContactId);
  await recordActivity(tx, {
    workspaceId: view.workspaceId,
    keyId: null,
    action:
      action.kind === "no_access"
        ? "maintenance-pro.repair_access_attempt_recorded"
        : "maintenance-pro.repair_milestone_recorded",
    subjectKind: "repair",
    subjectId: repair.id,
    detail: {
      reference: repair.reference,
      revision: repair.revision,
      ...detail,
      actor: { kind: "contractor", contactId: order.contractorContactId },
      worksOrderId: order.id,
    },
  });
  const event = action.kind === "no_access" ? repairAccessAttemptRecorded : repairMilestoneRecorded;
  await recordEvent(tx, event, { workspaceId: view.workspaceId, subjectId: repair.id, data: repair, requestId, actor });
  return written;
}

/** How a contractor's report that the key does not work ended. */
export type KeyReportOutcome =
  | { kind: "done"; reportId: string }
  /** The same report (same note) was made from this repair before and is not cleared: nothing new is stored. */
  | { kind: "repeated" }
  /** The order was completed, declined or cancelled first. */
  | { kind: "closed"; order: WorksOrder }
  /** The order names no key set. */
  | { kind: "no_key_set"; order: WorksOrder };

/**
 * Reports for the contractor of `view`'s order that its key set does not work: a key report of source kind `repair`
 * (the repair's id and reference, by the contractor's name) and its activity entry naming the contractor, in one
 * transaction under the order's row lock. Taken in every open status, whatever the order's revision (the report
 * does not change the order).
 */
export async function reportKeyAsContractor(db: Db, view: ContractorView, note: string): Promise<KeyReportOutcome> {
  const { workspaceId } = view;
  return db.begin(async (tx): Promise<KeyReportOutcome> => {
    const row = await lockWorksOrder(tx, workspaceId, view.order.id);
    if (!row) throw new Error(`works order ${view.order.id} vanished`); // orders are never deleted
    const order = worksOrderAnswer(row);
    if (closedStatuses.includes(row.status)) return { kind: "closed", order };
    if (row.keySetId === null) return { kind: "no_key_set", order };
    const reportId = await insertRepairKeyReport(tx, {
      workspaceId,
      id: ulid(),
      keySetId: row.keySetId,
      note,
      repairId: row.repairId,
      repairReference: view.repairReference,
      reportedBy: view.contractorName,
    });
    if (!reportId) return { kind: "repeated" };
    await recordContractorActivity(tx, view, order, "works_order_key_set_reported", {
      keySetId: row.keySetId,
      keyReportId: reportId,
      note,
    });
    return { kind: "done", reportId };
  });
}

/** The activity entry of what the contractor of `view`'s order did (`maintenance-pro.<action>`), with `detail`. */
async function recordContractorActivity(
  tx: Tx,
  view: ContractorView,
  order: WorksOrder,
  action: string,
  detail: Record<string, unknown>,
): Promise<void> {
  await recordActivity(tx, {
    workspaceId: view.workspaceId,
    keyId: null,
    action: `maintenance-pro.${action}`,
    subjectKind: "works_order",
    subjectId: order.id,
    detail: {
      reference: order.reference,
      revision: order.revision,
      actor: { kind: "contractor", contactId: view.order.contractorContactId },
      ...detail,
    },
  });
}
