/** The requestId ledger: a retry with the same requestId replays the first answer byte for byte. */
import { createHash } from "node:crypto";
import type { Tx } from "./db.ts";
import { RequestIdReused } from "./errors.ts";

/** A fingerprint of a request body: SHA-256 of its JSON with keys sorted. */
export function fingerprint(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v;
  return createHash("sha256").update(JSON.stringify(canonical(value))).digest("hex");
}

/** The answer of an idempotent write: the stored body text, and whether this was a replay. */
export interface LedgerAnswer {
  status: number;
  bodyText: string;
  replayed: boolean;
}

/**
 * Runs `create` at most once per (workspace, operation, requestId), inside the caller's transaction.
 * The ledger row is inserted first: a concurrent duplicate blocks on it until the first commits, then
 * replays it; if the first rolls back, the duplicate runs instead. A different body → RequestIdReused.
 */
export async function idempotent(
  tx: Tx,
  key: { workspaceId: string; operationId: string; requestId: string; body: unknown },
  create: () => Promise<{ status: number; body: unknown }>,
): Promise<LedgerAnswer> {
  const print = fingerprint(key.body);
  const inserted = await tx`
    insert into idempotency_ledger (workspace_id, operation_id, request_id, fingerprint, status, body)
    values (${key.workspaceId}, ${key.operationId}, ${key.requestId}, ${print}, 0, '')
    on conflict do nothing
    returning 1`;
  if (inserted.length === 0) {
    const [prior] = await tx<{ fingerprint: string; status: number; body: string }[]>`
      select fingerprint, status, body from idempotency_ledger
      where workspace_id = ${key.workspaceId} and operation_id = ${key.operationId} and request_id = ${key.requestId}`;
    if (!prior || prior.fingerprint !== print) throw new RequestIdReused({ requestId: key.requestId });
    return { status: prior.status, bodyText: prior.body, replayed: true };
  }
  const result = await create();
  const bodyText = JSON.stringify(result.body);
  await tx`
    update idempotency_ledger set status = ${result.status}, body = ${bodyText}
    where workspace_id = ${key.workspaceId} and operation_id = ${key.operationId} and request_id = ${key.requestId}`;
  return { status: result.status, bodyText, replayed: false };
}

/** Deletes ledger entries older than `days` (at least 30 by contract); returns how many. */
export async function purgeLedger(db: Tx | import("./db.ts").Db, days = 30): Promise<number> {
  const rows = await db`delete from idempotency_ledger where created_at < now() - make_interval(days => ${Math.max(30, days)}) returning 1`;
  return rows.length;
}
