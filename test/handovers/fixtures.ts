/** Rows for handover and key set tests, written with SQL into one workspace. */
import { ulid } from "ulid";
import { Rows, type Meter } from "../support/rows.ts";

/** Seeds rows of one workspace (the shared ones come from Rows); every method returns the new row's id. */
export class Seed extends Rows {
  /** A handover with its meter readings. */
  async handover(options: {
    tenancyId: string;
    direction: "move_in" | "move_out";
    status?: "open" | "completed";
    dueOn?: string | null;
    completedAt?: string | null;
    readings?: { meter: Meter; reading: string; readOn?: string | null }[];
    forwardingAddress?: string | null;
    noticeEvidenceDocumentId?: string | null;
  }): Promise<string> {
    const id = ulid();
    await this.db`
      insert into handovers (workspace_id, id, tenancy_id, direction, status, due_on, completed_at, forwarding_address, notice_evidence_document_id)
      values (${this.workspaceId}, ${id}, ${options.tenancyId}, ${options.direction}, ${options.status ?? "open"},
              ${options.dueOn ?? null}, ${options.completedAt ?? null}, ${options.forwardingAddress ?? null}, ${options.noticeEvidenceDocumentId ?? null})`;
    for (const r of options.readings ?? []) {
      await this.db`
        insert into handover_meter_readings (workspace_id, handover_id, meter, reading, read_on)
        values (${this.workspaceId}, ${id}, ${r.meter}, ${r.reading}, ${r.readOn ?? null})`;
    }
    return id;
  }

  /** A repair. */
  async repair(status: string | null = "open", reference: string | null = "R-1"): Promise<string> {
    const id = ulid();
    await this
      .db`insert into repairs (workspace_id, id, reference, status) values (${this.workspaceId}, ${id}, ${reference}, ${status})`;
    return id;
  }

  /** A task. */
  async task(
    status: "open" | "in_progress" | "done" | "cancelled" = "open",
    title = "Fix it",
    dueOn: string | null = null,
  ): Promise<string> {
    const id = ulid();
    await this
      .db`insert into tasks (workspace_id, id, title, status, due_on) values (${this.workspaceId}, ${id}, ${title}, ${status}, ${dueOn})`;
    return id;
  }

  /** An inspection with its findings. */
  async inspection(options: {
    tenancyId: string;
    kind: "check_in" | "check_out";
    status?: "due" | "booked" | "completed" | "cancelled";
    reference?: string;
    outcome?: "satisfactory" | "minor_actions" | "unsatisfactory" | null;
    dueOn?: string | null;
    bookedFor?: string | null;
    completedAt?: string | null;
    findings?: { id?: string; area: string; item?: string | null; repairId?: string | null; taskId?: string | null }[];
    id?: string;
  }): Promise<string> {
    const id = options.id ?? ulid();
    await this.db`
      insert into inspections (workspace_id, id, tenancy_id, kind, reference, status, outcome, due_on, booked_for, completed_at)
      values (${this.workspaceId}, ${id}, ${options.tenancyId}, ${options.kind}, ${options.reference ?? `INS-${id.slice(-6)}`},
              ${options.status ?? "completed"}, ${options.outcome ?? null}, ${options.dueOn === undefined ? "2024-01-01" : options.dueOn},
              ${options.bookedFor ?? null}, ${options.completedAt ?? null})`;
    for (const f of options.findings ?? []) {
      await this.db`
        insert into inspection_findings (workspace_id, id, inspection_id, area, item, repair_id, task_id)
        values (${this.workspaceId}, ${f.id ?? ulid()}, ${id}, ${f.area}, ${f.item ?? null}, ${f.repairId ?? null}, ${f.taskId ?? null})`;
    }
    return id;
  }

  /** A key set. */
  async keySet(options: {
    unitId: string | null;
    status?: "in_office" | "checked_out" | "lost";
    reference?: string;
    label?: string;
    sequence?: number;
    holderType?: "office" | "tenant" | "contractor" | "landlord" | "staff" | "other";
    holderContactId?: string | null;
    holderName?: string;
    tenancyId?: string | null;
    id?: string;
  }): Promise<string> {
    const id = options.id ?? ulid();
    await this.db`
      insert into key_sets (workspace_id, id, reference, label, unit_id, status, sequence, holder_type, holder_contact_id, holder_name, tenancy_id)
      values (${this.workspaceId}, ${id}, ${options.reference ?? `K-${id.slice(-6)}`}, ${options.label ?? "Front door"}, ${options.unitId},
              ${options.status ?? "in_office"}, ${options.sequence ?? 0}, ${options.holderType ?? "office"},
              ${options.holderContactId ?? null}, ${options.holderName ?? ""}, ${options.tenancyId ?? null})`;
    return id;
  }

  /** A report that a key set does not work. */
  async keyReport(options: {
    keySetId: string;
    note?: string;
    sourceKind?: "contractor" | "tenant" | "staff" | "inspection" | "repair";
    sourceId?: string | null;
    sourceLabel?: string | null;
    reportedBy?: string;
    reportedAt: string;
    cleared?: { note: string | null; by: string | null; at: string } | null;
    id?: string;
  }): Promise<string> {
    const id = options.id ?? ulid();
    await this.db`
      insert into key_reports (workspace_id, id, key_set_id, note, source_kind, source_id, source_label, reported_by, reported_at,
                               cleared_note, cleared_by, cleared_at)
      values (${this.workspaceId}, ${id}, ${options.keySetId}, ${options.note ?? "Key does not turn"}, ${options.sourceKind ?? "tenant"},
              ${options.sourceId ?? null}, ${options.sourceLabel ?? null}, ${options.reportedBy ?? "Front desk"}, ${options.reportedAt},
              ${options.cleared?.note ?? null}, ${options.cleared?.by ?? null}, ${options.cleared?.at ?? null})`;
    return id;
  }
}
