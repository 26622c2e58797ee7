/** The requestId ledger: a retry with the same requestId replays the first answer byte for byte. */
import { createHash } from "node:crypto";
import type postgres from "postgres";
import type { Db, Tx } from "./db.ts";
import { RequestIdReused } from "./errors.ts";
import { RawJson, Reply } from "./operation.ts";

/** A fingerprint of a request body: SHA-256 of its JSON with keys sorted. */
export function fingerprint(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex");
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
  if (inserted.length === 0) return replay(tx, key, print);
  const result = await create();
  const bodyText = JSON.stringify(result.body);
  await tx`
    update idempotency_ledger set status = ${result.status}, body = ${bodyText}
    where workspace_id = ${key.workspaceId} and operation_id = ${key.operationId} and request_id = ${key.requestId}`;
  return { status: result.status, bodyText, replayed: false };
}

/**
 * Runs a create in its own transaction: once per key when a key is given (`idempotent`), else simply. The answer as
 * the ledger keeps it, so a first answer and its replays are the same bytes.
 */
export async function createOnce(
  db: Db,
  key: LedgerKey | undefined,
  create: (tx: Tx) => Promise<{ status: number; body: unknown }>,
): Promise<LedgerAnswer> {
  if (key) return db.begin((tx) => idempotent(tx, key, () => create(tx)));
  const created = await db.begin(create);
  return { status: created.status, bodyText: JSON.stringify(created.body), replayed: false };
}

/** The reply of an idempotent write: its stored bytes and status, with `Idempotent-Replayed: true` on a replay. */
export function ledgerReply<T>(answer: LedgerAnswer): Reply<T> {
  return new Reply<T>(
    new RawJson(answer.bodyText),
    answer.status,
    answer.replayed ? { "idempotent-replayed": "true" } : {},
  );
}

/** What identifies an idempotent request: its workspace, operation, requestId and body. */
export interface LedgerKey {
  workspaceId: string;
  operationId: string;
  requestId: string;
  body: unknown;
}

/** The first answer for a requestId whose ledger row exists; RequestIdReused when it was made for another body. */
export async function replay(db: Tx | Db, key: LedgerKey, print = fingerprint(key.body)): Promise<LedgerAnswer> {
  const [prior] = await db<{ fingerprint: string; status: number; body: string }[]>`
    select fingerprint, status, body from idempotency_ledger
    where workspace_id = ${key.workspaceId} and operation_id = ${key.operationId} and request_id = ${key.requestId}`;
  if (!prior || prior.fingerprint !== print) throw new RequestIdReused({ requestId: key.requestId });
  return { status: prior.status, bodyText: prior.body, replayed: true };
}

/**
 * The ledger row of a write whose answer the database builds, as a CTE of the write's own statement: `insert … select`
 * the answer's text from `answer` (one row, one column), returning it as `body`. One statement instead of idempotent's
 * three (claim, write, answer). A second request with the same key waits for the first's transaction on the row's
 * unique key, then fails with a unique violation that `isLedgerConflict` recognises (its statement wrote nothing):
 * answer it with `replay`. If the first rolls back, the second's insert goes ahead.
 */
export function ledgerInsert(
  tx: Tx | Db,
  key: LedgerKey,
  status: number,
  answer: postgres.PendingQuery<postgres.Row[]>,
) {
  return tx`
    insert into idempotency_ledger (workspace_id, operation_id, request_id, fingerprint, status, body)
    select ${key.workspaceId}, ${key.operationId}, ${key.requestId}, ${fingerprint(key.body)}, ${status}, a.body
    from (${answer}) as a(body)
    returning body`;
}

/** Whether an error is ledgerInsert's unique violation: another request with the same key came first. */
export function isLedgerConflict(error: unknown): boolean {
  const e = error as { code?: string; constraint_name?: string };
  return e.code === "23505" && e.constraint_name === "idempotency_ledger_pkey";
}

/** Deletes ledger entries older than `days` (at least 30 by contract); returns how many. */
export async function purgeLedger(db: Tx | Db, days = 30): Promise<number> {
  const rows = await db`
      delete from idempotency_ledger where created_at < now() - make_interval(days => ${Math.max(30, days)})
      returning 1`;
  return rows.length;
}
