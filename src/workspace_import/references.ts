/** The checks that need the workspace's stored records: references, nested records' parents, handovers, the owner. */
import type { Tx } from "../core/db.ts";
import { ImportRejected } from "./errors.ts";
import { nameOf, type Attributes, type Plan, type Target } from "./plan.ts";
import { storedHandovers, storedOwner, storedParents, storedRecords } from "./queries.ts";

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const parentNames: Record<string, string> = {
  block_fact_history: "block",
  inspection_findings: "inspection",
  contractor_invoice_lines: "invoice",
  contractor_payments: "invoice",
  contractor_credit_notes: "invoice",
  contractor_recoveries: "invoice",
  contractor_limit_overrides: "invoice",
};

/**
 * Throws ImportRejected, naming the offending record's path, at the
 * first rule the document breaks against the workspace.
 */
export async function checkAgainstWorkspace(tx: Tx, workspaceId: string, plan: Plan): Promise<void> {
  // References: in the document, else in the workspace. A record in the document wins over its stored version.
  const missing = groupBy(
    plan.refs.filter((r) => !plan.known[r.target].has(r.id)),
    (r) => r.target,
  );
  const stored = new Map<Target, Map<string, Attributes>>();
  for (const [target, refs] of missing) {
    stored.set(target, await storedRecords(tx, workspaceId, target, [...new Set(refs.map((r) => r.id))]));
  }
  for (const r of plan.refs) {
    const found = plan.known[r.target].get(r.id) ?? stored.get(r.target)?.get(r.id);
    if (!found)
      throw new ImportRejected({
        path: r.path,
        message: `"${r.id}" names no ${nameOf(r.target)} in the document or the workspace`,
      });
    if (r.expect && found[r.expect.attribute] !== r.expect.value) {
      throw new ImportRejected({ path: r.path, message: `"${r.id}" ${r.expect.message}` });
    }
  }

  // A nested record keeps its parent: a payment of one invoice cannot become another invoice's.
  for (const [table, claims] of groupBy(plan.claims, (c) => c.table)) {
    const parents = await storedParents(
      tx,
      workspaceId,
      table,
      claims[0]!.parentColumn,
      claims.map((c) => c.id),
    );
    for (const c of claims) {
      const was = parents.get(c.id);
      if (was !== undefined && was !== c.parent) {
        throw new ImportRejected({
          path: `${c.path}/id`,
          message: `"${c.id}" already belongs to ${parentNames[table]} "${was}" in the workspace`,
        });
      }
    }
  }

  // One handover per tenancy and direction, counting the stored ones the document does not replace.
  if (plan.handovers.length) {
    const inDocument = new Set(plan.handovers.map((h) => h.id));
    const taken = new Map<string, string>();
    for (const h of await storedHandovers(tx, workspaceId, [...new Set(plan.handovers.map((h) => h.tenancyId))])) {
      if (!inDocument.has(h.id)) taken.set(`${h.tenancyId} ${h.direction}`, h.id);
    }
    for (const h of plan.handovers) {
      const other = taken.get(`${h.tenancyId} ${h.direction}`);
      if (other) {
        throw new ImportRejected({
          path: `${h.path}/direction`,
          message: `Tenancy "${h.tenancyId}" already has a ${h.direction} handover "${other}"`,
        });
      }
    }
  }

  // Exactly one owner afterwards.
  if (!plan.owner) {
    const owner = await storedOwner(tx, workspaceId);
    if (!owner)
      throw new ImportRejected({
        path: "/users",
        message: "The workspace has no owner yet: the document must name a user with role owner",
      });
    const demoted = plan.users.find((u) => u.id === owner);
    if (demoted) {
      throw new ImportRejected({
        path: `${demoted.path}/role`,
        message: `"${owner}" is the workspace's owner; to change the owner, give another user the role owner`,
      });
    }
  }
}
