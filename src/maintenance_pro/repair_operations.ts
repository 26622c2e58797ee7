/** The maintenance-pro group's repair operations: report, read, list, triage, milestones, access attempts, cancel. */
import { Type, type Static } from "@sinclair/typebox";
import { ulid } from "ulid";
import type { Tx } from "../core/db.ts";
import { RequestIdReused, RevisionConflict } from "../core/errors.ts";
import { createOnce, ledgerReply } from "../core/idempotency.ts";
import { operation, RawJson, Reply, type AppContext } from "../core/operation.ts";
import { cursorFields, decodeCursor, encodeCursor, linkHeader, nextLink } from "../core/pagination.ts";
import { Id } from "../core/schema.ts";
import type { EventType } from "../events/event_type.ts";
import { recordKeyWrite } from "./write_record.ts";
import type { Principal } from "../core/auth.ts";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import { repairAnswerTexts } from "./repair_answers.ts";
import type { ClockContext } from "./clocks.ts";
import {
  MilestoneOutOfOrder,
  MilestoneRecorded,
  PropertyNotFound,
  RepairClosed,
  RepairNotFound,
  RepairNotTriageable,
  RepairNotTriaged,
  RepairRejected,
} from "./errors.ts";
import {
  repairAccessAttemptRecorded,
  repairCancelled,
  repairMilestoneRecorded,
  repairReported,
  repairTriaged,
} from "./events.ts";
import {
  hazardSettingsRow,
  insertRepair,
  lockRepair,
  repairRow,
  repairsPage,
  reportTargets,
  updateRepair,
  type RepairChanges,
  type RepairRow,
  type RepairsPageQuery,
} from "./queries.ts";
import {
  checkAt,
  checkHazardPair,
  checkMilestone,
  checkMilestoneFields,
  futureToleranceMs,
  inOrder,
  instantText,
  isRepairStatus,
  repairAnswer,
  storedDues,
} from "./repair_rules.ts";
import {
  CancelRepairBody,
  RecordAccessAttemptBody,
  RecordMilestoneBody,
  Repair,
  RepairsQuery,
  ReportRepairBody,
  TriageRepairBody,
  type RepairAccessAttempt,
  type RepairMilestone,
} from "./repair_schema.ts";
import { hazardPolicyVersion } from "./schema.ts";

const params = Type.Object({ id: Id }, { additionalProperties: false });

/**
 * The world a request reads clocks in: the working calendar as stored (at `calendarVersion` when the request read it
 * already), the operator's PRS date, and now.
 */
async function clockContext(app: AppContext, now: string, calendarVersion?: number): Promise<ClockContext> {
  const calendar = await currentWorkingCalendar(app.db, calendarVersion);
  return { calendar, prsInForceFrom: app.config.prsInForceFrom, now };
}

/** Now, as answers give instants. */
const nowText = () => new Date().toISOString();
const trimmed = (text: string | undefined) => (text === undefined ? null : text.trim());

/** What every write of a repair records besides itself: its activity entry and its events. */
const recordWrite = (
  tx: Tx,
  principal: Principal,
  requestId: string,
  write: { action: string; repair: Repair; detail: Record<string, unknown>; events: EventType<typeof Repair>[] },
) => recordKeyWrite(tx, principal, requestId, { ...write, subjectKind: "repair", subject: write.repair });

/** Writes a repair's changes with its open dues computed from the clocks it will have, and answers it. */
async function writeRepair(
  tx: Tx,
  row: LockedRepair,
  changes: Omit<RepairChanges, "openDueAt" | "openDueLastAt" | "updatedAt">,
  context: ClockContext,
): Promise<Repair> {
  const dues = storedDues({ ...row, ...changes } as RepairRow, context);
  const updated = await updateRepair(tx, row.workspaceId, row.id, row.revision, {
    ...changes,
    openDueAt: dues.first,
    openDueLastAt: dues.last,
    updatedAt: context.now as string,
  });
  // The row is locked (lockRepair): no other write can have moved its revision.
  if (!updated) throw new RevisionConflict({ expectedRevision: row.revision, currentRevision: row.revision + 1 });
  return repairAnswer(updated, context);
}

/** A repair locked by its write's transaction. */
export type LockedRepair = RepairRow & { workspaceId: string };

/** The repair, locked, or RepairNotFound. */
export async function lockedRepair(tx: Tx, workspaceId: string, id: string): Promise<LockedRepair> {
  const row = await lockRepair(tx, workspaceId, id);
  if (!row) throw new RepairNotFound({ repairId: id });
  return { ...row, workspaceId };
}

function checkRevision(row: RepairRow, expectedRevision: number) {
  if (row.revision !== expectedRevision)
    throw new RevisionConflict({ expectedRevision, currentRevision: row.revision });
}

function checkOpen(row: RepairRow) {
  if (row.status === "completed" || row.status === "cancelled")
    throw new RepairClosed({ repairId: row.id, status: row.status });
}

const repairShape =
  "Every answer is the whole repair: every field present, `null` when it has no value; instants in UTC with " +
  "milliseconds whatever offset they were sent with; `milestones` and `accessAttempts` ordered by `at`, then " +
  "`recordedAt`; `clocks` computed at the moment of the answer (never stored).";

const refusalOrder =
  "Refusals are checked in this order, the first that fails answering: the body's schema (400 `RequestInvalid`), " +
  "an unknown repair or one of another workspace (404 `RepairNotFound {repairId}`), ";

const writeRecord = (event: string) =>
  "A successful write moves `revision` up by one and `updatedAt` to its moment, and is recorded in the activity " +
  `log (with the key id and its user) and as the event \`${event}\`, in the same transaction.`;

const clocksRules = [
  "Clocks (computed from the repair's data; none before triage, for hazard `none`, or for a legacy record): " +
    "`emergency_investigate` and `emergency_make_safe` (hazard `emergency`: 24 hours of elapsed time from " +
    "awareAt; met by `investigated`, `made_safe`); `significant_investigate` (hazard `significant`: 10 working " +
    "days from awareAt; met by `investigated`); once `investigated` is recorded (hazard significant or emergency), " +
    "`written_summary` (3 working days from its `at`; met by `summary_sent`); once it found `hazard_confirmed`, " +
    "`safety_work_start` (hazard significant only: 5 working days; met by `safety_work_started`) and " +
    "`preventative_work_start` (84 calendar days; met by `preventative_work_started`).",
  "Working days are every day but Saturdays, Sundays and the England and Wales bank holidays (GOV.UK's list, " +
    "substitute days included; the service knows 2012 to 2028 and an operator loads newer lists): the London day " +
    "of startsAt is day 0 and the clock is due at the end (23:59:59.999 Europe/London) of the Nth working day " +
    "after it; calendar days count every day the same way. In a year whose bank holidays are not known only " +
    "weekends are skipped, and the `explanation` says so. Aware Wed 23 Dec 2026 10:00 → `significant_investigate` " +
    "due `2027-01-11T23:59:59.999Z`.",
  "Ceasing: `investigated` with `no_hazard` ceases every open clock except `written_summary` (the household is " +
    "still told); `decanted` ceases `emergency_make_safe`; `completed` and a cancel cease every open clock. A breach " +
    "is a fact: a clock ceases only if its dueAt is after the ceasing milestone's `at` (for a cancel, the moment " +
    "of the cancel); otherwise it stays `breached`, or becomes `met_late` when its milestone is recorded. Status, " +
    "first that holds: `met` (milestone at or before dueAt) or `met_late` (after), `ceased`, `breached` (now after " +
    "dueAt), `running`. Access attempts are evidence only: they never pause or stop a clock.",
  "Basis: `statutory` when the regime is `social`, awareAt is on or after 27 Oct 2025 00:00 Europe/London, and the " +
    "hazard is in the rule set's scope (`emergency`: every HHSRS hazard but `crowding_and_space`; `significant`: " +
    "`damp_and_mould_growth`); with regime `private` only once the hazard settings' `prsInForceFrom` is set and " +
    "awareAt is from 00:00 London on it (it is read when answering). Otherwise `policy`: the same periods, kept as " +
    "the agency's service level. `rule` is `<policyVersion>/<kind>`.",
].join("\n\n");

/** Reports a repair; a retry with the same requestId replays the first answer. */
export const reportRepair = operation({
  id: "maintenancePro.reportRepair",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs",
  summary: "Reports a repair; a retry with the same requestId replays the first answer.",
  description: [
    "Records a reported repair and answers 201 with it: status `reported`, `revision` 1, the workspace's next " +
      "reference (`R-1`, `R-2`, …: counted per workspace without gaps, a refused request takes no number, and " +
      "after an import the count goes on above the highest imported `R-<n>`).",
    "`awareAt` is when the agency or landlord became aware: the anchor of the hazard clocks. It defaults to the " +
      "moment of the request and may be earlier (a report taken by phone yesterday); it never changes afterwards. " +
      "`unitId` and `tenancyId` are optional; a `tenancyId` without `unitId` takes the tenancy's unit. Text fields " +
      "are stored trimmed.",
    "`hazard` (with `hhsrsHazard` unless it is `none`) triages the repair at once, as `POST " +
      "/maintenance-pro/repairs/{id}/triage` would by the key's user: status `triaged`, still `revision` 1, with " +
      "the workspace's hazard settings (`regime`, `policyVersion`) and its clocks; the events `repair.reported` " +
      "and then `repair.triaged` are both recorded.",
    "Refusals, in this order: the body's schema (400 `RequestInvalid`: also `hhsrsHazard` without `hazard`, " +
      "`hhsrsHazard` with `none`, or `significant`/`emergency` without `hhsrsHazard`); a `requestId` used before " +
      "with another body (422 `RequestIdReused`); an unknown property (404 `PropertyNotFound {propertyId}`); then " +
      "400 `RepairRejected {reason, field}`: `unit_not_in_property` (`unitId` unknown or of another property), " +
      "`tenancy_not_in_unit` (`tenancyId` unknown, of another unit than `unitId`, or, without `unitId`, of a " +
      "unit of another property), `contact_unknown` (`reporter.contactId`), `aware_in_future` (`awareAt` more " +
      "than 60 s ahead). A refusal writes nothing.",
    "Idempotency: send a `requestId` to make retries safe. The first request with it creates the repair; a retry " +
      "with the same requestId and the same body (compared as JSON, key order ignored) creates nothing and " +
      "answers 201 with the first answer byte for byte and the header `Idempotent-Replayed: true` (its clocks as " +
      "they were then). A retry sent while the first is still running waits for it and replays it. The same " +
      "requestId with a different body is refused with 422 `RequestIdReused` and writes nothing. A requestId is " +
      "scoped to the workspace and remembered for at least 30 days.",
    writeRecord("repair.reported"),
    repairShape,
    clocksRules,
  ].join("\n\n"),
  body: ReportRepairBody,
  response: Repair,
  status: 201,
  errors: [RequestIdReused, PropertyNotFound, RepairRejected],
  responseHeaders: {
    "Idempotent-Replayed": {
      description:
        "`true` when this answer replays an earlier report with the same requestId (nothing new was written); " +
        "absent otherwise.",
    },
  },
  run: async ({ app, db, principal, body, requestId: xRequestId }) => {
    checkHazardPair(body.hazard, body.hhsrsHazard);
    const now = nowText();
    const context = await clockContext(app, now);
    const { workspaceId } = principal;
    const create = async (tx: Tx) => {
      const targets = await reportTargets(tx, workspaceId, {
        propertyId: body.propertyId,
        unitId: body.unitId ?? null,
        tenancyId: body.tenancyId ?? null,
        contactId: body.reporter.contactId ?? null,
      });
      if (!targets.property) throw new PropertyNotFound({ propertyId: body.propertyId });
      if (body.unitId !== undefined && targets.unitPropertyId !== body.propertyId)
        throw new RepairRejected({ reason: "unit_not_in_property", field: "unitId" });
      if (
        body.tenancyId !== undefined &&
        (targets.tenancyUnitId === null ||
          (body.unitId !== undefined
            ? targets.tenancyUnitId !== body.unitId
            : targets.tenancyPropertyId !== body.propertyId))
      )
        throw new RepairRejected({ reason: "tenancy_not_in_unit", field: "tenancyId" });
      if (body.reporter.contactId !== undefined && !targets.contact)
        throw new RepairRejected({ reason: "contact_unknown", field: "reporter.contactId" });
      const awareAt = body.awareAt === undefined ? now : instantText(body.awareAt);
      if (Date.parse(awareAt) > Date.parse(now) + futureToleranceMs)
        throw new RepairRejected({ reason: "aware_in_future", field: "awareAt" });
      const triaged = body.hazard !== undefined;
      const fields = {
        workspaceId,
        id: ulid(),
        propertyId: body.propertyId,
        unitId: body.unitId ?? targets.tenancyUnitId ?? null,
        tenancyId: body.tenancyId ?? null,
        title: body.title.trim(),
        description: trimmed(body.description),
        location: trimmed(body.location),
        category: body.category,
        reporter: {
          kind: body.reporter.kind,
          contactId: body.reporter.contactId ?? null,
          name: trimmed(body.reporter.name),
        },
        channel: body.channel,
        awareAt,
        status: triaged ? ("triaged" as const) : ("reported" as const),
        hazard: body.hazard ?? null,
        hhsrsHazard: body.hhsrsHazard ?? null,
        regime: triaged ? targets.regime : null,
        policyVersion: triaged ? hazardPolicyVersion : null,
        triagedAt: triaged ? now : null,
        triagedByUserId: triaged ? principal.createdByUserId : null,
        createdAt: now,
      };
      const dues = storedDues({ ...fields, milestones: [], cancelledAt: null }, context);
      const row = await insertRepair(tx, { ...fields, openDueAt: dues.first, openDueLastAt: dues.last });
      const repair = repairAnswer(row, context);
      await recordWrite(tx, principal, xRequestId, {
        action: "repair_reported",
        repair,
        detail: { requestId: body.requestId ?? null, hazard: repair.hazard },
        events: triaged ? [repairReported, repairTriaged] : [repairReported],
      });
      return { status: 201, body: repair };
    };
    const key =
      body.requestId === undefined
        ? undefined
        : { workspaceId, operationId: "maintenancePro.reportRepair", requestId: body.requestId, body };
    return ledgerReply<Repair>(await createOnce(db, key, create));
  },
});

/** A repair with its clocks. */
export const repair = operation({
  id: "maintenancePro.repair",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/repairs/:id",
  summary: "A repair with its hazard clocks.",
  description: [
    "The repair, its milestones, access attempts and hazard clocks. An unknown repair, or one of another " +
      "workspace, is 404 `RepairNotFound {repairId}`.",
    "An imported repair whose status is none of `reported`, `triaged`, `in_progress`, `completed`, `cancelled` is " +
      "a legacy record: it keeps its imported fields (the others are `null`) and has no clocks.",
    repairShape,
    clocksRules,
  ].join("\n\n"),
  params,
  response: Repair,
  errors: [RepairNotFound],
  run: async ({ app, db, principal, params }) => {
    const [row, context] = await Promise.all([
      repairRow(db, principal.workspaceId, params.id),
      clockContext(app, nowText()),
    ]);
    if (!row) throw new RepairNotFound({ repairId: params.id });
    return repairAnswer(row, context);
  },
});

/** The repairs desk's list: what is due first. */
export const repairs = operation({
  id: "maintenancePro.repairs",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/repairs",
  summary: "Repairs, what is due first.",
  description: [
    "The workspace's repairs in the order a repairs desk works them: by the earliest `dueAt` among the repair's " +
      "running or breached clocks (repairs with none last), then `createdAt`, then `id`. A breached clock stays " +
      "open: a repair with a breach keeps its place at the top, even once completed, as the breach is a fact.",
    "Filters (all optional, combined with and): `status` (one of `reported`, `triaged`, `in_progress`, " +
      "`completed`, `cancelled`; else 400), `propertyId`, `tenancyId`, `clock` (`running`, `breached`, or `open` " +
      "for either: repairs with at least one clock in that state now), `dueBefore` (repairs with a running or " +
      "breached clock whose `dueAt` is strictly before it). A filter naming an unknown property or tenancy gives " +
      "an empty list. Unknown query parameters are refused (400).",
    "Pages: `limit` (default 50, at most 200). When more repairs follow, the answer carries " +
      '`Link: <…>; rel="next"`, an absolute URL repeating the query with a `cursor`; the last page has none. The ' +
      "body stays a plain array. The cursor names a position in the order: a repair whose place changes between " +
      "pages (a milestone meets its first clock) may be listed twice or not at all. Each repair of a page is " +
      "answered at the revision the page's order saw, or at a later one when it was written in the meantime.",
    "The order and the filters read the due instants each write stores with the repair, computed from the same " +
      "clock rules as the answer; an operator's later load of a bank-holiday list changes the answers' `dueAt` " +
      "at once, and the stored order within a minute (the hazard clock worker stores the moved instants; a " +
      "repair being written at that moment at its next run).",
    repairShape,
  ].join("\n\n"),
  query: RepairsQuery,
  response: Type.Array(Repair, { title: "Repairs" }),
  responseHeaders: linkHeader,
  run: async ({ app, db, principal, query, url }) => {
    const now = nowText();
    const limit = query.limit ?? 50;
    const rows = await repairsPage(db, principal.workspaceId, pageQuery(query, now));
    if (!rows.length) return [];
    // The calendar at the version the page's statement saw (kept by this process until a load moves it).
    const context = await clockContext(app, now, rows[0]!.calendarVersion);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const answer = new RawJson(`[${(await repairAnswerTexts(db, principal.workspaceId, page, context)).join(",")}]`);
    if (!more) return new Reply<Repair[]>(answer);
    const last = page.at(-1)!;
    const cursor = encodeCursor([last.sortDue, last.sortCreatedAt, last.id]);
    return new Reply<Repair[]>(answer, undefined, { link: nextLink(url, cursor) });
  },
});

/** The list's query as repairsPage takes it (a cursor the service did not make throws RequestInvalid). */
function pageQuery(query: Static<typeof RepairsQuery>, now: string): RepairsPageQuery {
  const after =
    query.cursor === undefined
      ? undefined
      : decodeCursor(query.cursor, [cursorFields.instantOrNull, cursorFields.instant, cursorFields.id]);
  return {
    status: query.status,
    propertyId: query.propertyId,
    tenancyId: query.tenancyId,
    clock: query.clock,
    dueBefore: query.dueBefore === undefined ? undefined : instantText(query.dueBefore),
    now,
    after: after ? { due: after[0]!, createdAt: after[1]!, id: after[2]! } : undefined,
    take: (query.limit ?? 50) + 1,
  };
}

/** Triages a repair: its hazard, and the clocks that follow from it. */
export const triageRepair = operation({
  id: "maintenancePro.triageRepair",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs/:id/triage",
  summary: "Triages a repair: its hazard, and the clocks that follow.",
  description: [
    "Sets the repair's `hazard` (`none`, `significant` or `emergency`) and, unless `none`, its `hhsrsHazard`; " +
      "status `triaged`, `triagedAt` now, `triagedByUserId` the key's user, `triageNote` the note (or `null`). " +
      "The repair takes the workspace's hazard settings at this moment (`regime`, `policyVersion`): every clock " +
      "of the repair, those made later by milestones included, uses them, and a later change of the settings " +
      "does not move them. Triaging again (allowed while `reported` or `triaged`) replaces the clocks and takes " +
      "the settings of that moment.",
    refusalOrder +
      "a stale `expectedRevision` (409 `RevisionConflict {expectedRevision, currentRevision}`: of two concurrent " +
      "writers with the same revision exactly one wins), a `completed` or `cancelled` repair (409 `RepairClosed " +
      "{repairId, status}`), then a repair `in_progress` or a legacy record (409 `RepairNotTriageable {repairId, " +
      "status}`). `hhsrsHazard` is required unless the hazard is `none` and refused with `none` (400 " +
      "`RequestInvalid`).",
    writeRecord("repair.triaged"),
    repairShape,
    clocksRules,
  ].join("\n\n"),
  params,
  body: TriageRepairBody,
  response: Repair,
  errors: [RepairNotFound, RevisionConflict, RepairClosed, RepairNotTriageable],
  run: async ({ app, db, principal, params, body, requestId }) => {
    checkHazardPair(body.hazard, body.hhsrsHazard);
    const now = nowText();
    const context = await clockContext(app, now);
    return db.begin(async (tx) => {
      const row = await lockedRepair(tx, principal.workspaceId, params.id);
      checkRevision(row, body.expectedRevision);
      checkOpen(row);
      if (row.status !== "reported" && row.status !== "triaged")
        throw new RepairNotTriageable({ repairId: row.id, status: row.status });
      const settings = await hazardSettingsRow(tx, principal.workspaceId);
      const changes = {
        status: "triaged",
        hazard: body.hazard,
        hhsrsHazard: body.hhsrsHazard ?? null,
        regime: settings.regime,
        policyVersion: hazardPolicyVersion,
        triagedAt: now,
        triagedByUserId: principal.createdByUserId,
        triageNote: trimmed(body.note),
      } as const;
      const repair = await writeRepair(tx, row, changes, context);
      await recordWrite(tx, principal, requestId, {
        action: "repair_triaged",
        repair,
        detail: { hazard: repair.hazard, hhsrsHazard: repair.hhsrsHazard, regime: repair.regime },
        events: [repairTriaged],
      });
      return repair;
    });
  },
});

/**
 * Adds a checked milestone to a locked repair (status `completed` for `completed`, else `in_progress`) and answers
 * it; the agency's milestone write and the contractor's link both write through it.
 */
export function addMilestone(tx: Tx, row: LockedRepair, milestone: RepairMilestone, context: ClockContext) {
  const changes = {
    status: milestone.kind === "completed" ? "completed" : "in_progress",
    milestones: inOrder([...row.milestones, milestone]),
  };
  return writeRepair(tx, row, changes, context);
}

/** Adds a checked access attempt to a locked repair and answers it (the agency's write and the contractor's link). */
export function addAccessAttempt(tx: Tx, row: LockedRepair, attempt: RepairAccessAttempt, context: ClockContext) {
  return writeRepair(tx, row, { accessAttempts: inOrder([...row.accessAttempts, attempt]) }, context);
}

/** Records a milestone of a repair. */
export const recordRepairMilestone = operation({
  id: "maintenancePro.recordRepairMilestone",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs/:id/milestones",
  summary: "Records a milestone of a repair.",
  description: [
    "Records what happened and when (`at`, which may be earlier than the request): `investigated` with `outcome` " +
      "`hazard_confirmed` or `no_hazard` (either meets the investigate clock); `made_safe`; `decanted` (the " +
      "household moved to other accommodation); `completed` (the work is done: status `completed`, final); " +
      "`summary_sent` with `method` (`email`, `post`, `hand`, `left_at_home`, `sms`, `portal`), only after " +
      "`investigated`; `safety_work_started` and `preventative_work_started`, only after `investigated` with " +
      "`hazard_confirmed`. Any other kind than `completed` makes the status `in_progress`. Each kind is recorded " +
      "at most once.",
    refusalOrder +
      "a stale `expectedRevision` (409 `RevisionConflict {expectedRevision, currentRevision}`: of two concurrent " +
      "writers with the same revision exactly one wins), a `completed` or `cancelled` repair (409 `RepairClosed " +
      "{repairId, status}`), a repair not triaged yet or a legacy record (409 `RepairNotTriaged {repairId}`), the " +
      "kind recorded already (409 `MilestoneRecorded {repairId, kind}`), a missing precondition (409 " +
      "`MilestoneOutOfOrder {repairId, kind, requires}`: `investigated` when there is no investigation yet, " +
      '`hazard_confirmed` when it found no hazard), then `at` (400 `RepairRejected {reason, field: "at"}`: ' +
      "`at_in_future` more than 60 s ahead, `before_aware` before awareAt, `before_investigation` before the " +
      "investigation's `at` for the kinds that need one). `outcome` and `method` are required for their kinds and " +
      "refused on the others (400 `RequestInvalid`). `summary_sent` with method `portal` needs a `note` that is " +
      "not blank: it is the written summary the tenant reads on the repair page of their link (400 " +
      "`RequestInvalid` without it).",
    writeRecord("repair.milestone_recorded"),
    repairShape,
    clocksRules,
  ].join("\n\n"),
  params,
  body: RecordMilestoneBody,
  response: Repair,
  errors: [
    RepairNotFound,
    RevisionConflict,
    RepairClosed,
    RepairNotTriaged,
    MilestoneRecorded,
    MilestoneOutOfOrder,
    RepairRejected,
  ],
  run: async ({ app, db, principal, params, body, requestId }) => {
    checkMilestoneFields(body);
    const now = nowText();
    const context = await clockContext(app, now);
    return db.begin(async (tx) => {
      const row = await lockedRepair(tx, principal.workspaceId, params.id);
      checkRevision(row, body.expectedRevision);
      checkOpen(row);
      if (row.status === "reported" || !isRepairStatus(row.status)) throw new RepairNotTriaged({ repairId: row.id });
      const at = instantText(body.at);
      checkMilestone(row, body.kind, at, now);
      const milestone: RepairMilestone = {
        kind: body.kind,
        at,
        outcome: body.outcome ?? null,
        method: body.method ?? null,
        note: trimmed(body.note),
        recordedAt: now,
        recordedByUserId: principal.createdByUserId,
      };
      const repair = await addMilestone(tx, row, milestone, context);
      await recordWrite(tx, principal, requestId, {
        action: "repair_milestone_recorded",
        repair,
        detail: { kind: milestone.kind, at: milestone.at, outcome: milestone.outcome, method: milestone.method },
        events: [repairMilestoneRecorded],
      });
      return repair;
    });
  },
});

/** Records an attempt to get into the home. */
export const recordAccessAttempt = operation({
  id: "maintenancePro.recordAccessAttempt",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs/:id/access-attempts",
  summary: "Records an attempt to get into the home.",
  description: [
    "Keeps an attempt to get into the home with the repair, as evidence (`outcome` `granted`, `refused`, " +
      "`no_answer` or `rescheduled`; `at` when it was made). Attempts never pause or stop a clock. Allowed on any " +
      "repair not `completed` or `cancelled`, legacy records included. Each gets an `id`.",
    refusalOrder +
      "a `completed` or `cancelled` repair (409 `RepairClosed {repairId, status}`), then `at` (400 " +
      '`RepairRejected {reason, field: "at"}`: `at_in_future` more than 60 s ahead, `before_aware` before ' +
      "awareAt). No `expectedRevision`: attempts are only ever added.",
    writeRecord("repair.access_attempt_recorded"),
    repairShape,
  ].join("\n\n"),
  params,
  body: RecordAccessAttemptBody,
  response: Repair,
  errors: [RepairNotFound, RepairClosed, RepairRejected],
  run: async ({ app, db, principal, params, body, requestId }) => {
    const now = nowText();
    const context = await clockContext(app, now);
    return db.begin(async (tx) => {
      const row = await lockedRepair(tx, principal.workspaceId, params.id);
      checkOpen(row);
      const at = instantText(body.at);
      checkAt(at, isRepairStatus(row.status) ? row.awareAt : null, now);
      const attempt = { id: ulid(), at, outcome: body.outcome, note: trimmed(body.note), recordedAt: now };
      const repair = await addAccessAttempt(tx, row, attempt, context);
      await recordWrite(tx, principal, requestId, {
        action: "repair_access_attempt_recorded",
        repair,
        detail: { attemptId: attempt.id, at: attempt.at, outcome: attempt.outcome },
        events: [repairAccessAttemptRecorded],
      });
      return repair;
    });
  },
});

/** Cancels a repair; a cancelled repair is returned unchanged. */
export const cancelRepair = operation({
  id: "maintenancePro.cancelRepair",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs/:id/cancel",
  summary: "Cancels a repair.",
  description: [
    "Cancels a repair from any status but `completed` (legacy records included): status `cancelled`, " +
      "`cancelledAt` now, `cancelReason` the reason (1 to 500 characters after trimming, stored trimmed). Every " +
      "clock still running ceases (`ceasedReason` `cancelled`); one already breached stays breached.",
    "Cancelling a cancelled repair answers 200 with it unchanged, whatever the reason (same `revision`, nothing " +
      "recorded): repeating the call is safe, and of concurrent calls exactly one changes the repair.",
    refusalOrder + "then a `completed` repair (409 `RepairClosed {repairId, status}`).",
    writeRecord("repair.cancelled"),
    repairShape,
  ].join("\n\n"),
  params,
  body: CancelRepairBody,
  response: Repair,
  errors: [RepairNotFound, RepairClosed],
  hints: { idempotent: true },
  run: async ({ app, db, principal, params, body, requestId }) => {
    const now = nowText();
    const context = await clockContext(app, now);
    return db.begin(async (tx) => {
      const row = await lockedRepair(tx, principal.workspaceId, params.id);
      if (row.status === "cancelled") return repairAnswer(row, context);
      checkOpen(row);
      const changes = { status: "cancelled", cancelReason: body.reason.trim(), cancelledAt: now };
      const repair = await writeRepair(tx, row, changes, context);
      await recordWrite(tx, principal, requestId, {
        action: "repair_cancelled",
        repair,
        detail: { reason: repair.cancelReason, from: row.status },
        events: [repairCancelled],
      });
      return repair;
    });
  },
});

/** Every repair operation, in the order of the group's documentation. */
export const repairOperations = [
  reportRepair,
  repair,
  repairs,
  triageRepair,
  recordRepairMilestone,
  recordAccessAttempt,
  cancelRepair,
];
