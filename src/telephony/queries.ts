/** The SQL of the telephony group: the thread list, queuing an SMS, the send bucket and the worker's ledger. */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import type { BucketState } from "../core/budget.ts";
import type { QueuedSms, SmsThread } from "./schema.ts";

/** A thread in response shape, with its position in the list's order. */
export type ThreadRow = Static<typeof SmsThread> & { cursorAt: string | null };

/** What one page of the thread list asks for. */
export interface ThreadsPageQuery {
  workspaceId: string;
  contactId?: string;
  stopped?: boolean;
  /** The last thread listed: its last_message_at (text, microseconds; null for a thread without messages) and id. */
  after?: { at: string | null; id: string };
  take: number;
}

/** One page of threads: lastMessageAt descending (threads without messages last), then id descending. */
export async function threadsPage(db: Db, q: ThreadsPageQuery): Promise<ThreadRow[]> {
  // `stopped` is spelt as a literal predicate so the partial index of stopped threads can serve it.
  const filters = () => db`
    ${q.contactId !== undefined ? db`and t.contact_id = ${q.contactId}` : db``}
    ${q.stopped === undefined ? db`` : q.stopped ? db`and t.stopped` : db`and not t.stopped`}`;
  // Why two halves: a row comparison skips NULLs, so threads with messages page by (last_message_at, id) and
  // the threads without any follow, by id. Both halves are ordered exactly as the (workspace_id,
  // last_message_at desc nulls last, id desc) indexes are, and the cursor is spelt as a range on
  // last_message_at, so each half is an index scan that stops after `take` rows.
  const dated = q.after?.at === null
    ? db`and false`
    : q.after
      ? db`and t.last_message_at <= ${q.after.at}::text::timestamptz
           and (t.last_message_at < ${q.after.at}::text::timestamptz or t.id < ${q.after.id})`
      : db``;
  const undated = q.after?.at === null ? db`and t.id < ${q.after.id}` : db``;
  return db<ThreadRow[]>`
    with page as (
      (select t.* from sms_threads t
       where t.workspace_id = ${q.workspaceId} and t.last_message_at is not null ${filters()} ${dated}
       order by t.last_message_at desc nulls last, t.id desc limit ${q.take})
      union all
      (select t.* from sms_threads t
       where t.workspace_id = ${q.workspaceId} and t.last_message_at is null ${filters()} ${undated}
       order by t.last_message_at desc nulls last, t.id desc limit ${q.take})
    )
    select t.id, t.local_number, t.address,
           case when c.id is null then null else json_build_object('id', c.id, 'name', c.name) end as contact,
           t.revision, iso(t.last_message_at) as last_message_at, iso(t.last_inbound_at) as last_inbound_at,
           t.preview, t.stopped, t.last_message_at::text as cursor_at
    from page t
    left join contacts c on c.workspace_id = t.workspace_id and c.id = t.contact_id
    order by t.last_message_at desc nulls last, t.id desc
    limit ${q.take}`;
}

/** A thread, locked until the transaction ends (so its messages are queued one at a time), or undefined. */
export async function lockThread(tx: Tx, workspaceId: string, threadId: string) {
  const [row] = await tx<{ id: string; stopped: boolean }[]>`
    select id, stopped from sms_threads where workspace_id = ${workspaceId} and id = ${threadId} for update`;
  return row;
}

/**
 * Takes one token from the workspace's SMS bucket (capacity a minute, refilled continuously over 60 s).
 * The bucket row stays locked until the transaction ends, so concurrent sends of a workspace queue behind it.
 */
export async function takeSendToken(tx: Tx, workspaceId: string, capacity: number): Promise<BucketState> {
  await tx`insert into sms_send_buckets (workspace_id, tokens) values (${workspaceId}, ${capacity}) on conflict do nothing`;
  const [row] = await tx<{ level: number }[]>`
    with b as (
      select tokens, updated_at, clock_timestamp() as now from sms_send_buckets
      where workspace_id = ${workspaceId} for update
    ), level as (
      select least(${capacity}::float8, b.tokens + extract(epoch from b.now - b.updated_at)::float8 * ${capacity}::float8 / 60.0) as level, b.now
      from b
    ), spent as (
      update sms_send_buckets set tokens = level.level - case when level.level >= 1 then 1 else 0 end, updated_at = level.now
      from level where workspace_id = ${workspaceId}
      returning 1
    )
    select level.level from level, spent`;
  const level = row!.level;
  return { capacity, tokens: level >= 1 ? level - 1 : level, admitted: level >= 1 };
}

/** Records a queued outgoing message and moves its thread's lastMessageAt, preview and revision. */
export async function insertQueuedMessage(
  tx: Tx,
  m: { workspaceId: string; id: string; threadId: string; body: string; requestId: string | null },
): Promise<Static<typeof QueuedSms>> {
  const [row] = await tx<Static<typeof QueuedSms>[]>`
    with m as (
      insert into sms_messages (workspace_id, id, thread_id, direction, body, status, request_id)
      values (${m.workspaceId}, ${m.id}, ${m.threadId}, 'outbound', ${m.body}, 'queued', ${m.requestId})
      returning id, thread_id, status, body, created_at
    ), t as (
      update sms_threads set last_message_at = m.created_at, preview = left(m.body, 160), revision = revision + 1
      from m where sms_threads.workspace_id = ${m.workspaceId} and sms_threads.id = m.thread_id
      returning 1
    )
    select m.id, m.thread_id, m.status, m.body, iso(m.created_at) as created_at from m, t`;
  return row!;
}

/** What a worker needs to send a message. */
export interface ClaimedMessage {
  id: string;
  threadId: string;
  body: string;
  from: string;
  to: string;
  attempts: number;
}

/**
 * Starts an attempt: a queued (or interrupted) message becomes `sending` and its attempts go up by one.
 * Undefined when the message is gone, sent or failed. Waits while another attempt holds the message.
 */
export async function claimMessage(db: Db, workspaceId: string, id: string): Promise<ClaimedMessage | undefined> {
  const [row] = await db<ClaimedMessage[]>`
    update sms_messages m set status = 'sending', attempts = m.attempts + 1, updated_at = now()
    from sms_threads t
    where m.workspace_id = ${workspaceId} and m.id = ${id} and m.status in ('queued', 'sending')
      and t.workspace_id = m.workspace_id and t.id = m.thread_id
    returning m.id, m.thread_id, m.body, t.local_number as "from", t.address as "to", m.attempts`;
  return row;
}

/** Locks a message being sent, until the transaction ends; false when it is no longer `sending`. */
export async function lockSending(tx: Tx, workspaceId: string, id: string): Promise<boolean> {
  const rows = await tx`
    select 1 from sms_messages where workspace_id = ${workspaceId} and id = ${id} and status = 'sending' for update`;
  return rows.length > 0;
}

/** Marks a message sent with the provider's id. */
export async function markSent(tx: Tx, workspaceId: string, id: string, providerMessageId: string): Promise<void> {
  await tx`
    update sms_messages set status = 'sent', provider_message_id = ${providerMessageId}, sent_at = now(), updated_at = now()
    where workspace_id = ${workspaceId} and id = ${id}`;
}

/** Records a failed attempt: the message waits for a retry (`queued`) or, when `final`, is `failed`. */
export async function recordFailure(db: Db, workspaceId: string, id: string, error: string, final: boolean): Promise<void> {
  await db`
    update sms_messages set
      status = ${final ? "failed" : "queued"}, error = ${error}, updated_at = now(),
      failed_at = ${final ? db`now()` : null}
    where workspace_id = ${workspaceId} and id = ${id} and status in ('queued', 'sending')`;
}

/** Writes a message to the outbox (the offline provider), once. */
export async function writeOutbox(tx: Tx, m: { workspaceId: string; messageId: string; to: string; from: string; body: string }): Promise<void> {
  await tx`
    insert into sms_outbox (workspace_id, message_id, to_address, from_number, body)
    values (${m.workspaceId}, ${m.messageId}, ${m.to}, ${m.from}, ${m.body})
    on conflict do nothing`;
}
