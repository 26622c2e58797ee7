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
} as const;

/** pg-boss's database adapter over a postgres.js client or transaction, so a job commits with the caller's writes. */
export function bossDb(tx: Tx | Db) {
  return {
    executeSql: async (text: string, values: unknown[] = []) => ({ rows: [...(await tx.unsafe(text, values as any[]))] }),
  };
}

/** Retry policy of a queue: attempts, backoff and where exhausted jobs go. */
export interface QueuePolicy {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  /** Longest delay between retries, in seconds, when backing off. */
  retryDelayMax?: number;
  /** Seconds a job may stay active before it is failed and retried (a worker that died holding it). */
  expireInSeconds?: number;
  /** Queue receiving jobs that exhausted their retries (the failure reason is kept on the job). */
  deadLetter?: string;
}

/** The job queue: pg-boss in the `pgboss` schema of the service's database, started on first use. */
export class Jobs {
  #boss: Promise<PgBoss> | undefined;
  #created = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    /** How often pg-boss expires lapsed jobs and refreshes its caches (seconds; pg-boss's defaults are 60). */
    private readonly maintenance: { superviseIntervalSeconds?: number; monitorIntervalSeconds?: number } = {},
  ) {}

  /** The started pg-boss instance (creating its schema on first start). */
  boss(): Promise<PgBoss> {
    this.#boss ??= (async () => {
      const boss = new PgBoss({ connectionString: this.url, schema: "pgboss", max: 4, ...this.maintenance });
      boss.on("error", (error: unknown) => this.log.error("job queue error", { error: String(error) }));
      await boss.start();
      return boss;
    })();
    return this.#boss;
  }

  /** Creates a queue once with its policy (a dead-letter queue is created first). */
  async ensureQueue(name: string, policy?: QueuePolicy): Promise<void> {
    if (this.#created.has(name)) return;
    const boss = await this.boss();
    if (policy?.deadLetter && !(await boss.getQueue(policy.deadLetter))) await boss.createQueue(policy.deadLetter);
    if (!(await boss.getQueue(name))) await boss.createQueue(name, policy ?? {});
    this.#created.add(name);
  }

  /** Queues a job inside the caller's transaction: it exists only if the transaction commits. */
  async send(tx: Tx, queue: string, data: object, options: { singletonKey?: string; id?: string } = {}): Promise<string | null> {
    const boss = await this.boss();
    return boss.send(queue, data, { ...options, db: bossDb(tx) } as any);
  }

  /** Stops the queue: no new jobs are fetched, running ones finish (within `timeoutMs`). */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.#boss) return;
    const boss = await this.#boss;
    this.#boss = undefined;
    this.#created.clear();
    await boss.stop({ graceful: true, timeout: timeoutMs, close: true } as any);
  }
}
