/**
 * Another workspace's ids, wherever a request names them (the path, a query filter, a body field), behave exactly as
 * unknown ids: the same answer, no row of that workspace in it, and none of its rows changed.
 */
import { describe, expect, test } from "bun:test";
import type { TObject, TSchema } from "@sinclair/typebox";
import { ulid } from "ulid";
import { harness, type TestResponse } from "./support/harness.ts";
import { dumpDatabase, dumpWorkspace, idsOfWorkspace } from "./support/dump.ts";
import { insertThread } from "./telephony/fixtures.ts";
import { seedInvoice } from "./contractor_invoices/fixtures.ts";
import { addPhotos } from "./maintenance_pro/photo_fixtures.ts";
import { operations } from "../src/operations.ts";
import type { Operation } from "../src/core/operation.ts";
import { Id } from "../src/core/schema.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { ensureDemo } from "../src/workspace_import/demo.ts";

const h = await harness();
const db = h.database.db;
await ensureDemo(db);
const intruder = await h.workspace();
// The victim is the demo workspace: every kind of row, with imported (readable, clashable) ids.
const [{ id: victim }] = await db<[{ id: string }]>`select id from workspaces where slug = 'demo'`;
const victimKey = (
  await createApiKey(db, { workspace: "demo", name: "victim", scopes: [...allScopes], expiresInDays: 7 })
).key;
// A repair the victim reported on one of its tenancies, so that list filters by tenancy find rows of the victim.
{
  const [t] = await db<[{ id: string; unitId: string; propertyId: string }]>`
    select t.id, t.unit_id, u.property_id from tenancies t join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    where t.workspace_id = ${victim} order by t.id limit 1`;
  const res = await h.request("POST", "/maintenance-pro/repairs", {
    key: victimKey,
    body: {
      propertyId: t.propertyId,
      tenancyId: t.id,
      title: "The victim's repair",
      category: "leak",
      reporter: { kind: "staff" },
      channel: "phone",
    },
  });
  if (res.status !== 201) throw new Error(`the victim's repair was refused: ${res.text}`);
  // A works order on it for one of the victim's contractors, so that the works orders list finds rows of the victim.
  const [c] = await db<[{ id: string }]>`
    select id from contacts where workspace_id = ${victim} and 'contractor' = any(roles) order by id limit 1`;
  const order = await h.request("POST", `/maintenance-pro/repairs/${res.body.id}/works-orders`, {
    key: victimKey,
    body: { contractorContactId: c.id, purpose: "repair", instructions: "Fix the leak" },
  });
  if (order.status !== 201) throw new Error(`the victim's works order was refused: ${order.text}`);
  // A photo of it, so that a photo id of the victim can be named.
  await addPhotos(db, { workspaceId: victim, repairId: res.body.id }, [[4, 3]]);
}
const victimIds = await idsOfWorkspace(db, victim);
const one = async (rows: Promise<{ id: string }[]>) => (await rows)[0]!.id;

/** What a request names: path parameters, query parameters, a body. */
interface Input {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

/** Sends `input` to an operation with a key. */
function send(op: Operation, input: Input, key: string): Promise<TestResponse> {
  const path = op.path.replace(/:([A-Za-z]+)/g, (_, name) => encodeURIComponent(input.params?.[name] ?? ""));
  const search = new URLSearchParams(input.query).toString();
  return h.request(op.method, search ? `${path}?${search}` : path, {
    key,
    body: input.body ?? (op.method === "GET" ? undefined : {}),
  });
}

/** An answer as compared: status, replay header, and body with the id sent, minted ids and instants masked. */
function comparable(res: TestResponse, sent: string) {
  const mask = (value: unknown): unknown => {
    if (value === sent) return "<the id sent>";
    if (typeof value === "string" && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value)) return "<minted id>";
    if (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value)) return "<instant>";
    if (typeof value === "string" && /^R-\d+(\/\d+)?$/.test(value)) return "<minted reference>"; // repair or order
    if (Array.isArray(value)) return value.map(mask);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v)]));
    return value;
  };
  return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: mask(res.body) };
}

/** The victim's ids an answer holds, other than the one the request sent. */
function victimIdsIn(value: unknown, sent: string): string[] {
  if (typeof value === "string") return value !== sent && victimIds.has(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => victimIdsIn(v, sent));
  if (value && typeof value === "object") return Object.values(value).flatMap((v) => victimIdsIn(v, sent));
  return [];
}

/**
 * Asks as the intruder with the victim's id and with an id no workspace has: both answers must be the same, hold
 * no other id of the victim, and leave every row of the victim as it was. Returns the answer to the victim's id.
 */
async function expectAsUnknown(op: Operation, victimId: string, input: (id: string) => Promise<Input>) {
  const unknownId = `unknown-${ulid()}`;
  const before = await dumpWorkspace(db, victim);
  const withVictimId = await send(op, await input(victimId), intruder.key);
  const withUnknownId = await send(op, await input(unknownId), intruder.key);
  expect(comparable(withVictimId, victimId)).toEqual(comparable(withUnknownId, unknownId));
  expect(victimIdsIn(withVictimId.body, victimId)).toEqual([]);
  expect(await dumpWorkspace(db, victim)).toEqual(before);
  return withVictimId;
}

describe("another workspace's ids in the path", () => {
  /** For each operation that takes an id in its path: a record of the victim it could name, and a body to send. */
  const targets: Record<
    string,
    {
      param: string;
      victimId: () => Promise<string>;
      notFound: string;
      body?: Record<string, unknown>;
      /** The path's other parameters. */
      more?: () => Promise<Record<string, string>>;
    }
  > = {
    "handovers.forTenancy": {
      param: "tenancyId",
      notFound: "HandoverNotFound",
      victimId: () => one(db`select id from tenancies where workspace_id = ${victim} limit 1`),
    },
    "keys.setReports": {
      param: "id",
      victimId: () => one(db`select key_set_id as id from key_reports where workspace_id = ${victim} limit 1`),
      notFound: "KeySetNotFound",
    },
    "contractorInvoices.correctPayment": {
      param: "id",
      victimId: () =>
        one(db`select id from contractor_payments where workspace_id = ${victim} and corrected_at is null limit 1`),
      notFound: "PaymentNotFound",
      body: { reason: "not ours" },
    },
    "tasks.cancel": {
      param: "id",
      victimId: () => one(db`select id from tasks where workspace_id = ${victim} and status = 'open' limit 1`),
      notFound: "TaskNotFound",
    },
    "maintenancePro.inviteLandlord": {
      param: "contactId",
      notFound: "ContactNotFound",
      victimId: () =>
        one(
          db`select id from contacts where workspace_id = ${victim} and 'landlord' = any(roles) and email is not null limit 1`,
        ),
    },
    "telephony.sendSms": {
      param: "id",
      victimId: () => one(db`select id from sms_threads where workspace_id = ${victim} and not stopped limit 1`),
      notFound: "SmsThreadNotFound",
      body: { body: "Hello from another workspace" },
    },
    ...Object.fromEntries(
      [
        ["maintenancePro.repair", undefined],
        ["maintenancePro.triageRepair", { expectedRevision: 1, hazard: "none" }],
        [
          "maintenancePro.recordRepairMilestone",
          { expectedRevision: 1, kind: "made_safe", at: "2026-01-01T00:00:00Z" },
        ],
        ["maintenancePro.recordAccessAttempt", { at: "2026-01-01T00:00:00Z", outcome: "granted" }],
        ["maintenancePro.cancelRepair", { reason: "Not ours" }],
        ["maintenancePro.repairPhotos", undefined],
      ].map(([id, body]) => [
        id,
        {
          param: "id",
          notFound: "RepairNotFound",
          victimId: () => one(db`select id from repairs where workspace_id = ${victim} order by id limit 1`),
          body,
        },
      ]),
    ),
    "maintenancePro.repairPhoto": {
      param: "photoId",
      // Named with the victim's repair as well: still no such photo in the intruder's workspace.
      more: async () => ({
        id: await one(db`select repair_id as id from repair_photos where workspace_id = ${victim}`),
      }),
      victimId: () => one(db`select id from repair_photos where workspace_id = ${victim} order by id limit 1`),
      notFound: "PhotoNotFound",
    },
    "maintenancePro.raiseWorksOrder": {
      param: "id",
      notFound: "RepairNotFound",
      victimId: () => one(db`select id from repairs where workspace_id = ${victim} order by id limit 1`),
      body: { contractorContactId: "con-x", purpose: "repair", instructions: "Not ours" },
    },
    ...Object.fromEntries(
      [
        ["maintenancePro.worksOrder", undefined],
        ["maintenancePro.cancelWorksOrder", { expectedRevision: 1, reason: "Not ours" }],
        ["maintenancePro.checkOutWorksOrderKeySet", undefined],
        ["maintenancePro.returnWorksOrderKeySet", undefined],
      ].map(([id, body]) => [
        id,
        {
          param: "id",
          notFound: "WorksOrderNotFound",
          victimId: () => one(db`select id from works_orders where workspace_id = ${victim} order by id limit 1`),
          body,
        },
      ]),
    ),
    "telephony.smsMessages": {
      param: "id",
      victimId: () => one(db`select id from sms_threads where workspace_id = ${victim} limit 1`),
      notFound: "SmsThreadNotFound",
    },
  };

  test("every operation with a path id is covered here", () => {
    const withIds = operations
      .filter((o) => o.path.includes(":"))
      .map((o) => o.id)
      .sort();
    expect(Object.keys(targets).sort()).toEqual(withIds);
  });

  test.each(Object.keys(targets))("%s answers 404 as for an unknown id and changes nothing", async (id) => {
    const op = operations.find((o) => o.id === id)!;
    const { param, victimId, notFound, body, more } = targets[id]!;
    const others = (await more?.()) ?? {};
    // A refusal changes no row of any workspace; the intruder's own bucket moves (it spends its own budget).
    const everything = async () => {
      const { rate_buckets: _, ...rest } = await dumpDatabase(db);
      return rest;
    };
    const before = await everything();
    const res = await expectAsUnknown(op, await victimId(), async (value) => ({
      params: { ...others, [param]: value },
      body,
    }));
    expect(res.status).toBe(404);
    expect(res.body._tag).toBe(notFound);
    expect(await everything()).toEqual(before);
  });
});

/** A query or body field that names a record or a request: one named `…Id`, or one with the Id schema. */
interface IdField {
  op: Operation;
  where: "query" | "body";
  name: string;
}

/** Whether a schema is the Id helper (perhaps with its own description); a cursor shares its pattern, not its length. */
const isIdSchema = (schema: TSchema) => schema.pattern === Id.pattern && schema.maxLength === Id.maxLength;

/** Every id field of the query and body of every operation. */
function idFields(): IdField[] {
  return operations.flatMap((op) =>
    (["query", "body"] as const).flatMap((where) =>
      Object.entries((op[where] as TObject | undefined)?.properties ?? {})
        .filter(([name, schema]: [string, TSchema]) => name.endsWith("Id") || isIdSchema(schema))
        .map(([name]) => ({ op, where, name })),
    ),
  );
}

/** The earliest London date of the victim's events, and 90 days on: an agenda window holding its events. */
const [window] = await db<[{ from: string; to: string }]>`
  select ymd(d) as from, ymd(d + 90) as to
  from (select (min(starts_at) at time zone 'Europe/London')::date as d from calendar_events where workspace_id = ${victim}) m`;

const ids = async (rows: Promise<{ id: string }[]>) => (await rows).map((r) => r.id);

/**
 * The victim's ids a field of each name can hold. A new operation with a field of one of these names is covered
 * without a change here.
 */
const victimIdsOf: Record<string, (op: Operation) => Promise<string[]>> = {
  propertyId: () => ids(db`select id from properties where workspace_id = ${victim} order by id`),
  unitId: () => ids(db`select id from units where workspace_id = ${victim} order by id`),
  tenancyId: () => ids(db`select id from tenancies where workspace_id = ${victim} order by id`),
  staffId: () => ids(db`select id from users where workspace_id = ${victim} order by id`),
  contactId: () => ids(db`select id from contacts where workspace_id = ${victim} order by id`),
  contractorContactId: () =>
    ids(db`select id from contacts where workspace_id = ${victim} and 'contractor' = any(roles) order by id`),
  repairId: () => ids(db`select id from repairs where workspace_id = ${victim} order by id`),
  keySetId: () => ids(db`select id from key_sets where workspace_id = ${victim} order by id`),
  // A requestId the victim used for this very operation: the intruder's request must neither replay nor refuse it.
  requestId: async (op) => {
    const requestId = `victims-request-${op.id}`;
    await db`
      insert into idempotency_ledger (workspace_id, operation_id, request_id, fingerprint, status, body)
      values (${victim}, ${op.id}, ${requestId}, 'the victim''s body', 201, '{"victim":true}')
      on conflict do nothing`;
    return [requestId];
  },
  // The subject of an event the victim's workspace recorded.
  subjectId: async () => {
    await db`
      insert into events (workspace_id, id, type, subject_kind, subject_id, data, actor_kind)
      values (${victim}, 'victims-event', 'company.created', 'company', 'victims-company', '{}', 'cli')
      on conflict do nothing`;
    return ids(db`select subject_id as id from events where workspace_id = ${victim} order by id`);
  },
};

/** What an operation needs besides the id field: its path parameters (the intruder's own rows) and required fields. */
const inputOf: Record<string, () => Promise<Input>> = {
  "calendar.agenda": async () => ({ query: { from: window.from, to: window.to } }),
  "contacts.createCompany": async () => ({ body: { name: "Intruder Holdings Ltd" } }),
  "maintenancePro.reportRepair": async () => ({
    body: {
      propertyId: await h.rows(intruder).property(),
      title: "A leak",
      category: "leak",
      reporter: { kind: "tenant" },
      channel: "phone",
    },
  }),
  "maintenancePro.raiseWorksOrder": async () => {
    const rows = h.rows(intruder);
    const contractorContactId = await rows.contact({ name: "Intruder Builders", roles: ["contractor"] });
    const res = await h.request("POST", "/maintenance-pro/repairs", {
      key: intruder.key,
      body: {
        propertyId: await rows.property(),
        title: "A leak",
        category: "leak",
        reporter: { kind: "tenant" },
        channel: "phone",
      },
    });
    return {
      params: { id: res.body.id },
      body: { contractorContactId, purpose: "repair", instructions: "Fix it" },
    };
  },
  "telephony.sendSms": async () => ({
    params: { id: await insertThread(db, intruder.id, { address: "+447700900777" }) },
    body: { body: "Hello" },
  }),
};

/** The request for one id field with the given id in it. */
async function withId(field: IdField, id: string): Promise<Input> {
  const input = (await inputOf[field.op.id]?.()) ?? {};
  return field.where === "query"
    ? { ...input, query: { ...input.query, [field.name]: id } }
    : { ...input, body: { ...input.body, [field.name]: id } };
}

const label = (f: IdField) => `${f.op.id} ${f.where}.${f.name}`;

/**
 * Fields whose id must name a record of the caller's workspace: the victim's id is refused exactly as an unknown one
 * (this status); every other field's request is answered.
 */
const refusedAs: Record<string, number> = {
  "maintenancePro.reportRepair body.propertyId": 404,
  "maintenancePro.reportRepair body.unitId": 400,
  "maintenancePro.reportRepair body.tenancyId": 400,
  "maintenancePro.raiseWorksOrder body.contractorContactId": 404,
  "maintenancePro.raiseWorksOrder body.keySetId": 400,
};

/** The victim's id to send in a field: for a read, the first that finds rows when the victim itself asks. */
async function victimIdFor(field: IdField): Promise<string> {
  const candidates = await victimIdsOf[field.name]!(field.op);
  if (field.op.method !== "GET") return candidates[0]!;
  for (const id of candidates) {
    const own = await send(field.op, await withId(field, id), victimKey);
    if (own.status === 200 && victimIdsIn(own.body, id).length > 0) return id;
  }
  throw new Error(`no id of the victim finds rows for ${label(field)}: the test would prove nothing`);
}

describe("another workspace's ids in the query or the body", () => {
  const fields = idFields();

  test("every id field has a source of the victim's ids, and every operation with one can be asked", () => {
    expect(fields.filter((f) => !victimIdsOf[f.name]).map(label)).toEqual([]);
    const needsInput = (op: Operation) =>
      op.path.includes(":") || ((op.body as TObject | undefined)?.required ?? []).length > 0;
    expect(fields.filter((f) => needsInput(f.op) && !inputOf[f.op.id]).map(label)).toEqual([]);
    // The ones the issue named are among them.
    expect(fields.map(label)).toEqual(
      expect.arrayContaining([
        "compliance.blockProfiles query.propertyId",
        "calendar.agenda query.staffId",
        "calendar.agenda query.propertyId",
        "calendar.agenda query.contactId",
        "telephony.smsThreads query.contactId",
      ]),
    );
  });

  test.each(fields.map((f) => [label(f), f] as const))(
    "%s: the victim's id answers as an unknown id, with none of its rows, and changes nothing",
    async (_label, field) => {
      const res = await expectAsUnknown(field.op, await victimIdFor(field), (id) => withId(field, id));
      if (refusedAs[label(field)]) expect(res.status).toBe(refusedAs[label(field)]!);
      else expect(res.status).toBeLessThan(300);
    },
  );
});

describe("a payment's invoice", () => {
  test("a payment and invoice with the same ids as another workspace's: correcting changes only the caller's", async () => {
    // Imported ids are the workspace's own: two workspaces can both hold invoice X with payment Y.
    const [{ paymentId, invoiceId }] = await db<[{ paymentId: string; invoiceId: string }]>`
      select id as payment_id, invoice_id from contractor_payments
      where workspace_id = ${victim} and corrected_at is null limit 1`;
    await seedInvoice(db, intruder.id, {
      id: invoiceId,
      approvedAt: "2026-03-01T09:00:00.000Z",
      lines: [{ netMinor: 10_000, vatMinor: 2_000 }],
      payments: [{ id: paymentId, amountMinor: 12_000 }],
    });
    const before = await dumpWorkspace(db, victim);
    const res = await h.request("POST", `/contractor-payments/${paymentId}/correct`, {
      key: intruder.key,
      body: { reason: "Entered twice" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invoiceId, status: "approved", paidMinor: 0, outstandingMinor: 12_000 });
    expect(res.body.payments).toEqual([expect.objectContaining({ id: paymentId, correctionReason: "Entered twice" })]);
    expect(await dumpWorkspace(db, victim)).toEqual(before);
  });
});
