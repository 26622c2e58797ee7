/**
 * What a crash costs the job queue (issue 20, point 7): a worker process killed (SIGKILL) while it holds an
 * invitation email job and an SMS job, with the service's own queue policies and supervisor interval. Its
 * heartbeats stop, the supervisor fails the jobs, and another worker process does each once, after the queue's
 * first retry delay. Before heartbeats, the jobs waited for their expiry: 10 minutes (email), 1 minute (SMS).
 * The bounds are hang detectors set between the old and the new figures; the measured figures are printed.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { startSmtpServer } from "../email/smtp.ts";
import { addContact, invitationsOf } from "../maintenance_pro/fixtures.ts";
import { insertThread, startFakeProvider, until } from "../telephony/fixtures.ts";
import { superviseSeconds } from "../../src/core/jobs.ts";
import { inviteEmailQueuePolicy } from "../../src/maintenance_pro/invite_email_worker.ts";
import { smsQueuePolicy } from "../../src/telephony/worker.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const smtp = await startSmtpServer();
const provider = startFakeProvider();
afterAll(async () => {
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
 * The longest each queue's crash may now cost, with room to spare for a loaded machine: the heartbeat going stale,
 * the supervisor's next pass (a second one for slack), the first retry delay at its longest, 15 s for the other
 * worker's start, its poll and the send.
 */
const bound = (policy: { heartbeatSeconds?: number; retryDelay: number }) =>
  (policy.heartbeatSeconds! + 2 * superviseSeconds + 2 * policy.retryDelay + 15) * 1000;

test("jobs a killed worker held are done once by another worker within heartbeat + supervisor pass + retry delay", async () => {
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
    victim.kill("SIGKILL");
    await victim.exited;
    const killed = performance.now();
    smtp.behave(landlord.email!, "accept");
    provider.release();
    rescuer = workerProcess();

    const [emailMs, smsMs] = await Promise.all([
      until(
        async () => {
          const [invitation] = await invitationsOf(db, ws.id, landlord.id);
          return invitation?.status === "sent" ? performance.now() - killed : undefined;
        },
        "the invitation email to be sent by the other worker",
        emailBound + 15_000,
      ),
      until(
        async () => {
          const [row] = await db<
            { status: string }[]
          >`select status from sms_messages where workspace_id = ${ws.id} and id = ${sms.body.id}`;
          return row?.status === "sent" ? performance.now() - killed : undefined;
        },
        "the SMS to be sent by the other worker",
        smsBound + 15_000,
      ),
    ]);
    console.log(
      `after a worker was killed holding them: the invitation email was sent ${(emailMs / 1000).toFixed(1)} s later ` +
        `(bound ${emailBound / 1000} s; its expiry was ${inviteEmailQueuePolicy.expireInSeconds} s), the SMS ${(smsMs / 1000).toFixed(1)} s later ` +
        `(bound ${smsBound / 1000} s; its expiry was ${smsQueuePolicy.expireInSeconds} s)`,
    );
    expect(emailMs).toBeLessThan(emailBound);
    expect(smsMs).toBeLessThan(smsBound);
    // Once each: one email accepted, one message created at the provider.
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    expect(provider.created.size).toBe(1);
  } finally {
    victim.kill("SIGKILL");
    rescuer?.kill("SIGTERM");
    await rescuer?.exited;
  }
}, 150_000);
