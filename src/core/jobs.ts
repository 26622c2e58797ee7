/** pg-boss start/stop, queue names, and sending a job inside a postgres.js transaction. */
import { PgBoss } from "pg-boss";
import type { Tx, Db } from "./db.ts";
import type { Logger } from "./log.ts";

/** The queues of the service. */
export const queues = {
  /** Landlord portal invitation emails. */
  inviteEmail: "invite-email",
  /** Outgoing SMS messages. */
  smsSend: "sms-send",
  /** Daily purge of idempotency ledger entries older than 30 days. */
  ledgerPurge: "ledger-purge",
  /** Daily purge of events older than EVENTS_RETENTION_DAYS. */
  eventsPurge: "events-purge",
  /** Webhook delivery attempts, one job an attempt. */
  webhookDeliver: "webhook-deliver",
} as const;

/** pg-boss's database adapter over a postgres.js client or transaction, so a job commits with the caller's writes. */
export function bossDb(tx: Tx | Db) {
  return {
    executeSql: async (text: string, values: unknown[] = []) => ({
      rows: [...(await tx.unsafe(text, values as any[]))],
    }),
  };
}

/** Retry policy of a queue: attempts, backoff and where exhausted jobs go. */
export interface QueuePolicy {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  /** Longest delay between retries, in seconds, when backing off. */
  retryDelayMax?: number;
  /** Seconds a job may stay active before it is failed and retried (a handler that never returns). */
  expireInSeconds?: number;
  /**
   * Seconds without a heartbeat after which an active job is failed and retried: its worker died. A live worker
   * refreshes it every half of this; pg-boss wants at least 10.
   */
  heartbeatSeconds?: number;
  /** Queue receiving jobs that exhausted their retries (the failure reason is kept on the job). */
  deadLetter?: string;
}

/**
 * How often pg-boss's supervisor fails expired jobs and jobs whose heartbeat stopped (seconds; pg-boss's default is
 * 60). With heartbeats of 10 s, a job whose worker died is retried 10 to 20 s after the crash, plus its retry delay.
 */
export const superviseSeconds = 10;

/**
 * The fields of a job queue error's log line: pg-boss reports some as plain objects, which print as "[object Object]".
 */
export function jobErrorFields(error: unknown): Record<string, unknown> {
  const e = (error ?? {}) as { message?: unknown; code?: unknown; queue?: unknown; worker?: unknown; errors?: unknown };
  let message = typeof e.message === "string" && e.message ? e.message : undefined;
  // An AggregateError (a host with several addresses refused them all) has an empty message of its own.
  if (!message && Array.isArray(e.errors)) message = e.errors.map((x) => String((x as Error)?.message ?? x)).join("; ");
  if (!message) message = describeObject(error);
  const fields: Record<string, unknown> = { error: message };
  if (typeof e.code === "string" && e.code) fields.code = e.code;
  if (typeof e.queue === "string") fields.queue = e.queue;
  if (typeof e.worker === "string") fields.worker = e.worker;
  return fields;
}

function describeObject(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return `an object with the keys ${Object.keys(value).join(", ")}`;
  }
}

/**
 * The job queue: pg-boss in the `pgboss` schema of the service's database, started on first use. It works through a
 * transaction pooler: node-postgres sends unnamed statements, one query at a time, and pg-boss takes only
 * transaction-scoped locks and `SET LOCAL`, with `useListenNotify` off (its default; keep it so).
 */
export class Jobs {
  #boss: Promise<PgBoss> | undefined;
  #created = new Set<string>();
  #onStop: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    /** How often pg-boss expires lapsed jobs and refreshes its caches (seconds; `superviseSeconds` by default). */
    private readonly maintenance: { superviseIntervalSeconds?: number; monitorIntervalSeconds?: number } = {},
  ) {}

  /**
   * The started pg-boss instance (creating its schema on first start). A start that failed (the database unreachable,
   * or gone part way) is not kept: the next call starts again, so a queue first used during an outage works once the
   * database is back.
   */
  boss(): Promise<PgBoss> {
    if (!this.#boss) {
      const starting: Promise<PgBoss> = this.#start().catch((error) => {
        if (this.#boss === starting) this.#boss = undefined;
        throw error;
      });
      this.#boss = starting;
    }
    return this.#boss;
  }

  async #start(): Promise<PgBoss> {
    const boss = new PgBoss({
      connectionString: this.url,
      schema: "pgboss",
      max: 4,
      superviseIntervalSeconds: superviseSeconds,
      monitorIntervalSeconds: superviseSeconds,
      ...this.maintenance,
    });
    boss.on("error", (error: unknown) => this.log.error("job queue error", jobErrorFields(error)));
    try {
      await boss.start();
    } catch (error) {
      // Nothing it began is left running (its pool, its timers); the stop is bounded as in `stop`.
      await Promise.race([boss.stop({ graceful: false, close: true }).catch(() => {}), Bun.sleep(5000)]);
      throw error;
    }
    return boss;
  }

  /**
   * Creates a queue once with its policy (a dead-letter queue is created first). A queue that exists already gets the
   * policy's heartbeat (queues created before heartbeats had none); the rest of its settings stay as they are.
   */
  async ensureQueue(name: string, policy?: QueuePolicy): Promise<void> {
    if (this.#created.has(name)) return;
    const boss = await this.boss();
    if (policy?.deadLetter && !(await boss.getQueue(policy.deadLetter))) await boss.createQueue(policy.deadLetter);
    const existing = await boss.getQueue(name);
    if (!existing) await boss.createQueue(name, policy ?? {});
    else if ((existing.heartbeatSeconds ?? null) !== (policy?.heartbeatSeconds ?? null)) {
      await boss.updateQueue(name, { heartbeatSeconds: policy?.heartbeatSeconds ?? null });
    }
    this.#created.add(name);
  }

  /** Queues a job inside the caller's transaction: it exists only if the transaction commits. */
  async send(
    tx: Tx,
    queue: string,
    data: object,
    options: { singletonKey?: string; id?: string; startAfter?: number } = {},
  ): Promise<string | null> {
    const boss = await this.boss();
    return boss.send(queue, data, { ...options, db: bossDb(tx) });
  }

  /** Runs `hook` when the queue stops (a worker's own loop ends with it). */
  onStop(hook: () => void): void {
    this.#onStop.push(hook);
  }

  /** Stops the queue: no new jobs are fetched, running ones finish (within `timeoutMs`). */
  async stop(timeoutMs = 10_000): Promise<void> {
    for (const hook of this.#onStop.splice(0)) hook();
    if (!this.#boss) return;
    const started = this.#boss;
    this.#boss = undefined;
    const boss = await started.catch(() => undefined);
    if (!boss) return; // it never started, and stopped what it had begun (boss())
    this.#created.clear();
    // pg-boss's stop waits for its pool to close; through PgBouncer it was seen never to resolve (a test's afterAll
    // waited 30 s). What it waits for is bounded: workers get `timeoutMs`, then the rest is given up and logged.
    const stopped = boss.stop({ graceful: true, timeout: timeoutMs, close: true }).then(() => true);
    const settled = await Promise.race([stopped, Bun.sleep(timeoutMs + 5000).then(() => false)]);
    if (!settled) this.log.warn("job queue stop did not finish; going on without it", { waitedMs: timeoutMs + 5000 });
  }
}
