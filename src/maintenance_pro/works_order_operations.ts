/** The maintenance-pro group's works order operations: raise, read, list, cancel, check its key set out and in. */
import { Type, type Static } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { ulid } from "ulid";
import type { Principal } from "../core/auth.ts";
import type { Db, Tx } from "../core/db.ts";
import { RequestIdReused, RevisionConflict } from "../core/errors.ts";
import { createOnce, ledgerReply } from "../core/idempotency.ts";
import { operation, Reply } from "../core/operation.ts";
import { cursorFields, decodeCursor, encodeCursor, linkHeader, nextLink } from "../core/pagination.ts";
import { Id } from "../core/schema.ts";
import type { EventType } from "../events/event_type.ts";
import { recordKeyWrite } from "./write_record.ts";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import {
  ContactNotFound,
  KeySetCheckedOut,
  KeySetLost,
  KeySetNotOfUnit,
  KeySetNotWithContractor,
  NotAContractor,
  RepairClosed,
  RepairNotFound,
  WorksOrderClosed,
  WorksOrderHasNoKeySet,
  WorksOrderNotFound,
} from "./errors.ts";
import { worksOrderCancelled, worksOrderRaised } from "./events.ts";
import { type ContractorLinkJob, contractorLinkQueue, ensureContractorLinkQueue } from "./contractor_link.ts";
import { closeRepairVisit, contractorLinkGraceDays, insertContractorLink } from "./contractor_queries.ts";
import { lockRepair } from "./queries.ts";
import { instantText, repairAnswer } from "./repair_rules.ts";
import type { Repair } from "./repair_schema.ts";
import {
  contactName,
  insertWorksOrder,
  lockKeySet,
  lockWorksOrder,
  raiseTargets,
  setKeySetHolder,
  updateWorksOrder,
  worksOrderRow,
  worksOrdersPage,
  type WorksOrderRow,
} from "./works_order_queries.ts";
import {
  CancelWorksOrderBody,
  openWorksOrderStatuses,
  RaiseWorksOrderBody,
  WorksOrder,
  WorksOrdersQuery,
  type WorksOrderPurpose,
} from "./works_order_schema.ts";

const params = Type.Object({ id: Id }, { additionalProperties: false });
const nowText = () => new Date().toISOString();

/** The clocks each purpose serves, in the order a default `requiredBy` is looked for. */
export const purposeClocks: Record<WorksOrderPurpose, readonly string[]> = {
  investigation: ["emergency_investigate", "significant_investigate"],
  make_safe: ["emergency_make_safe"],
  safety_work: ["safety_work_start"],
  preventative_work: ["preventative_work_start"],
  repair: [],
};

/** The dueAt of the repair's clock the purpose serves (the first open one, else the first), or null. */
export function defaultRequiredBy(repair: Repair, purpose: WorksOrderPurpose): string | null {
  const served = (repair.clocks ?? []).filter((c) => purposeClocks[purpose].includes(c.kind));
  const open = served.find((c) => c.status === "running" || c.status === "breached");
  return (open ?? served[0])?.dueAt ?? null;
}

/** A works order as answered (the row without its list position). */
export function worksOrderAnswer(row: WorksOrderRow): WorksOrder {
  const { sortRequired: _, ...order } = row;
  return order;
}

/** What every write of a works order records besides itself: its activity entry and its event. */
const recordWorksOrderWrite = (
  tx: Tx,
  principal: Principal,
  requestId: string,
  write: { action: string; order: WorksOrder; detail: Record<string, unknown>; event: EventType<typeof WorksOrder> },
) =>
  recordKeyWrite(tx, principal, requestId, {
    action: write.action,
    subjectKind: "works_order",
    subject: write.order,
    detail: write.detail,
    events: [write.event],
  });

const orderShape =
  "Every answer is the whole works order: every field present, `null` when it has no value; instants in UTC with " +
  "milliseconds. Statuses: `raised`, then `accepted` or `declined` (final); then `scheduled`, `attended`, " +
  "`completed` (final), or `no_access` (a new appointment makes it `scheduled` again); `cancelled` by the agency " +
  "from any open status (`raised`, `accepted`, `scheduled`, `attended`, `no_access`), final.";

/** Raises a works order on a repair for a contractor. */
export const raiseWorksOrder = operation({
  id: "maintenancePro.raiseWorksOrder",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/repairs/:id/works-orders",
  summary: "Raises a works order on a repair for a contractor.",
  description: [
    "Gives the repair's work to a contractor: answers 201 with the order, status `raised`, `revision` 1, reference " +
      "`<repair reference>/<n>` (`R-7/1`, `R-7/2`, …: counted per repair without gaps). `instructions` are stored " +
      "trimmed.",
    "`requiredBy` defaults to the `dueAt` of the repair's clock the purpose serves, at the moment of raising: " +
      "`investigation` the investigate clock (`emergency_investigate` or `significant_investigate`), `make_safe` " +
      "`emergency_make_safe`, `safety_work` `safety_work_start`, `preventative_work` `preventative_work_start` (an " +
      "open clock first, else a met or ceased one); `null` for `repair`, or when the repair has no such clock. A " +
      "`requiredBy` sent is kept as sent.",
    "`keySetId` (optional) names a key set of the repair's unit the contractor needs; the contractor's page shows " +
      "it, and whether they have it (the agency checks it out to them and back in: `POST …/key-set/check-out` and " +
      "`…/key-set/return`). `keySet` shows the set as it is now.",
    "Refusals, in this order, the first that fails answering: the body's schema (400 `RequestInvalid`), a " +
      "`requestId` used before with another body or repair (422 `RequestIdReused`), an unknown " +
      "repair or one of another workspace (404 `RepairNotFound {repairId}`), a `completed` or `cancelled` repair " +
      "(409 `RepairClosed {repairId, status}`), an unknown or archived contact (404 `ContactNotFound " +
      "{contactId}`), a contact without the role `contractor` (409 `NotAContractor {contactId}`), a key set unknown " +
      "or not of the repair's unit (400 `KeySetNotOfUnit {keySetId}`). A refusal writes nothing.",
    "Idempotency: send a `requestId` to make retries safe. The first request with it raises the order; a retry on " +
      "the same repair with the same body (compared as JSON, key order ignored) raises nothing and answers 201 " +
      "with the first answer byte for byte and the header `Idempotent-Replayed: true`. A retry sent while the " +
      "first is still running waits for it and replays it. The same requestId with a different body or on another " +
      "repair is refused with 422 `RequestIdReused` and writes nothing. A requestId is scoped to the workspace and " +
      "remembered for at least 30 days.",
    "A successful raise is recorded in the activity log (with the key id and its user) and as the event " +
      "`works_order.raised`, in the same transaction.",
    "The contractor's link: the raise queues, in its transaction, an email to the contractor's address with a link " +
      "to the order's page (`/contractor/{token}`; the token is random and stored only as its SHA-256; a retried " +
      "job never sends it twice; no email is sent when the contact has no address). The page shows the property's " +
      "address, the instructions, who raised the order (the workspace's person to contact), `requiredBy` in UK " +
      "time and the key set. There the contractor accepts or declines (with a reason), agrees an appointment " +
      "(`scheduled`, again after `no_access`; the agenda shows it as an event of kind `repair_visit` at the " +
      "property with the contractor, moved when agreed again, closed by the visit), and records the visit: " +
      "`attended`, `no_access` (a note, required) or `completed` (a note). While the order is open and names a key " +
      "set, the page also takes a report that the key does not work (a note, required, up to 2000 characters): a " +
      "key report of source kind `repair` (the repair's id and reference, by the contractor's name; listed by " +
      "`GET /keys/sets/{id}/reports`) and an activity entry naming the contractor, without a write of the order; " +
      "the same note sent again while that report is not cleared stores nothing more. " +
      "Each write of the order moves `revision` up by one " +
      "and records the event `works_order.accepted`, " +
      "`.declined`, `.scheduled`, `.no_access` or `.completed` (`attended` records none), with the actor " +
      "`contractor` and the contact's id. What the agency would record on the repair is recorded with it: " +
      "`investigation` records the milestone `investigated` (with the finding the contractor gives) on attended or " +
      "completed, `make_safe` `made_safe` on completed, `safety_work` `safety_work_started` on attended, `repair` " +
      "`completed` on completed; `no_access` records an access attempt (`no_answer`, or `refused` when the " +
      "contractor says so) with the note. A milestone the repair would refuse (recorded already, the repair not " +
      "triaged, closed, or the milestone out of order) is left out and the order's write still happens. The link " +
      `works while the order is open and, read-only, for ${contractorLinkGraceDays} days after it is completed, ` +
      "declined or cancelled; of the agency cancelling while the contractor writes, exactly one wins.",
    orderShape,
  ].join("\n\n"),
  params,
  body: RaiseWorksOrderBody,
  response: WorksOrder,
  status: 201,
  errors: [RequestIdReused, RepairNotFound, RepairClosed, ContactNotFound, NotAContractor, KeySetNotOfUnit],
  responseHeaders: {
    "Idempotent-Replayed": {
      description:
        "`true` when this answer replays an earlier raise with the same requestId (nothing new was written); " +
        "absent otherwise.",
    },
  },
  run: async ({ app, db, principal, params, body, requestId }) => {
    const now = nowText();
    const calendar = await currentWorkingCalendar(app.db);
    await ensureContractorLinkQueue(app.jobs);
    const { workspaceId } = principal;
    const raise = async (tx: Tx) => {
      const row = await lockRepair(tx, workspaceId, params.id);
      if (!row) throw new RepairNotFound({ repairId: params.id });
      if (row.status === "completed" || row.status === "cancelled")
        throw new RepairClosed({ repairId: row.id, status: row.status });
      const targets = await raiseTargets(tx, workspaceId, {
        contactId: body.contractorContactId,
        keySetId: body.keySetId ?? null,
      });
      if (targets.contactRoles === null) throw new ContactNotFound({ contactId: body.contractorContactId });
      if (!targets.contactRoles.includes("contractor"))
        throw new NotAContractor({ contactId: body.contractorContactId });
      if (
        body.keySetId !== undefined &&
        (targets.keySetUnitId === undefined || row.unitId === null || targets.keySetUnitId !== row.unitId)
      )
        throw new KeySetNotOfUnit({ keySetId: body.keySetId });
      const repair = repairAnswer(row, { calendar, prsInForceFrom: app.config.prsInForceFrom, now });
      const inserted = await insertWorksOrder(tx, {
        workspaceId,
        id: ulid(),
        repairId: row.id,
        repairReference: row.reference ?? row.id,
        contractorContactId: body.contractorContactId,
        purpose: body.purpose,
        instructions: body.instructions.trim(),
        requiredBy:
          body.requiredBy === undefined ? defaultRequiredBy(repair, body.purpose) : instantText(body.requiredBy),
        keySetId: body.keySetId ?? null,
        raisedByUserId: principal.createdByUserId,
        now,
      });
      const order = worksOrderAnswer(inserted);
      const jobId = randomUUID();
      await insertContractorLink(tx, { workspaceId, worksOrderId: order.id, jobId });
      const job: ContractorLinkJob = { workspaceId, worksOrderId: order.id };
      await app.jobs.send(tx, contractorLinkQueue, job, { id: jobId });
      await recordWorksOrderWrite(tx, principal, requestId, {
        action: "works_order_raised",
        order,
        detail: { repairId: order.repairId, contractorContactId: order.contractorContactId, purpose: order.purpose },
        event: worksOrderRaised,
      });
      return { status: 201, body: order };
    };
    const key =
      body.requestId === undefined
        ? undefined
        : {
            workspaceId,
            operationId: "maintenancePro.raiseWorksOrder",
            requestId: body.requestId,
            body: { repairId: params.id, ...body },
          };
    return ledgerReply<WorksOrder>(await createOnce(db, key, raise));
  },
});

/** A works order. */
export const worksOrder = operation({
  id: "maintenancePro.worksOrder",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/works-orders/:id",
  summary: "A works order.",
  description: [
    "The works order. An unknown one, or one of another workspace, is 404 `WorksOrderNotFound {worksOrderId}`.",
    orderShape,
  ].join("\n\n"),
  params,
  response: WorksOrder,
  errors: [WorksOrderNotFound],
  run: async ({ db, principal, params }) => {
    const row = await worksOrderRow(db, principal.workspaceId, params.id);
    if (!row) throw new WorksOrderNotFound({ worksOrderId: params.id });
    return worksOrderAnswer(row);
  },
});

/** The workspace's works orders, what is required first. */
export const worksOrders = operation({
  id: "maintenancePro.worksOrders",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/works-orders",
  summary: "Works orders, what is required first.",
  description: [
    "The workspace's works orders by `requiredBy` (orders without one last), then `id`.",
    "Filters (all optional, combined with and): `repairId`, `contractorContactId`, `status` (one of the eight; " +
      "else 400), `requiredBefore` (orders whose `requiredBy` is strictly before it). A filter naming an unknown " +
      "repair or contact gives an empty list. Unknown query parameters are refused (400).",
    "Pages: `limit` (default 50, at most 200). When more orders follow, the answer carries " +
      '`Link: <…>; rel="next"`, an absolute URL repeating the query with a `cursor`; the last page has none. The ' +
      "body stays a plain array.",
    orderShape,
  ].join("\n\n"),
  query: WorksOrdersQuery,
  response: Type.Array(WorksOrder, { title: "WorksOrders" }),
  responseHeaders: linkHeader,
  run: async ({ db, principal, query, url }) => {
    const limit = query.limit ?? 50;
    const after =
      query.cursor === undefined
        ? undefined
        : decodeCursor(query.cursor, [cursorFields.instantOrNull, cursorFields.id]);
    const rows = await worksOrdersPage(db, principal.workspaceId, pageQuery(query, after, limit));
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const answer = page.map(worksOrderAnswer);
    if (!more) return answer;
    const last = page.at(-1)!;
    return new Reply(answer, undefined, { link: nextLink(url, encodeCursor([last.sortRequired, last.id])) });
  },
});

function pageQuery(query: Static<typeof WorksOrdersQuery>, after: (string | null)[] | undefined, limit: number) {
  return {
    repairId: query.repairId,
    contractorContactId: query.contractorContactId,
    status: query.status,
    requiredBefore: query.requiredBefore === undefined ? undefined : instantText(query.requiredBefore),
    after: after ? { required: after[0]!, id: after[1]! } : undefined,
    take: limit + 1,
  };
}

/** Cancels a works order; a cancelled one is returned unchanged. */
export const cancelWorksOrder = operation({
  id: "maintenancePro.cancelWorksOrder",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/works-orders/:id/cancel",
  summary: "Cancels a works order.",
  description: [
    "The agency cancels a works order from any open status (`raised`, `accepted`, `scheduled`, `attended`, " +
      "`no_access`): status `cancelled`, `cancelledAt` now, `cancelReason` the reason (stored trimmed). The " +
      "contractor's link stops accepting writes; the visit of its appointment, if one is still to come, is cancelled " +
      "on the agenda. The repair is not changed.",
    "Cancelling a cancelled order answers 200 with it unchanged, whatever the reason or revision (nothing " +
      "recorded): repeating the call is safe.",
    "Refusals, in this order, the first that fails answering: the body's schema (400 `RequestInvalid`), an " +
      "unknown order or one of another workspace (404 `WorksOrderNotFound {worksOrderId}`), a stale " +
      "`expectedRevision` (409 " +
      "`RevisionConflict {expectedRevision, currentRevision}`), then a `declined` or `completed` order (409 " +
      "`WorksOrderClosed {worksOrderId, status}`). Of the agency cancelling while the contractor writes, exactly " +
      "one wins: the other is refused (`RevisionConflict` here, or the page says the order was cancelled).",
    "A successful cancel moves `revision` up by one and is recorded in the activity log (with the key id and its " +
      "user) and as the event `works_order.cancelled`, in the same transaction.",
    orderShape,
  ].join("\n\n"),
  params,
  body: CancelWorksOrderBody,
  response: WorksOrder,
  errors: [WorksOrderNotFound, RevisionConflict, WorksOrderClosed],
  hints: { idempotent: true },
  run: async ({ db, principal, params, body, requestId }) => {
    const now = nowText();
    return db.begin(async (tx) => {
      const row = await lockWorksOrder(tx, principal.workspaceId, params.id);
      if (!row) throw new WorksOrderNotFound({ worksOrderId: params.id });
      if (row.status === "cancelled") return worksOrderAnswer(row);
      if (row.revision !== body.expectedRevision)
        throw new RevisionConflict({ expectedRevision: body.expectedRevision, currentRevision: row.revision });
      if (!openWorksOrderStatuses.includes(row.status))
        throw new WorksOrderClosed({ worksOrderId: row.id, status: row.status });
      const updated = await updateWorksOrder(tx, principal.workspaceId, row.id, row.revision, {
        status: "cancelled",
        cancelReason: body.reason.trim(),
        cancelledAt: now,
        now,
      });
      if (!updated) throw new RevisionConflict({ expectedRevision: row.revision, currentRevision: row.revision + 1 });
      const order = worksOrderAnswer(updated);
      await closeRepairVisit(tx, principal.workspaceId, order.id, { status: "cancelled", reason: body.reason.trim() });
      await recordWorksOrderWrite(tx, principal, requestId, {
        action: "works_order_cancelled",
        order,
        detail: { reason: order.cancelReason, from: row.status },
        event: worksOrderCancelled,
      });
      return order;
    });
  },
});

const keySetRules =
  "The key set is the one the order names (`keySetId`); `keySet` in the answer shows it as it is now. Checking it " +
  "out or in is a write of the key set, not of the order: the order's `revision` and `updatedAt` do not move, and " +
  "the contractor's open page stays valid. The set's holder shows wherever key sets are shown: a set checked out " +
  "to a contractor is in none of the handover row's key lists (`held`, `ambiguous`, `available`) of its unit's " +
  "tenancies, also after the order completes, until it is returned; back in the office it is `available` again.";

/** Checks the order's key set out to its contractor, or returns it to the office (one transaction, the set locked). */
async function moveKeySet(
  db: Db,
  principal: Principal,
  requestId: string,
  worksOrderId: string,
  move: "check_out" | "return",
): Promise<WorksOrder> {
  const { workspaceId } = principal;
  return db.begin(async (tx) => {
    const row = await lockWorksOrder(tx, workspaceId, worksOrderId);
    if (!row) throw new WorksOrderNotFound({ worksOrderId });
    if (row.keySetId === null) throw new WorksOrderHasNoKeySet({ worksOrderId: row.id });
    // For update: of two check-outs (or a check-out and a return) of the set, the second waits and sees the first.
    const set = await lockKeySet(tx, workspaceId, row.keySetId);
    if (!set) throw new Error(`key set ${row.keySetId} vanished`); // the order's foreign key keeps it
    const withContractor =
      set.status === "checked_out" &&
      set.holderType === "contractor" &&
      set.holderContactId === row.contractorContactId;
    if (move === "check_out") {
      if (withContractor) return worksOrderAnswer(row);
      if (!openWorksOrderStatuses.includes(row.status))
        throw new WorksOrderClosed({ worksOrderId: row.id, status: row.status });
      if (set.status === "lost") throw new KeySetLost({ keySetId: set.id });
      if (set.status === "checked_out")
        throw new KeySetCheckedOut({ keySetId: set.id, holderType: set.holderType, holderName: set.holderName });
      const name = (await contactName(tx, workspaceId, row.contractorContactId)) ?? "";
      await setKeySetHolder(tx, workspaceId, set.id, { kind: "contractor", contactId: row.contractorContactId, name });
    } else {
      if (set.status === "in_office") return worksOrderAnswer(row);
      if (!withContractor)
        throw new KeySetNotWithContractor({
          keySetId: set.id,
          status: set.status,
          holderType: set.holderType,
          holderName: set.holderName,
        });
      await setKeySetHolder(tx, workspaceId, set.id, { kind: "office" });
    }
    const order = worksOrderAnswer((await worksOrderRow(tx, workspaceId, row.id))!);
    await recordKeyWrite(tx, principal, requestId, {
      action: move === "check_out" ? "works_order_key_set_checked_out" : "works_order_key_set_returned",
      subjectKind: "works_order",
      subject: order,
      detail: {
        keySetId: set.id,
        keySetReference: order.keySet?.reference ?? null,
        contractorContactId: row.contractorContactId,
        from: { status: set.status, holderType: set.holderType, holderContactId: set.holderContactId },
      },
      events: [],
    });
    return order;
  });
}

/** Checks the works order's key set out to its contractor. */
export const checkOutWorksOrderKeySet = operation({
  id: "maintenancePro.checkOutWorksOrderKeySet",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/works-orders/:id/key-set/check-out",
  summary: "Checks the works order's key set out to its contractor.",
  description: [
    "Records that the contractor has the order's key set: status `checked_out`, holder type `contractor`, holder " +
      "the order's contractor (its contact id and name). Answers 200 with the order, `keySet.withContractor` true. " +
      "The contractor's page then says they have it.",
    keySetRules,
    "A set already checked out to the order's contractor answers 200 with the order unchanged and writes nothing " +
      "(whatever the order's status): repeating the call is safe. Of two check-outs of the same set at once for " +
      "different contractors (two orders naming it), exactly one wins; the other is refused with `KeySetCheckedOut`.",
    "Refusals, in this order, the first that fails answering: an unknown order or one of another workspace (404 " +
      "`WorksOrderNotFound {worksOrderId}`), an order that names no key set (409 `WorksOrderHasNoKeySet " +
      "{worksOrderId}`), a `declined`, `completed` or `cancelled` order (409 `WorksOrderClosed {worksOrderId, " +
      "status}`), a lost set (409 `KeySetLost {keySetId}`), a set checked out to anyone other than the order's " +
      "contractor (409 `KeySetCheckedOut {keySetId, holderType, holderName}`: who has it, as recorded). A refusal " +
      "writes nothing.",
    "A check-out is recorded in the activity log (`maintenance-pro.works_order_key_set_checked_out`, with the key " +
      "id and its user, the set and who held it before), in the same transaction. No event is recorded.",
    orderShape,
  ].join("\n\n"),
  params,
  response: WorksOrder,
  errors: [WorksOrderNotFound, WorksOrderHasNoKeySet, WorksOrderClosed, KeySetLost, KeySetCheckedOut],
  hints: { idempotent: true },
  run: ({ db, principal, params, requestId }) => moveKeySet(db, principal, requestId, params.id, "check_out"),
});

/** Returns the works order's key set from its contractor to the office. */
export const returnWorksOrderKeySet = operation({
  id: "maintenancePro.returnWorksOrderKeySet",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/works-orders/:id/key-set/return",
  summary: "Records the works order's key set back in the office from its contractor.",
  description: [
    "Records that the order's contractor brought the key set back: status `in_office`, holder type `office`, no " +
      "holder contact, holder name empty. Answers 200 with the order, `keySet.status` `in_office`. Allowed in " +
      "every status of the order, also after it completed or was cancelled.",
    keySetRules,
    "A set already in the office answers 200 with the order unchanged and writes nothing: repeating the call is " +
      "safe.",
    "Refusals, in this order, the first that fails answering: an unknown order or one of another workspace (404 " +
      "`WorksOrderNotFound {worksOrderId}`), an order that names no key set (409 `WorksOrderHasNoKeySet " +
      "{worksOrderId}`), a set that is not out with the order's contractor: lost, or checked out to anyone else " +
      "(409 `KeySetNotWithContractor {keySetId, status, holderType, holderName}`). A refusal writes nothing.",
    "A return is recorded in the activity log (`maintenance-pro.works_order_key_set_returned`, with the key id and " +
      "its user), in the same transaction. No event is recorded.",
    orderShape,
  ].join("\n\n"),
  params,
  response: WorksOrder,
  errors: [WorksOrderNotFound, WorksOrderHasNoKeySet, KeySetNotWithContractor],
  hints: { idempotent: true },
  run: ({ db, principal, params, requestId }) => moveKeySet(db, principal, requestId, params.id, "return"),
});

/** Every works order operation, in the order of the group's documentation. */
export const worksOrderOperations = [
  raiseWorksOrder,
  worksOrder,
  worksOrders,
  cancelWorksOrder,
  checkOutWorksOrderKeySet,
  returnWorksOrderKeySet,
];
