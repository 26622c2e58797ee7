/** The SQL of the telephony group: threads, messages both ways, the send bucket, the worker, numbers, webhooks. */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import type { BucketState } from "../core/budget.ts";
import { rowInsert } from "../core/table_queries.ts";
import type { QueuedSms, SmsMessage, SmsThread } from "./schema.ts";
import { smsThreadsTable } from "./table.ts";

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
  const dated =
    q.after?.at === null
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
  await tx`
    insert into sms_send_buckets (workspace_id, tokens) values (${workspaceId}, ${capacity}) on conflict do nothing`;
  const [row] = await tx<{ level: number }[]>`
    with b as (
      select tokens, updated_at, clock_timestamp() as now from sms_send_buckets
      where workspace_id = ${workspaceId} for update
    ), level as (
      select least(${capacity}::float8, b.tokens + extract(epoch from b.now - b.updated_at)::float8
          * ${capacity}::float8 / 60.0) as level, b.now
      from b
    ), spent as (
      update sms_send_buckets set tokens = level.level - case when level.level >= 1 then 1 else 0 end,
        updated_at = level.now
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

/**
 * Locks a message being sent, until the transaction ends, and says whether its thread is stopped now; undefined
 * when it is no longer `sending`.
 */
export async function lockSending(tx: Tx, workspaceId: string, id: string): Promise<{ stopped: boolean } | undefined> {
  const [row] = await tx<{ stopped: boolean }[]>`
    select t.stopped from sms_messages m
    join sms_threads t on t.workspace_id = m.workspace_id and t.id = m.thread_id
    where m.workspace_id = ${workspaceId} and m.id = ${id} and m.status = 'sending'
    for update of m`;
  return row;
}

/** Marks a message sent with the provider's id. */
export async function markSent(tx: Tx, workspaceId: string, id: string, providerMessageId: string): Promise<void> {
  await tx`
    update sms_messages set status = 'sent', provider_message_id = ${providerMessageId},
      sent_at = now(), updated_at = now()
    where workspace_id = ${workspaceId} and id = ${id}`;
}

/**
 * Records a failed attempt: the message waits for a retry (`queued`) or, when `final`, is `failed`. False when the
 * message had moved on (sent, failed) already.
 */
export async function recordFailure(
  tx: Tx,
  workspaceId: string,
  id: string,
  error: string,
  final: boolean,
): Promise<boolean> {
  const rows = await tx`
    update sms_messages set
      status = ${final ? "failed" : "queued"}, error = ${error}, updated_at = now(),
      failed_at = ${final ? tx`now()` : null}
    where workspace_id = ${workspaceId} and id = ${id} and status in ('queued', 'sending')
    returning 1`;
  return rows.length > 0;
}

/** Writes a message to the outbox (the offline provider), once. */
export async function writeOutbox(
  tx: Tx,
  m: { workspaceId: string; messageId: string; to: string; from: string; body: string },
): Promise<void> {
  await tx`
    insert into sms_outbox (workspace_id, message_id, to_address, from_number, body)
    values (${m.workspaceId}, ${m.messageId}, ${m.to}, ${m.from}, ${m.body})
    on conflict do nothing`;
}

/** A message in response shape, with its position in the list's order. */
export type MessageRow = Static<typeof SmsMessage> & { cursorAt: string };

const messageColumns = (db: Db | Tx) => db`
  m.id, m.thread_id, m.direction, m.body, m.status, m.error_code, iso(m.created_at) as created_at,
  iso(m.sent_at) as sent_at, iso(m.delivered_at) as delivered_at`;

/** Whether the workspace has the thread. */
export async function threadExists(db: Db, workspaceId: string, threadId: string): Promise<boolean> {
  const rows = await db`select 1 from sms_threads where workspace_id = ${workspaceId} and id = ${threadId}`;
  return rows.length > 0;
}

/** One page of a thread's messages, newest first (created_at, then id, descending). */
export async function messagesPage(
  db: Db,
  q: { workspaceId: string; threadId: string; after?: { at: string; id: string }; take: number },
): Promise<MessageRow[]> {
  const after = q.after
    ? db`and m.created_at <= ${q.after.at}::text::timestamptz
         and (m.created_at < ${q.after.at}::text::timestamptz or m.id < ${q.after.id})`
    : db``;
  return db<MessageRow[]>`
    select ${messageColumns(db)}, m.created_at::text as cursor_at
    from sms_messages m
    where m.workspace_id = ${q.workspaceId} and m.thread_id = ${q.threadId} ${after}
    order by m.created_at desc, m.id desc
    limit ${q.take}`;
}

/** A message in response shape (for events). */
export async function messageView(tx: Tx, workspaceId: string, id: string): Promise<Static<typeof SmsMessage>> {
  const [row] = await tx<Static<typeof SmsMessage>[]>`
    select ${messageColumns(tx)} from sms_messages m where m.workspace_id = ${workspaceId} and m.id = ${id}`;
  return row!;
}

/** A thread in response shape (for events). */
export async function threadView(tx: Tx, workspaceId: string, id: string): Promise<Static<typeof SmsThread>> {
  const [row] = await tx<Static<typeof SmsThread>[]>`
    select t.id, t.local_number, t.address,
           case when c.id is null then null else json_build_object('id', c.id, 'name', c.name) end as contact,
           t.revision, iso(t.last_message_at) as last_message_at, iso(t.last_inbound_at) as last_inbound_at,
           t.preview, t.stopped
    from sms_threads t
    left join contacts c on c.workspace_id = t.workspace_id and c.id = t.contact_id
    where t.workspace_id = ${workspaceId} and t.id = ${id}`;
  return row!;
}

/**
 * Records a webhook delivery once. False when it was recorded before: a concurrent duplicate waits for the first
 * transaction and then finds its row (or takes its place if that one rolled back).
 */
export async function claimDelivery(
  tx: Tx,
  d: { integration: string; externalId: string; workspaceId: string | null },
): Promise<boolean> {
  const rows = await tx`
    insert into webhook_deliveries (integration, external_id, workspace_id)
    values (${d.integration}, ${d.externalId}, ${d.workspaceId})
    on conflict do nothing returning 1`;
  return rows.length > 0;
}

/** The workspace a number belongs to, if any. */
export async function workspaceOfNumber(db: Db, number: string): Promise<string | undefined> {
  const [row] = await db<{ workspaceId: string }[]>`select workspace_id from sms_numbers where number = ${number}`;
  return row?.workspaceId;
}

/**
 * The thread of a workspace number and another party, locked (undefined when there is none yet). A transaction
 * lock on the pair comes first, so two first messages from a new sender open one thread, not two. (No unique index
 * on the pair: imported data may already hold two threads for one; the newest is taken.)
 */
export async function lockPairThread(tx: Tx, workspaceId: string, localNumber: string, address: string) {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`sms:${workspaceId}:${localNumber}:${address}`}, 0))`;
  const [row] = await tx<{ id: string; stopped: boolean }[]>`
    select id, stopped from sms_threads
    where workspace_id = ${workspaceId} and local_number = ${localNumber} and address = ${address}
    order by last_message_at desc nulls last, id desc
    limit 1
    for update`;
  return row;
}

/** Opens a thread, linked to the workspace's one live contact whose normalised mobile is `mobileNorm`, if one. */
export async function openThread(
  tx: Tx,
  t: { workspaceId: string; id: string; localNumber: string; address: string; mobileNorm: string | null },
): Promise<void> {
  const contact = tx`(select case when count(*) = 1 then min(c.id) end from contacts c
    where c.workspace_id = ${t.workspaceId} and c.mobile_norm = ${t.mobileNorm} and c.archived_at is null)`;
  await tx`
    insert into sms_threads ${rowInsert(tx, smsThreadsTable, t.workspaceId, {
      id: t.id,
      local_number: t.localNumber,
      address: t.address,
      contact_id: contact,
      last_message_at: null,
      last_inbound_at: null,
      preview: null,
      stopped: false,
    })}`;
}

/** Stores an inbound message and moves its thread's lastMessageAt, lastInboundAt, preview and revision. */
export async function insertInboundMessage(
  tx: Tx,
  m: { workspaceId: string; id: string; threadId: string; body: string; providerMessageId: string },
): Promise<void> {
  await tx`
    with m as (
      insert into sms_messages (workspace_id, id, thread_id, direction, body, status, provider_message_id)
      values (${m.workspaceId}, ${m.id}, ${m.threadId}, 'inbound', ${m.body}, 'received', ${m.providerMessageId})
      returning thread_id, body, created_at
    )
    update sms_threads set last_message_at = m.created_at, last_inbound_at = m.created_at,
      preview = left(m.body, 160), revision = revision + 1
    from m where sms_threads.workspace_id = ${m.workspaceId} and sms_threads.id = m.thread_id`;
}

/** Sets or clears a thread's `stopped` (its revision goes up); false when it already was so. */
export async function setStopped(tx: Tx, workspaceId: string, threadId: string, stopped: boolean): Promise<boolean> {
  const rows = await tx`
    update sms_threads set stopped = ${stopped}, revision = revision + 1
    where workspace_id = ${workspaceId} and id = ${threadId} and stopped <> ${stopped}
    returning 1`;
  return rows.length > 0;
}

/**
 * Fails outgoing messages of a stopped thread, errorCode `stopped`, and returns their ids: a thread's messages
 * still waiting to be sent (`queued`, retries included; the STOP itself), or one message the worker holds
 * (`sending`) and found its thread stopped (see worker.ts).
 */
export async function failStopped(
  tx: Tx,
  workspaceId: string,
  which: { threadId: string } | { messageId: string },
): Promise<string[]> {
  const where =
    "threadId" in which
      ? tx`thread_id = ${which.threadId} and status = 'queued'`
      : tx`id = ${which.messageId} and status = 'sending'`;
  const rows = await tx<{ id: string }[]>`
    update sms_messages set status = 'failed', error_code = 'stopped',
      error = 'not sent: the recipient texted STOP', failed_at = now(), updated_at = now()
    where workspace_id = ${workspaceId} and direction = 'outbound' and ${where}
    returning id`;
  return rows.map((r) => r.id);
}

/** An outgoing message the provider knows by `sid`, locked; undefined when none. */
export async function lockMessageBySid(tx: Tx, sid: string) {
  const [row] = await tx<{ workspaceId: string; id: string; status: string }[]>`
    select workspace_id, id, status from sms_messages
    where provider_message_id = ${sid} and direction = 'outbound'
    for update`;
  return row;
}

/**
 * Waits for the sends in flight from `localNumber` to `address` to commit: a receipt can arrive before the worker
 * has recorded the provider's id of the message it is about.
 */
export async function awaitSendsInFlight(tx: Tx, localNumber: string, address: string): Promise<void> {
  await tx`
    select 1 from sms_messages m
    join sms_threads t on t.workspace_id = m.workspace_id and t.id = m.thread_id
    where m.status = 'sending' and m.direction = 'outbound'
      and m.workspace_id = (select workspace_id from sms_numbers where number = ${localNumber})
      and t.local_number = ${localNumber} and t.address = ${address}
    for update of m`;
}

/** Moves an outgoing message to a status the provider reported, with its error code and times. */
export async function applyReceipt(
  tx: Tx,
  r: { workspaceId: string; id: string; status: string; errorCode: string | null },
): Promise<void> {
  await tx`
    update sms_messages set status = ${r.status}, updated_at = now(),
      error_code = coalesce(${r.errorCode}, error_code),
      sent_at = case when ${r.status} in ('sent', 'delivered') then coalesce(sent_at, now()) else sent_at end,
      delivered_at = case when ${r.status} = 'delivered' then now() else delivered_at end,
      failed_at = case when ${r.status} in ('undelivered', 'failed') then now() else failed_at end
    where workspace_id = ${r.workspaceId} and id = ${r.id}`;
}

/** One workspace SMS number as the CLI lists it. */
export interface SmsNumberRow {
  number: string;
  source: string;
  createdAt: string;
}

/** Gives a number to a workspace; the workspace that already has it, when another does. */
export async function addSmsNumber(
  db: Db,
  workspaceId: string,
  number: string,
): Promise<{ added: boolean; ownerId: string }> {
  const [row] = await db<{ ownerId: string; added: boolean }[]>`
    with ins as (
      insert into sms_numbers (number, workspace_id, source) values (${number}, ${workspaceId}, 'cli')
      on conflict do nothing returning workspace_id
    )
    select workspace_id as owner_id, true as added from ins
    union all
    select workspace_id, false from sms_numbers where number = ${number} and not exists (select 1 from ins)`;
  return row!;
}

/** Takes a number from a workspace; false when the workspace did not have it. */
export async function removeSmsNumber(db: Db, workspaceId: string, number: string): Promise<boolean> {
  const rows = await db`delete from sms_numbers where workspace_id = ${workspaceId} and number = ${number} returning 1`;
  return rows.length > 0;
}

/** A workspace's numbers. */
export async function listSmsNumbers(db: Db, workspaceId: string): Promise<SmsNumberRow[]> {
  return db<SmsNumberRow[]>`
    select number, source, iso(created_at) as created_at from sms_numbers
    where workspace_id = ${workspaceId} order by number`;
}

/** Forgets webhook deliveries older than `days` (a provider retries for hours, not weeks). */
export async function purgeWebhookDeliveries(db: Db, days: number): Promise<number> {
  const rows = await db`delete from webhook_deliveries where received_at < now() - make_interval(days => ${days})`;
  return rows.count;
}
