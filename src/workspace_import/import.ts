/**
 * Loads a workspace document (README, The import document) in one transaction: validate, check references, write,
 * or nothing at all.
 */
import { isConnectionError, type Db, type Tx } from "../core/db.ts";
import { recordActivity } from "../core/activity.ts";
import { AppError } from "../core/errors.ts";
import { workspaceIdOf } from "../core/workspaces.ts";
import { recordEvent } from "../events/record.ts";
import { ImportRejected } from "./errors.ts";
import { workspaceImported } from "./events.ts";
import { planImport, type Plan } from "./plan.ts";
import { checkAgainstWorkspace } from "./references.ts";
import {
  bumpInvoiceRevisions,
  demoteOwnersExcept,
  lockWorkspace,
  ownerCount,
  setRegime,
  writeTable,
} from "./queries.ts";
import { withStoredDues } from "./repair_records.ts";
import { invoiceChildren, tableOrder, type Row } from "./tables.ts";
import { readWorkingCalendar } from "../maintenance_pro/bank_holidays.ts";
import { validateDocument } from "./validate.ts";

/** Validates and plans a document without touching a database; throws ImportRejected. */
export function prepareDocument(doc: unknown): Plan {
  return planImport(validateDocument(doc));
}

/** Imports a document into the workspace with that slug; returns counts per collection. */
export async function importWorkspace(db: Db, slug: string, doc: unknown): Promise<Record<string, number>> {
  const plan = prepareDocument(doc);
  const workspaceId = await workspaceIdOf(db, slug);
  await db.begin((tx) => loadPlan(tx, workspaceId, plan));
  return plan.counts;
}

/**
 * The planned repairs with the due instants the API's writes store, from the clocks each will have with the working
 * calendar as stored (which clocks are open depends on neither the basis nor now).
 */
async function repairsWithDues(tx: Tx, rows: Row<"repairs">[]): Promise<Row<"repairs">[]> {
  const context = { calendar: await readWorkingCalendar(tx), prsInForceFrom: null, now: new Date().toISOString() };
  return withStoredDues(rows, context);
}

/**
 * Writes a planned document into a workspace inside the caller's transaction, after checking it against the stored
 * records. Any failure throws, and the caller's rollback leaves nothing written.
 */
export async function loadPlan(tx: Tx, workspaceId: string, plan: Plan): Promise<void> {
  await lockWorkspace(tx, workspaceId);
  await checkAgainstWorkspace(tx, workspaceId, plan);
  if (plan.owner) await demoteOwnersExcept(tx, workspaceId, plan.owner.id);
  const invoicesWritten = new Set<string>();
  let written = 0;
  const invoicesTouched = new Set<string>();
  const repairs = plan.rows.repairs?.length ? await repairsWithDues(tx, plan.rows.repairs) : [];
  for (const table of tableOrder) {
    const rows = table === "repairs" ? repairs : (plan.rows[table] ?? []);
    const parents = plan.parents[table] ?? [];
    if (!rows.length && !parents.length) continue;
    const isInvoice = table === "contractor_invoices";
    const isChild = invoiceChildren.includes(table);
    let changed: string[];
    try {
      const result = await writeTable(tx, workspaceId, table, rows, parents, isInvoice || isChild);
      changed = result.changed;
      written += result.written;
    } catch (error) {
      // The checks above should leave nothing for the database to refuse; if it does, say which table.
      if (error instanceof AppError || isConnectionError(error)) throw error;
      // A refusal during COPY says where: "COPY import_<table>, line N[, column C]: <the row or value>".
      const where = (error as { where?: string }).where?.split(": ")[0];
      throw new ImportRejected({
        path: "",
        message: `The database refused the ${table} rows: ${(error as Error).message}${where ? ` (${where})` : ""}`,
      });
    }
    for (const id of changed) (isInvoice ? invoicesWritten : isChild ? invoicesTouched : undefined)?.add(id);
  }
  await bumpInvoiceRevisions(
    tx,
    workspaceId,
    [...invoicesTouched].filter((id) => !invoicesWritten.has(id)),
  );
  if (plan.regime) {
    const { changed, revision } = await setRegime(tx, workspaceId, plan.regime);
    if (changed) {
      written++;
      await recordActivity(tx, {
        workspaceId,
        keyId: null,
        action: "maintenance-pro.hazard_settings_imported",
        subjectKind: "hazard_settings",
        subjectId: workspaceId,
        detail: { regime: plan.regime, revision },
      });
    }
  }
  if ((await ownerCount(tx, workspaceId)) !== 1) {
    throw new ImportRejected({ path: "/users", message: "After the import the workspace must have exactly one owner" });
  }
  // A document that changed nothing (loaded again) records nothing, like an idempotent replay.
  if (written === 0) return;
  await recordEvent(tx, workspaceImported, {
    workspaceId,
    subjectId: workspaceId,
    data: plan.counts,
    requestId: null,
    actor: { kind: "cli", id: null },
  });
}
