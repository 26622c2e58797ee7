/**
 * The workspace document of a workspace (README, The import document): every collection the import takes, each
 * record with the fields the import takes and its id, read in one snapshot. What the import computes (clocks, due
 * instants, invoice totals and status, match keys, revisions) is never exported, so `import` recomputes it.
 */
import type { Db, Tx } from "../core/db.ts";
import { collections, type WorkspaceDoc } from "../workspace_import/schema.ts";
import * as read from "./queries.ts";

type Collection = (typeof collections)[number];

/** The reader of each collection of the document: a collection the import gains fails to compile until read. */
const readers: { [C in Collection]: (tx: Tx, workspaceId: string) => Promise<NonNullable<WorkspaceDoc[C]>> } = {
  users: read.users,
  entitlements: read.entitlements,
  hazardSettings: read.hazardSettings,
  contacts: read.contacts,
  companyPeople: read.companyPeople,
  properties: read.properties,
  blocks: read.blocks,
  units: read.units,
  tenancies: read.tenancies,
  handovers: read.handovers,
  repairs: read.repairs,
  tasks: read.tasks,
  inspections: read.inspections,
  keySets: read.keySets,
  keyReports: read.keyReports,
  contractorInvoices: read.contractorInvoices,
  calendarEvents: read.calendarEvents,
  smsThreads: read.smsThreads,
  landlordPortalAccess: read.landlordPortalAccess,
  onboardingCheckouts: read.onboardingCheckouts,
};

/**
 * The document of the workspace with that id: every collection, in the import's order (empty ones as []), records
 * by id, so two exports of the same data are the same text. One read-only repeatable-read transaction: the
 * collections agree with each other even while writes go on.
 */
export async function exportWorkspace(db: Db, workspaceId: string): Promise<WorkspaceDoc> {
  return db.begin("isolation level repeatable read read only", async (tx) => {
    const found = await Promise.all(collections.map((c) => readers[c](tx, workspaceId)));
    return Object.fromEntries(collections.map((c, i) => [c, found[i]])) as WorkspaceDoc;
  });
}
