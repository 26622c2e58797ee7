/**
 * A document's repair records as rows of `repairs`: the API's rules of a repair, checked on the record with its JSON
 * path, the stored shape the API writes (texts trimmed, instants in UTC with milliseconds, milestones and access
 * attempts in order), and the due instants the repairs list reads, computed as the API's writes compute them.
 */
import { RequestInvalid } from "../core/errors.ts";
import type { ClockContext } from "../maintenance_pro/clocks.ts";
import { MilestoneOutOfOrder, MilestoneRecorded, RepairRejected } from "../maintenance_pro/errors.ts";
import {
  checkAt,
  checkHazardPair,
  checkMilestone,
  checkMilestoneFields,
  inOrder,
  instantText,
  isRepairStatus,
  storedDues,
  type ClockFields,
} from "../maintenance_pro/repair_rules.ts";
import type { RepairAccessAttempt, RepairMilestone } from "../maintenance_pro/repair_schema.ts";
import { knownPolicyVersions } from "../maintenance_pro/clocks.ts";
import { ImportRejected } from "./errors.ts";
import type { WorkspaceDoc } from "./schema.ts";
import type { Row } from "./tables.ts";

/** A repair record of a document. */
export type RepairRecord = NonNullable<WorkspaceDoc["repairs"]>[number];

function refuse(path: string, message: string): never {
  throw new ImportRejected({ path, message });
}

const trimmed = (text: string | null | undefined) => (text == null ? null : text.trim());
const instant = (text: string | null | undefined) => (text == null ? null : instantText(text));

/**
 * Runs one of the API's checks of a repair and refuses as the import does: the API's refusal said at the JSON path
 * of the record's offending field. `path` is the record (or the milestone, or the access attempt) checked.
 */
function asImportRule(path: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof RequestInvalid) {
      const [issue] = error.fields.issues;
      refuse(`${path}${issue!.path.replace(/^\/body/, "")}`, issue!.message);
    }
    if (error instanceof MilestoneRecorded)
      refuse(`${path}/kind`, `${error.fields.kind} is listed twice: a repair records each milestone kind once`);
    if (error instanceof MilestoneOutOfOrder)
      refuse(
        `${path}/kind`,
        error.fields.requires === "investigated"
          ? `${error.fields.kind} needs an earlier investigated milestone`
          : `${error.fields.kind} needs an investigation that found hazard_confirmed`,
      );
    if (error instanceof RepairRejected)
      refuse(
        `${path}/${error.fields.field}`,
        error.fields.reason === "before_investigation"
          ? "Before the investigation's at"
          : error.fields.reason === "before_aware"
            ? "Before the repair's awareAt"
            : error.fields.reason,
      );
    throw error;
  }
}

/** What a triaged repair's status says about its milestones, and the refusal when they disagree. */
function checkStatus(r: RepairRecord, path: string, milestones: readonly RepairMilestone[]): void {
  const status = r.status ?? null;
  const completed = milestones.some((m) => m.kind === "completed");
  if (milestones.length && !isRepairStatus(status))
    refuse(`${path}/milestones`, `A legacy record (status ${JSON.stringify(status)}) has no milestones`);
  if (milestones.length && r.hazard == null)
    refuse(`${path}/milestones`, "Milestones need a triaged repair: one with a hazard");
  for (const field of ["cancelledAt", "cancelReason"] as const)
    if (r[field] != null && status !== "cancelled") refuse(`${path}/${field}`, `Only a cancelled repair has ${field}`);
  if (r.hazard == null) return;
  if (status === "reported") refuse(`${path}/hazard`, "A reported repair is not triaged yet: it has no hazard");
  if (status === "triaged" && milestones.length)
    refuse(`${path}/status`, "A repair with milestones is in_progress, completed or cancelled, not triaged");
  if (status === "in_progress" && (!milestones.length || completed))
    refuse(`${path}/status`, "An in_progress repair has milestones, none of them completed");
  if (status === "completed" && !completed) refuse(`${path}/status`, "A completed repair has a completed milestone");
  if (status === "cancelled") {
    if (completed) refuse(`${path}/status`, "A repair with a completed milestone is completed, not cancelled");
    for (const field of ["cancelledAt", "cancelReason"] as const)
      if (r[field] == null) refuse(`${path}/${field}`, `A cancelled repair with a hazard needs its ${field}`);
  }
}

/**
 * A repair record as its row, after the rules that need nothing but the document (ImportRejected at the offending
 * path). Its due instants are left null: withStoredDues computes them where the working calendar is read.
 */
export function repairRow(r: RepairRecord, path: string): Row<"repairs"> {
  if (r.tenancyId != null && r.unitId == null)
    refuse(`${path}/unitId`, "A repair with a tenancyId names its unitId: the tenancy's unit");
  asImportRule(path, () => checkHazardPair(r.hazard ?? undefined, r.hhsrsHazard ?? undefined));
  if (r.hazard != null)
    for (const field of ["awareAt", "regime", "policyVersion", "triagedAt"] as const)
      if (r[field] == null) refuse(`${path}/${field}`, `A triaged repair (hazard ${r.hazard}) needs its ${field}`);
  if (r.policyVersion != null && !knownPolicyVersions.includes(r.policyVersion))
    refuse(
      `${path}/policyVersion`,
      `No hazard clock rule set is named ${JSON.stringify(r.policyVersion)}: ` +
        `the service knows ${knownPolicyVersions.join(", ")}`,
    );
  const awareAt = instant(r.awareAt);

  // Checked in the order the API would have recorded them, each against those before it. A document is history:
  // its instants are not compared with the time of the import (`now` is each milestone's own `at`).
  const listed = (r.milestones ?? []).map((m, j) => {
    const milestone: RepairMilestone = {
      kind: m.kind,
      at: instantText(m.at),
      outcome: m.outcome ?? null,
      method: m.method ?? null,
      note: trimmed(m.note),
      recordedAt: instantText(m.recordedAt ?? m.at),
      recordedByUserId: m.recordedByUserId,
    };
    return { at: milestone.at, recordedAt: milestone.recordedAt, milestone, path: `${path}/milestones/${j}` };
  });
  const milestones: RepairMilestone[] = [];
  for (const { milestone: m, path: at } of inOrder(listed)) {
    asImportRule(at, () =>
      checkMilestoneFields({ kind: m.kind, outcome: m.outcome ?? undefined, method: m.method ?? undefined }),
    );
    asImportRule(at, () => checkMilestone({ id: r.id, awareAt, milestones }, m.kind, m.at, m.at));
    milestones.push(m);
  }
  checkStatus(r, path, milestones);

  const accessAttempts: RepairAccessAttempt[] = (r.accessAttempts ?? []).map((a, j) => {
    const attempt = {
      id: a.id,
      at: instantText(a.at),
      outcome: a.outcome,
      note: trimmed(a.note),
      recordedAt: instantText(a.recordedAt ?? a.at),
    };
    asImportRule(`${path}/accessAttempts/${j}`, () =>
      checkAt(attempt.at, isRepairStatus(r.status ?? null) ? awareAt : null, attempt.at),
    );
    return attempt;
  });

  return {
    id: r.id,
    reference: r.reference ?? null,
    status: r.status ?? null,
    property_id: r.propertyId ?? null,
    unit_id: r.unitId ?? null,
    tenancy_id: r.tenancyId ?? null,
    title: trimmed(r.title),
    description: trimmed(r.description),
    location: trimmed(r.location),
    category: r.category ?? null,
    reporter_kind: r.reporter?.kind ?? null,
    reporter_contact_id: r.reporter?.contactId ?? null,
    reporter_name: trimmed(r.reporter?.name),
    channel: r.channel ?? null,
    aware_at: awareAt,
    hazard: r.hazard ?? null,
    hhsrs_hazard: r.hhsrsHazard ?? null,
    regime: r.regime ?? null,
    policy_version: r.policyVersion ?? null,
    triaged_at: instant(r.triagedAt),
    triaged_by_user_id: r.triagedByUserId ?? null,
    triage_note: trimmed(r.triageNote),
    milestones,
    access_attempts: inOrder(accessAttempts),
    cancel_reason: trimmed(r.cancelReason),
    cancelled_at: instant(r.cancelledAt),
    open_due_at: null,
    open_due_last_at: null,
    created_at: r.createdAt ?? null,
  };
}

/** The fields of a planned row the clocks are computed from (their values passed the document's schema). */
function clockFieldsOf(row: Row<"repairs">): ClockFields {
  return {
    status: row.status,
    awareAt: row.aware_at,
    hazard: row.hazard as ClockFields["hazard"],
    hhsrsHazard: row.hhsrs_hazard as ClockFields["hhsrsHazard"],
    regime: row.regime as ClockFields["regime"],
    policyVersion: row.policy_version,
    milestones: row.milestones as ClockFields["milestones"],
    cancelledAt: row.cancelled_at,
  };
}

/** Planned repair rows with the due instants the API's writes store (`open_due_at`, `open_due_last_at`). */
export function withStoredDues(rows: readonly Row<"repairs">[], context: ClockContext): Row<"repairs">[] {
  return rows.map((row) => {
    const dues = storedDues(clockFieldsOf(row), context);
    return { ...row, open_due_at: dues.first, open_due_last_at: dues.last };
  });
}
