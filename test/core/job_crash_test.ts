/**
 * What a crash costs the job queue (issue 20, point 7): a worker process killed (SIGKILL) while it holds an
 * invitation email job and an SMS job, with the service's own queue policies. Its heartbeats stop, a supervisor pass
 * fails the jobs ("job heartbeat timeout", not their expiry), they wait the queue's first retry delay, and another
 * worker process does each once.
 *
 * The two waits the recovery is made of are not waited for in real time (issue 32, point 8: 75 s of it): once the
 * worker is dead, its jobs' last heartbeat is moved back by their heartbeat seconds, and once failed, their retry's
 * start is moved to now, both in SQL. What is checked instead is what those waits are made of: the jobs carry the
 * queue's heartbeat (so the supervisor fails them that long after the crash, not after the expiry), the supervisor
 * fails them once it has lapsed, and their retry starts within the queue's first retry delay (at its longest). A
 * supervisor of pg-boss (the service's Jobs, with a 1 s pass instead of the service's `superviseSeconds`) runs in
 * this process, standing for any instance's; the rest is the service's own worker processes.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { startSmtpServer } from "../email/smtp.ts";
import { addContact, invitationsOf } from "../maintenance_pro/fixtures.ts";
import { insertThread, startFakeProvider, until } from "../telephony/fixtures.ts";
import { createLogger } from "../../src/core/log.ts";
import { Jobs, queues, superviseSeconds, type QueuePolicy } from "../../src/core/jobs.ts";
import { inviteEmailQueuePolicy } from "../../src/maintenance_pro/invite_email_worker.ts";
import { smsQueuePolicy } from "../../src/telephony/worker.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const smtp = await startSmtpServer();
const provider = startFakeProvider();
/** A supervisor passing every second (pg-boss's expiry and heartbeat checks), as any instance of the service runs. */
const supervisor = new Jobs(h.database.url, createLogger("silent"), {
  superviseIntervalSeconds: 1,
  monitorIntervalSeconds: 1,
});
afterAll(async () => {
  await supervisor.stop(2000);
  provider.stop();
  await smtp.close();
});

/** A service process running only the job workers, with the service's policies (as src/main.ts starts them). */
function workerProcess() {
  return Bun.spawn(["bun", join(import.meta.dir, "..", "maintenance_pro", "worker_process.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: h.database.url,
      SMTP_URL: smtp.url,
      PORTAL_BASE_URL: "https://portal.test",
      SMS_PROVIDER_URL: provider.url,
      SMS_ACCOUNT_SID: "AC0123",
      SMS_AUTH_TOKEN: "secret-token",
      LOG_LEVEL: "silent",
    },
    stdout: "ignore",
    stderr: "ignore",
  });
}

/**
 * The longest each queue's crash may cost in real time: the heartbeat going stale, the supervisor's next pass (a
 * second one for slack), the first retry delay at its longest, 15 s for the other worker's poll and the send.
 */
const bound = (policy: QueuePolicy) =>
  (policy.heartbeatSeconds! + 2 * superviseSeconds + 2 * policy.retryDelay + 15) * 1000;

interface JobRow {
  id: string;
  name: string;
  state: string;
  heartbeatSeconds: number | null;
  retryCount: number;
  message: string | null;
  /** Seconds from now to the job's start (its retry's, once failed). */
  startsIn: number;
}

/** The workspace's invitation email and SMS jobs, by queue name. */
async function jobsByQueue(): Promise<Record<string, JobRow>> {
  const rows = await db<JobRow[]>`
    select id::text, name, state::text, heartbeat_seconds, retry_count, output #>> '{value,message}' as message,
           extract(epoch from start_after - now())::float8 as starts_in
    from pgboss.job
    where name in (${queues.inviteEmail}, ${queues.smsSend}) and data->>'workspaceId' = ${ws.id}`;
  expect(rows.map((r) => r.name).sort()).toEqual([queues.inviteEmail, queues.smsSend]);
  return Object.fromEntries(rows.map((r) => [r.name, r]));
}

test("jobs a killed worker held are failed by the supervisor once their heartbeat lapses and done once by another worker after the retry delay", async () => {
  const emailBound = bound(inviteEmailQueuePolicy);
  const smsBound = bound(smsQueuePolicy);
  // The old costs (the expiry, then the retry delay) lie beyond these bounds.
  expect(emailBound).toBeLessThan((inviteEmailQueuePolicy.expireInSeconds! + inviteEmailQueuePolicy.retryDelay) * 1000);
  expect(smsBound).toBeLessThan((smsQueuePolicy.expireInSeconds! + smsQueuePolicy.retryDelay) * 1000);

  const landlord = await addContact(db, ws);
  smtp.behave(landlord.email!, "stall");
  provider.holdNext = true;
  const victim = workerProcess();
  let rescuer: ReturnType<typeof workerProcess> | undefined;
  try {
    const invited = await h.request("POST", `/maintenance-pro/landlords/${landlord.id}/portal-access/invite`, {
      key: ws.key,
    });
    expect(invited.status).toBe(200);
    const sms = await h.request("POST", `/telephony/sms/threads/${await insertThread(db, ws.id)}/messages`, {
      key: ws.key,
      body: { body: "Crash" },
    });
    expect(sms.status).toBe(202);
    // The victim is in the middle of both: the email in SMTP DATA, the SMS at the provider.
    await Promise.all([smtp.receiving(landlord.email!), provider.received(1)]);
    await supervisor.boss();
    victim.kill("SIGKILL");
    await victim.exited;
    const killed = performance.now();
    smtp.behave(landlord.email!, "accept");
    provider.release();
    rescuer = workerProcess();

    // Held, with the queue's heartbeat: the supervisor fails them that long after their last one.
    const held = await jobsByQueue();
    for (const [name, policy] of [
      [queues.inviteEmail, inviteEmailQueuePolicy],
      [queues.smsSend, smsQueuePolicy],
    ] as const) {
      expect(held[name]).toMatchObject({ state: "active", heartbeatSeconds: policy.heartbeatSeconds, retryCount: 0 });
    }
    // Their heartbeat lapses: the last one is as old as the heartbeat (the worker is dead; nothing refreshes it).
    const lapsed = await db`
      update pgboss.job set heartbeat_on = heartbeat_on - heartbeat_seconds * interval '1 second'
      where id in (${held[queues.inviteEmail]!.id}::uuid, ${held[queues.smsSend]!.id}::uuid) and state = 'active'`;
    expect(lapsed.count).toBe(2);
    // The supervisor's next pass fails them, and they wait their retry delay.
    const failed = await until(
      async () => {
        const jobs = await jobsByQueue();
        return Object.values(jobs).every((j) => j.state === "retry") ? jobs : undefined;
      },
      "the supervisor to fail the jobs whose heartbeat lapsed",
      15_000,
    );
    for (const [name, policy] of [
      [queues.inviteEmail, inviteEmailQueuePolicy],
      [queues.smsSend, smsQueuePolicy],
    ] as const) {
      const job = failed[name]!;
      expect(job.message).toBe("job heartbeat timeout");
      // The first retry delay, backing off: from `retryDelay` to twice it.
      expect(job.startsIn).toBeGreaterThan(0);
      expect(job.startsIn).toBeLessThanOrEqual(2 * policy.retryDelay);
    }
    // Nothing sent meanwhile: the jobs are the victim's, and only a retry may do them.
    expect(smtp.to(landlord.email!)).toHaveLength(0);
    expect(provider.requests).toHaveLength(1);
    // Their retry delay is over.
    const due = await db`
      update pgboss.job set start_after = now()
      where id in (${failed[queues.inviteEmail]!.id}::uuid, ${failed[queues.smsSend]!.id}::uuid) and state = 'retry'`;
    expect(due.count).toBe(2);

    const [emailMs, smsMs] = await Promise.all([
      until(
        async () => {
          const [invitation] = await invitationsOf(db, ws.id, landlord.id);
          return invitation?.status === "sent" ? performance.now() - killed : undefined;
        },
        "the invitation email to be sent by the other worker",
        30_000,
      ),
      until(
        async () => {
          const [row] = await db<
            { status: string }[]
          >`select status from sms_messages where workspace_id = ${ws.id} and id = ${sms.body.id}`;
          return row?.status === "sent" ? performance.now() - killed : undefined;
        },
        "the SMS to be sent by the other worker",
        30_000,
      ),
    ]);
    console.log(
      `after a worker was killed holding them, the other worker sent the invitation email ${(emailMs / 1000).toFixed(1)} s ` +
        `and the SMS ${(smsMs / 1000).toFixed(1)} s later, with the heartbeat and the retry delay moved in SQL; in real ` +
        `time: at most ${emailBound / 1000} s (expiry ${inviteEmailQueuePolicy.expireInSeconds} s) and ${smsBound / 1000} s ` +
        `(expiry ${smsQueuePolicy.expireInSeconds} s)`,
    );
    // Once each, by the retry: one email accepted, one message created at the provider.
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    expect(provider.created.size).toBe(1);
    const done = await until(
      async () => {
        const jobs = await jobsByQueue();
        return Object.values(jobs).every((j) => j.state === "completed") ? jobs : undefined;
      },
      "the retried jobs to complete",
      15_000,
    );
    expect(Object.values(done).map((j) => j.retryCount)).toEqual([1, 1]);
  } finally {
    victim.kill("SIGKILL");
    rescuer?.kill("SIGTERM");
    await rescuer?.exited;
  }
}, 90_000);
