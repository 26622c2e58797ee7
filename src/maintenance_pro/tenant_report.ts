/**
 * A repair reported by a tenant through the page of their link: channel `portal`, the tenant as reporter, the
 * link's tenancy and unit, `awareAt` the moment it was received. The form carries a one-off key, so a double submit
 * (the button pressed twice, the page sent again) creates one repair and answers it again; its reference is sent to
 * the tenant once (tenant_reference.ts).
 */
import { monotonicFactory, ulid } from "ulid";
import { recordActivity } from "../core/activity.ts";
import type { Db, Tx } from "../core/db.ts";
import { idempotent } from "../core/idempotency.ts";
import type { AppContext } from "../core/operation.ts";
import { recordEvent } from "../events/record.ts";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import { repairReported } from "./events.ts";
import { portalActor } from "./portal_access.ts";
import type { FormFields } from "./page_forms.ts";
import { insertPhotos, photoListed } from "./photo_queries.ts";
import type { Photo } from "./photos.ts";
import { insertRepair } from "./queries.ts";
import { repairAnswer, storedDues } from "./repair_rules.ts";
import { categories, type Repair } from "./repair_schema.ts";
import { ensureTenantLinkQueue, tenantLinkQueue } from "./tenant_link.ts";
import { insertRepairNotice, type TenantLinkView } from "./tenant_queries.ts";
import type { TenantReferenceJob } from "./tenant_reference.ts";

/** The most photos a report may carry. */
export const reportPhotosMax = 5;

/** Ids that grow within a process: a report's photos, stored at one instant, keep the order they were sent in. */
const photoId = monotonicFactory();

/** What the tenant's form sends, as read from it. */
export interface TenantReportForm {
  category: (typeof categories)[number];
  location: string;
  description: string;
  atRisk: boolean;
  /** The form's one-off key. */
  formKey: string;
}

/** The form's fields read and checked; a list of what to fix when something is missing. */
export function readReportForm(fields: FormFields): { form?: TenantReportForm; problems: string[] } {
  const problems: string[] = [];
  const category = fields.get("category") ?? "";
  if (!(categories as readonly string[]).includes(category)) problems.push("Please choose what is wrong.");
  const location = (fields.get("location") ?? "").trim().slice(0, 200);
  if (!location) problems.push("Please say where in the home it is.");
  const description = (fields.get("description") ?? "").trim().slice(0, 4000);
  if (!description) problems.push("Please describe the problem.");
  const risk = fields.get("risk");
  if (risk !== "yes" && risk !== "no") problems.push("Please say whether anyone is at risk now.");
  const formKey = fields.get("formKey") ?? "";
  if (!/^[A-Za-z0-9_-]{10,64}$/.test(formKey)) problems.push("Please send the form from its page.");
  if (problems.length) return { problems };
  const form = { category: category as TenantReportForm["category"], location, description, formKey };
  return { form: { ...form, atRisk: risk === "yes" }, problems };
}

/** A title for the agency's list: the description's first line, shortened. */
function titleOf(description: string): string {
  const line = description.split(/\r?\n/, 1)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** Records the tenant's report (or answers the repair the same form key already made). */
export async function reportByTenant(
  app: Pick<AppContext, "db" | "config" | "jobs">,
  db: Db,
  view: TenantLinkView,
  form: TenantReportForm,
  requestId: string,
  photos: readonly Photo[] = [],
): Promise<Repair> {
  const now = new Date().toISOString();
  const calendar = await currentWorkingCalendar(db);
  const context = { calendar, prsInForceFrom: app.config.prsInForceFrom, now };
  const { workspaceId } = view;
  const create = async (tx: Tx) => {
    const description = form.atRisk
      ? `${form.description}\n\nThe tenant says someone is at risk now.`
      : form.description;
    const fields = {
      workspaceId,
      id: ulid(),
      propertyId: view.propertyId,
      unitId: view.unitId,
      tenancyId: view.tenancyId,
      title: titleOf(form.description),
      description,
      location: form.location,
      category: form.category,
      reporter: { kind: "tenant" as const, contactId: view.contactId, name: view.tenantName },
      channel: "portal" as const,
      awareAt: now,
      status: "reported" as const,
      hazard: null,
      hhsrsHazard: null,
      regime: null,
      policyVersion: null,
      triagedAt: null,
      triagedByUserId: null,
      createdAt: now,
    };
    const dues = storedDues({ ...fields, milestones: [], cancelledAt: null }, context);
    const row = await insertRepair(tx, { ...fields, openDueAt: dues.first, openDueLastAt: dues.last });
    // The photos, kept with the repair in its transaction (ids in the order they were sent) and listed by it.
    const stored = await insertPhotos(
      tx,
      { workspaceId, repairId: row.id, worksOrderId: null, source: "tenant" },
      photos.map((photo) => ({ ...photo, id: photoId() })),
    );
    const repair = repairAnswer({ ...row, photos: stored.map(photoListed) }, context);
    await recordActivity(tx, {
      workspaceId,
      keyId: null,
      action: "maintenance-pro.repair_reported",
      subjectKind: "repair",
      subjectId: repair.id,
      detail: { reference: repair.reference, revision: repair.revision, channel: "portal", atRisk: form.atRisk },
    });
    await recordEvent(tx, repairReported, {
      workspaceId,
      subjectId: repair.id,
      data: repair,
      requestId,
      actor: portalActor,
    });
    // The tenant gets the reference by email (and SMS) too: a job sends it once (tenant_reference.ts).
    await insertRepairNotice(tx, { workspaceId, repairId: repair.id, contactId: view.contactId });
    const job: TenantReferenceJob = { kind: "reference", workspaceId, repairId: repair.id };
    await app.jobs.send(tx, tenantLinkQueue, job);
    return { status: 201, body: repair };
  };
  const key = {
    workspaceId,
    operationId: "maintenancePro.tenantReport",
    requestId: form.formKey,
    body: { tenancyId: view.tenancyId },
  };
  await ensureTenantLinkQueue(app.jobs);
  const answer = await db.begin((tx) => idempotent(tx, key, () => create(tx)));
  return JSON.parse(answer.bodyText) as Repair;
}
