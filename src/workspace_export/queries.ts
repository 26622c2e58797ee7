/**
 * The export's SQL: one statement a collection of the workspace document, each answering its records as a JSON array
 * already in the document's shape (the import's field names, in its schema's order), ordered by id. Dates are
 * `YYYY-MM-DD`; instants RFC 3339 UTC with microseconds, what Postgres keeps, so importing an export into the
 * workspace it came from changes nothing. Computed columns (repairs' open dues, invoice totals and status, contacts'
 * match keys, revisions, updated_at) are never read.
 */
import { factNames } from "../compliance/facts.ts";
import type { Db, Tx } from "../core/db.ts";
import type { WorkspaceDoc } from "../workspace_import/schema.ts";

type Sql = Db | Tx;

/** A list of the workspace document. */
export type ListName = {
  [K in keyof WorkspaceDoc]-?: NonNullable<WorkspaceDoc[K]> extends unknown[] ? K : never;
}[keyof WorkspaceDoc];
/** The records of a list, as the document holds them. */
export type Records<L extends ListName> = NonNullable<WorkspaceDoc[L]>;

/** An instant column as RFC 3339 UTC text with microseconds (null stays null). */
const at = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
/** A date column as YYYY-MM-DD. */
const on = (column: string) => `ymd(${column})`;
/** A block facts column as an object of the recorded facts, in the five facts' order ({} for none). */
const facts = (column: string) =>
  `json_strip_nulls(json_build_object(${factNames.map((f) => `'${f}', ${column} -> '${f}'`).join(", ")}))`;
/** The JSON array of `object` over `from`'s rows in `order` ([] for none). */
const list = (object: string, from: string, order: string) =>
  `(select coalesce(json_agg(${object} order by ${order}), '[]') from ${from})`;

/** Runs one collection's statement (its only parameter, $1, the workspace) and returns its records. */
async function records<T>(sql: Sql, workspaceId: string, text: string): Promise<T> {
  const [row] = await sql.unsafe<{ records: T }[]>(`select ${text} as records`, [workspaceId]);
  return row!.records;
}

/** The workspace's users. */
export const users = (sql: Sql, workspaceId: string) =>
  records<Records<"users">>(
    sql,
    workspaceId,
    list(
      `json_build_object('id', id, 'name', name, 'email', email, 'role', role, 'createdAt', ${at("created_at")})`,
      "users where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The modules the workspace is entitled to. */
export const entitlements = (sql: Sql, workspaceId: string) =>
  records<Records<"entitlements">>(
    sql,
    workspaceId,
    list("module_id", "workspace_modules where workspace_id = $1", `module_id collate "C"`),
  );

/** The hazard settings: a workspace with no row has the default regime, private. */
export const hazardSettings = (sql: Sql, workspaceId: string) =>
  records<NonNullable<WorkspaceDoc["hazardSettings"]>>(
    sql,
    workspaceId,
    `json_build_object('regime',
       coalesce((select regime from hazard_settings where workspace_id = $1), 'private'))`,
  );

/** The workspace's contacts, people and companies. */
export const contacts = (sql: Sql, workspaceId: string) =>
  records<Records<"contacts">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'kind', kind, 'name', name, 'email', email, 'mobile', mobile,
        'addressLine1', address_line1, 'addressLine2', address_line2, 'addressTown', address_town,
        'addressPostcode', address_postcode, 'overseas', overseas, 'roles', to_json(roles),
        'registrationNumber', registration_number, 'registrationJurisdiction', registration_jurisdiction,
        'website', website, 'notes', notes, 'legacyContactId', legacy_contact_id,
        'archivedAt', ${at("archived_at")}, 'createdAt', ${at("created_at")})`,
      "contacts where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The people of the workspace's companies. */
export const companyPeople = (sql: Sql, workspaceId: string) =>
  records<Records<"companyPeople">>(
    sql,
    workspaceId,
    list(
      `json_build_object('companyId', company_id, 'contactId', contact_id, 'role', role,
        'archivedAt', ${at("archived_at")})`,
      "company_people where workspace_id = $1",
      `company_id collate "C", contact_id collate "C"`,
    ),
  );

/** The workspace's properties, each with its landlords. */
export const properties = (sql: Sql, workspaceId: string) =>
  records<Records<"properties">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', p.id, 'label', p.label, 'addressLine1', p.address_line1, 'addressTown', p.address_town,
        'addressPostcode', p.address_postcode,
        'landlordContactIds', ${list(
          "l.contact_id",
          "property_landlords l where l.workspace_id = p.workspace_id and l.property_id = p.id",
          `l.contact_id collate "C"`,
        )},
        'facts', ${facts("p.facts")}, 'createdAt', ${at("p.created_at")})`,
      "properties p where p.workspace_id = $1",
      `p.id collate "C"`,
    ),
  );

/** The workspace's blocks, each with its fact history (oldest first). */
export const blocks = (sql: Sql, workspaceId: string) =>
  records<Records<"blocks">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', b.id, 'propertyId', b.property_id, 'label', b.label, 'facts', ${facts("b.facts")},
        'history', ${list(
          `json_build_object('id', h.id, 'kind', h.kind, 'detail', h.detail, 'actorUserId', h.actor_user_id,
             'policyVersion', h.policy_version, 'createdAt', ${at("h.created_at")})`,
          "block_fact_history h where h.workspace_id = b.workspace_id and h.block_id = b.id",
          `h.created_at, h.id collate "C"`,
        )},
        'policyVersion', b.policy_version, 'updatedAt', ${at("b.updated_at")},
        'updatedByUserId', b.updated_by_user_id)`,
      "blocks b where b.workspace_id = $1",
      `b.id collate "C"`,
    ),
  );

/** The workspace's units, each with its meters. */
export const units = (sql: Sql, workspaceId: string) =>
  records<Records<"units">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', u.id, 'propertyId', u.property_id, 'blockId', u.block_id, 'label', u.label,
        'meters', ${list(
          "m.meter",
          "unit_meters m where m.workspace_id = u.workspace_id and m.unit_id = u.id",
          "m.meter",
        )})`,
      "units u where u.workspace_id = $1",
      `u.id collate "C"`,
    ),
  );

/** The workspace's tenancies, each with its occupants. */
export const tenancies = (sql: Sql, workspaceId: string) =>
  records<Records<"tenancies">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', t.id, 'unitId', t.unit_id, 'status', t.status, 'startsOn', ${on("t.starts_on")},
        'endsOn', ${on("t.ends_on")}, 'noticeGivenOn', ${on("t.notice_given_on")},
        'occupants', ${list(
          "json_build_object('contactId', o.contact_id, 'role', o.role, 'isLead', o.is_lead)",
          "tenancy_occupants o where o.workspace_id = t.workspace_id and o.tenancy_id = t.id",
          `o.contact_id collate "C"`,
        )})`,
      "tenancies t where t.workspace_id = $1",
      `t.id collate "C"`,
    ),
  );

/** The workspace's handovers, each with its meter readings. */
export const handovers = (sql: Sql, workspaceId: string) =>
  records<Records<"handovers">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', h.id, 'tenancyId', h.tenancy_id, 'direction', h.direction, 'status', h.status,
        'dueOn', ${on("h.due_on")}, 'completedAt', ${at("h.completed_at")},
        'meterReadings', ${list(
          `json_build_object('meter', r.meter, 'reading', r.reading, 'readOn', ${on("r.read_on")})`,
          "handover_meter_readings r where r.workspace_id = h.workspace_id and r.handover_id = h.id",
          "r.meter",
        )},
        'forwardingAddress', h.forwarding_address, 'noticeEvidenceDocumentId', h.notice_evidence_document_id)`,
      "handovers h where h.workspace_id = $1",
      `h.id collate "C"`,
    ),
  );

/**
 * The workspace's repairs with their milestones and access attempts, in their stored order (each rebuilt in the
 * document's field order). No clock and no stored due: the import computes them.
 */
export const repairs = (sql: Sql, workspaceId: string) =>
  records<Records<"repairs">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', r.id, 'reference', r.reference, 'status', r.status, 'propertyId', r.property_id,
        'unitId', r.unit_id, 'tenancyId', r.tenancy_id, 'title', r.title, 'description', r.description,
        'location', r.location, 'category', r.category,
        'reporter', case when r.reporter_kind is not null then json_build_object(
          'kind', r.reporter_kind, 'contactId', r.reporter_contact_id, 'name', r.reporter_name) end,
        'channel', r.channel, 'awareAt', ${at("r.aware_at")}, 'hazard', r.hazard, 'hhsrsHazard', r.hhsrs_hazard,
        'regime', r.regime, 'policyVersion', r.policy_version, 'triagedAt', ${at("r.triaged_at")},
        'triagedByUserId', r.triaged_by_user_id, 'triageNote', r.triage_note,
        'milestones', ${list(
          `json_build_object('kind', m -> 'kind', 'at', m -> 'at', 'outcome', m -> 'outcome',
             'method', m -> 'method', 'note', m -> 'note', 'recordedAt', m -> 'recordedAt',
             'recordedByUserId', m -> 'recordedByUserId')`,
          "jsonb_array_elements(r.milestones) with ordinality as ms(m, n)",
          "n",
        )},
        'accessAttempts', ${list(
          `json_build_object('id', a -> 'id', 'at', a -> 'at', 'outcome', a -> 'outcome', 'note', a -> 'note',
             'recordedAt', a -> 'recordedAt')`,
          "jsonb_array_elements(r.access_attempts) with ordinality as aa(a, n)",
          "n",
        )},
        'cancelReason', r.cancel_reason, 'cancelledAt', ${at("r.cancelled_at")},
        'createdAt', ${at("r.created_at")})`,
      "repairs r where r.workspace_id = $1",
      `r.id collate "C"`,
    ),
  );

/** The workspace's tasks. */
export const tasks = (sql: Sql, workspaceId: string) =>
  records<Records<"tasks">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'title', title, 'subjectKind', subject_kind, 'subjectId', subject_id,
        'assigneeContactId', assignee_contact_id, 'assigneeUserId', assignee_user_id,
        'assigneeStaffId', assignee_staff_id, 'teamId', team_id, 'taskTypeId', task_type_id,
        'branchId', branch_id, 'priority', priority, 'dueOn', ${on("due_on")}, 'status', status,
        'createdByUserId', created_by_user_id, 'dedupeKey', dedupe_key, 'requestId', request_id,
        'doneAt', ${at("done_at")}, 'createdAt', ${at("created_at")})`,
      "tasks where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The workspace's inspections, each with its findings. */
export const inspections = (sql: Sql, workspaceId: string) =>
  records<Records<"inspections">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', i.id, 'tenancyId', i.tenancy_id, 'kind', i.kind, 'reference', i.reference, 'status', i.status,
        'outcome', i.outcome, 'dueOn', ${on("i.due_on")}, 'bookedFor', ${at("i.booked_for")},
        'completedAt', ${at("i.completed_at")},
        'findings', ${list(
          `json_build_object('id', f.id, 'area', f.area, 'item', f.item, 'repairId', f.repair_id,
             'taskId', f.task_id)`,
          "inspection_findings f where f.workspace_id = i.workspace_id and f.inspection_id = i.id",
          `f.id collate "C"`,
        )})`,
      "inspections i where i.workspace_id = $1",
      `i.id collate "C"`,
    ),
  );

/** The workspace's key sets. */
export const keySets = (sql: Sql, workspaceId: string) =>
  records<Records<"keySets">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'reference', reference, 'label', label, 'unitId', unit_id, 'status', status,
        'sequence', sequence, 'holderType', holder_type, 'holderContactId', holder_contact_id,
        'holderName', holder_name, 'tenancyId', tenancy_id)`,
      "key_sets where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The workspace's key reports; `cleared` is null while a report is open. */
export const keyReports = (sql: Sql, workspaceId: string) =>
  records<Records<"keyReports">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'keySetId', key_set_id, 'note', note,
        'source', json_build_object('kind', source_kind, 'id', source_id, 'label', source_label),
        'reportedBy', reported_by, 'reportedAt', ${at("reported_at")},
        'cleared', case when cleared_at is not null then json_build_object(
          'note', cleared_note, 'by', cleared_by, 'at', ${at("cleared_at")}) end)`,
      "key_reports where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The workspace's contractor invoices with their entries, authorisation and limit override. */
export const contractorInvoices = (sql: Sql, workspaceId: string) =>
  records<Records<"contractorInvoices">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', v.id, 'subjectKind', v.subject_kind, 'subjectId', v.subject_id, 'subjectLabel', v.subject_label,
        'propertyId', v.property_id, 'tenancyId', v.tenancy_id, 'contractorContactId', v.contractor_contact_id,
        'number', v.number, 'issuedOn', ${on("v.issued_on")}, 'dueOn', ${on("v.due_on")}, 'currency', v.currency,
        'borneBy', v.borne_by, 'documentId', v.document_id, 'approvedAt', ${at("v.approved_at")},
        'disputedAt', ${at("v.disputed_at")}, 'disputeReason', v.dispute_reason,
        'disputedMinor', v.disputed_minor, 'voidedAt', ${at("v.voided_at")}, 'voidReason', v.void_reason,
        'legacy', v.legacy, 'legacyStatus', v.legacy_status, 'legacySettled', v.legacy_settled,
        'createdAt', ${at("v.created_at")},
        'lines', ${list(
          `json_build_object('id', l.id, 'ordinal', l.ordinal, 'kind', l.kind, 'description', l.description,
             'netMinor', l.net_minor, 'vatMinor', l.vat_minor)`,
          "contractor_invoice_lines l where l.workspace_id = v.workspace_id and l.invoice_id = v.id",
          `l.ordinal, l.id collate "C"`,
        )},
        'payments', ${list(
          `json_build_object('id', p.id, 'amountMinor', p.amount_minor, 'paidOn', ${on("p.paid_on")},
             'reference', p.reference, 'legacy', p.legacy, 'createdAt', ${at("p.created_at")},
             'correctedAt', ${at("p.corrected_at")}, 'correctionReason', p.correction_reason)`,
          "contractor_payments p where p.workspace_id = v.workspace_id and p.invoice_id = v.id",
          `p.id collate "C"`,
        )},
        'creditNotes', ${list(
          `json_build_object('id', c.id, 'number', c.number, 'issuedOn', ${on("c.issued_on")},
             'netMinor', c.net_minor, 'vatMinor', c.vat_minor, 'reason', c.reason, 'documentId', c.document_id,
             'createdAt', ${at("c.created_at")}, 'correctedAt', ${at("c.corrected_at")},
             'correctionReason', c.correction_reason)`,
          "contractor_credit_notes c where c.workspace_id = v.workspace_id and c.invoice_id = v.id",
          `c.id collate "C"`,
        )},
        'recoveries', ${list(
          `json_build_object('id', r.id, 'amountMinor', r.amount_minor, 'receivedOn', ${on("r.received_on")},
             'reference', r.reference, 'createdAt', ${at("r.created_at")}, 'correctedAt', ${at("r.corrected_at")},
             'correctionReason', r.correction_reason)`,
          "contractor_recoveries r where r.workspace_id = v.workspace_id and r.invoice_id = v.id",
          `r.id collate "C"`,
        )},
        'authorisation', (
          select json_build_object('id', a.id, 'basis', a.basis, 'authorisedMinor', a.authorised_minor,
            'authorisedCurrency', a.authorised_currency)
          from contractor_authorisations a where a.workspace_id = v.workspace_id and a.id = v.authorisation_id),
        'limitOverride', (
          select json_build_object('id', o.id, 'state', o.state, 'basis', o.basis,
            'authorisedMinor', o.authorised_minor, 'authorisedCurrency', o.authorised_currency,
            'earlierMinor', o.earlier_minor, 'chargedMinor', o.charged_minor, 'excessMinor', o.excess_minor,
            'reason', o.reason, 'userId', o.user_id, 'createdAt', ${at("o.created_at")})
          from contractor_limit_overrides o where o.workspace_id = v.workspace_id and o.invoice_id = v.id))`,
      "contractor_invoices v where v.workspace_id = $1",
      `v.id collate "C"`,
    ),
  );

/** The workspace's calendar events; feedback with its four fields, as the import stores it. */
export const calendarEvents = (sql: Sql, workspaceId: string) =>
  records<Records<"calendarEvents">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'title', title, 'kind', kind, 'subjectKind', subject_kind, 'subjectId', subject_id,
        'startsAt', ${at("starts_at")}, 'endsAt', ${at("ends_at")}, 'location', location, 'status', status,
        'propertyId', property_id, 'staffUserId', staff_user_id, 'contactId', contact_id, 'notes', notes,
        'outcome', outcome, 'outcomeNote', outcome_note, 'outcomeRecordedAt', ${at("outcome_recorded_at")},
        'feedback', case when feedback is not null then json_build_object(
          'interest', feedback -> 'interest',
          'themes', case when jsonb_typeof(feedback -> 'themes') = 'array' then feedback -> 'themes' else '[]' end,
          'nextAction', feedback -> 'nextAction', 'note', feedback -> 'note') end,
        'followUpTaskId', follow_up_task_id, 'cancelReason', cancel_reason, 'cancelledAt', ${at("cancelled_at")},
        'createdByUserId', created_by_user_id, 'createdAt', ${at("created_at")})`,
      "calendar_events where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The workspace's SMS threads (their messages are not part of the document). */
export const smsThreads = (sql: Sql, workspaceId: string) =>
  records<Records<"smsThreads">>(
    sql,
    workspaceId,
    list(
      `json_build_object(
        'id', id, 'localNumber', local_number, 'address', address, 'contactId', contact_id,
        'lastMessageAt', ${at("last_message_at")}, 'lastInboundAt', ${at("last_inbound_at")},
        'preview', preview, 'stopped', stopped)`,
      "sms_threads where workspace_id = $1",
      `id collate "C"`,
    ),
  );

/** The landlords' portal access, one per contact (invitation links are never exported). */
export const landlordPortalAccess = (sql: Sql, workspaceId: string) =>
  records<Records<"landlordPortalAccess">>(
    sql,
    workspaceId,
    list(
      `json_build_object('contactId', contact_id, 'status', status, 'invitedAt', ${at("invited_at")},
        'acceptedAt', ${at("accepted_at")}, 'revokedAt', ${at("revoked_at")})`,
      "landlord_portal_access where workspace_id = $1",
      `contact_id collate "C"`,
    ),
  );

/** The workspace's onboarding checkouts. */
export const onboardingCheckouts = (sql: Sql, workspaceId: string) =>
  records<Records<"onboardingCheckouts">>(
    sql,
    workspaceId,
    list(
      `json_build_object('id', id, 'moduleId', module_id, 'status', status, 'startedAt', ${at("started_at")},
        'abandonedAt', ${at("abandoned_at")})`,
      "onboarding_checkouts where workspace_id = $1",
      `id collate "C"`,
    ),
  );
