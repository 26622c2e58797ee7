/** A validated document turned into table rows, and the references and rules to check before writing. Pure. */
import { declarations, type Planner } from "./collections.ts";
import { ImportRejected } from "./errors.ts";
import { collections, type WorkspaceDoc } from "./schema.ts";
import type { Row, Rows, TableName } from "./tables.ts";

/** A kind of record another record can name. */
export type Target =
  | "users"
  | "contacts"
  | "properties"
  | "blocks"
  | "units"
  | "tenancies"
  | "repairs"
  | "tasks"
  | "inspections"
  | "keySets"
  | "contractorInvoices";

/** Facts about a record that reference rules look at (contact kind, unit's property, tenancy's unit). */
export type Attributes = Record<string, string | null>;

/** A reference to check: `id` must name a `target` in the document or the workspace, with `expect` holding. */
export interface Ref {
  target: Target;
  id: string;
  path: string;
  expect?: { attribute: string; value: string | null; message: string };
}

/** A nested record with its own id (a finding, a payment…) that must not belong to another parent already. */
export interface Claim {
  table: TableName;
  parentColumn: string;
  id: string;
  parent: string;
  path: string;
}

/** Everything the writer and the reference check need. */
export interface Plan {
  counts: Record<string, number>;
  rows: Rows;
  /** For nested lists: the parents whose lists the document gives in full. */
  parents: Partial<Record<TableName, string[]>>;
  refs: Ref[];
  claims: Claim[];
  handovers: { id: string; tenancyId: string; direction: string; path: string }[];
  users: { id: string; role: string; path: string }[];
  owner: { id: string; path: string } | null;
  regime: string | null;
  /** The document's own records, with the attributes references look at. */
  known: Record<Target, Map<string, Attributes>>;
}

const singular: Record<Target, string> = {
  users: "user",
  contacts: "contact",
  properties: "property",
  blocks: "block",
  units: "unit",
  tenancies: "tenancy",
  repairs: "repair",
  tasks: "task",
  inspections: "inspection",
  keySets: "key set",
  contractorInvoices: "contractor invoice",
};

/** The name of a record kind, for messages. */
export function nameOf(target: Target): string {
  return singular[target];
}

/** Turns a validated document into a plan; throws ImportRejected for rules that need nothing but the document. */
export function planImport(doc: WorkspaceDoc): Plan {
  const rows: Plan["rows"] = {};
  const add = <N extends TableName>(table: N, row: Row<N>) => {
    rows[table] ??= [];
    (rows[table] as Row<N>[]).push(row);
  };
  const parents: Plan["parents"] = {};
  const parent = (table: TableName, id: string) => {
    parents[table] ??= [];
    parents[table].push(id);
  };
  const refs: Ref[] = [];
  const claims: Claim[] = [];
  const known = Object.fromEntries(Object.keys(singular).map((k) => [k, new Map()])) as Plan["known"];
  const seen = new Map<string, string>();

  /** Registers an id of a kind; a second record with the same id is refused. */
  const unique = (kind: string, id: string, path: string) => {
    const key = `${kind}\u0000${id}`;
    const first = seen.get(key);
    if (first !== undefined) throw new ImportRejected({ path, message: `Duplicate ${kind} "${id}": also at ${first}` });
    seen.set(key, path);
  };
  const ref = (target: Target, id: string | null | undefined, path: string, field: string, expect?: Ref["expect"]) => {
    if (id != null) refs.push({ target, id, path: `${path}/${field}`, expect });
  };
  const claim = (table: TableName, parentColumn: string, id: string, parentId: string, path: string) =>
    claims.push({ table, parentColumn, id, parent: parentId, path });

  const state: Planner["plan"] = { users: [], owner: null, handovers: [] };
  const planner: Planner = { add, unique, ref, claim, known, parent, plan: state, authorisations: new Map() };

  for (const c of declarations) c.plan(planner, doc);

  const counts: Record<string, number> = {};
  for (const c of collections) {
    const value = doc[c];
    counts[c] = Array.isArray(value) ? value.length : value ? 1 : 0;
  }
  return {
    counts,
    rows,
    parents,
    refs,
    claims,
    handovers: state.handovers,
    users: state.users,
    owner: state.owner,
    regime: doc.hazardSettings?.regime ?? null,
    known,
  };
}
