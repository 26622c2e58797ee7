/** Recording an event in the writing transaction: the transactional outbox every write appends to. */
import { monotonicFactory } from "ulid";
import type postgres from "postgres";
import type { Db, Tx } from "../core/db.ts";
import type { EventData, EventType } from "./event_type.ts";

/**
 * Event ids: increasing within this process even inside one millisecond (a plain ulid() is random there), so the
 * events one transaction records are listed, after their transaction's id, in the order they were recorded.
 */
const ulid = monotonicFactory();

/**
 * Who made a change: an API key, a job worker, an operator's CLI command, a provider's webhook, or a contractor
 * through the link of their works order (id: the contractor's contact).
 */
export type Actor =
  | { kind: "key"; id: string }
  | { kind: "worker"; id: string }
  | { kind: "cli"; id: null }
  | { kind: "provider"; id: string }
  | { kind: "contractor"; id: string };

/** What a write says about its change. */
export interface EventInput<E extends EventType> {
  workspaceId: string;
  subjectId: string;
  data: EventData<E>;
  /** The request that made the change (its X-Request-Id), when there was one. */
  requestId: string | null;
  actor: Actor;
}

/**
 * Records an event inside the caller's transaction: it exists exactly when the change commits. Call it only where
 * the change happened (an idempotent replay, or a write that changed nothing, records nothing). Returns its id.
 */
export async function recordEvent<E extends EventType>(tx: Tx, type: E, input: EventInput<E>): Promise<string> {
  const id = ulid();
  await eventInsert(tx, type, input, tx`${tx.json(input.data as never)}`, id);
  return id;
}

/**
 * The statement that records an event, unsent, to make it a CTE of a write's own statement (`with …, evented as
 * (${eventInsert(…)}) …`, one statement fewer): `data` is SQL giving the event's data as JSON (the write's answer).
 */
export function eventInsert<E extends EventType>(
  tx: Tx | Db,
  type: E,
  input: Omit<EventInput<E>, "data">,
  data: postgres.PendingQuery<postgres.Row[]>,
  id = ulid(),
) {
  return tx`
    insert into events (workspace_id, id, type, subject_kind, subject_id, data, request_id, actor_kind, actor_id)
    values (${input.workspaceId}, ${id}, ${type.name}, ${type.subjectKind}, ${input.subjectId},
            ${data}, ${input.requestId}, ${input.actor.kind}, ${input.actor.id})`;
}

/** The actor of a change made through the API with a key. */
export function keyActor(principal: { keyId: string }): Actor {
  return { kind: "key", id: principal.keyId };
}
