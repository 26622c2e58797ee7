/**
 * Delivery of invitation emails: queued with the invitation's transaction, sent at least once and never twice
 * for one invitation, across crashes and restarts; retried, then dead-lettered with the reason kept.
 * No worker runs in this file until a test starts one, standing for a service process (re)starting.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { startSmtpServer, parseEmail } from "../email/smtp.ts";
import { Jobs, queues } from "../../src/core/jobs.ts";
import { createLogger } from "../../src/core/log.ts";
import { createMailer, type Mailer } from "../../src/email/transport.ts";
import {
  deliverInvitationEmail,
  inviteEmailQueuePolicy,
  startInviteEmailWorker,
} from "../../src/maintenance_pro/invite_email_worker.ts";
import { hashInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { addContact, eventually, invitationsOf, inviteJobs } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const smtp = await startSmtpServer();
afterAll(() => smtp.close());
const config = { ...h.ctx.config, smtpUrl: smtp.url, portalBaseUrl: "https://portal.test" };
const log = createLogger("silent");

// This file's queue retries once after a second, and expires a job whose worker died after 3 s, so that the
// crash and dead-letter paths finish within a test. The service's own policy is inviteEmailQueuePolicy.
const { retryDelayMax: _, ...servicePolicy } = inviteEmailQueuePolicy;
const testPolicy = { ...servicePolicy, retryLimit: 1, retryDelay: 1, retryBackoff: false, expireInSeconds: 3 };
await h.ctx.jobs.ensureQueue(queues.inviteEmail, testPolicy);

const ws = await h.workspace();
const invite = (contactId: string) =>
  h.request("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`, { key: ws.key });

/** Starts a fresh job queue with the invitation worker, as a restarted service process does; stopped after `run`. */
async function withWorker(run: (jobs: Jobs) => Promise<void>, mailer?: Mailer) {
  const jobs = new Jobs(h.database.url, log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  try {
    await startInviteEmailWorker({ ...h.ctx, config, jobs }, { mailer });
    await run(jobs);
  } finally {
    await jobs.stop(5000);
  }
}

/** Sessions of this test's database waiting for a row lock (another transaction holds it). */
const lockWaits = async () =>
  (
    await db<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`
  )[0]!.n;
const jobState = async (jobId: string) => (await inviteJobs(db, ws.id)).find((j) => j.id === jobId)?.state;
const tokenIn = (raw: string) =>
  /https:\/\/portal\.test\/invitations\/([A-Za-z0-9_-]+)/.exec(parseEmail(raw).text ?? "")![1]!;

describe("queueing with the transaction", () => {
  test("an invite that rolls back after queueing its email leaves no job, no invitation and no access", async () => {
    const landlord = await addContact(db, ws);
    // The activity log insert comes after the job is queued: failing it rolls the whole transaction back.
    await db.unsafe(`
      create or replace function fail_invite_of_${landlord.id.toLowerCase()}() returns trigger language plpgsql as $$
      begin
        if new.subject_id = '${landlord.id}' then raise exception 'injected failure'; end if;
        return new;
      end $$;
      create trigger fail_invite_${landlord.id.toLowerCase()} before insert on activity_log
        for each row execute function fail_invite_of_${landlord.id.toLowerCase()}();`);
    const jobsBefore = await inviteJobs(db, ws.id);
    const res = await invite(landlord.id);
    expect(res.status).toBe(500);
    expect(res.body._tag).toBe("InternalError");
    expect(await inviteJobs(db, ws.id)).toEqual(jobsBefore);
    expect(await invitationsOf(db, ws.id, landlord.id)).toHaveLength(0);
    expect(
      await db`select 1 from landlord_portal_access where workspace_id = ${ws.id} and contact_id = ${landlord.id}`,
    ).toHaveLength(0);
    await db.unsafe(`drop trigger fail_invite_${landlord.id.toLowerCase()} on activity_log`);
    expect((await invite(landlord.id)).status).toBe(200);
    expect(await inviteJobs(db, ws.id)).toHaveLength(jobsBefore.length + 1);
  });
});

describe("at least once, never twice", () => {
  test("a crash between commit and send: the email goes out exactly once after restart", async () => {
    const landlord = await addContact(db, ws);
    expect((await invite(landlord.id)).status).toBe(200);
    // The process went down before any worker took the job: it waits in the database.
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    expect(await jobState(invitation!.jobId)).toBe("created");
    expect(smtp.to(landlord.email!)).toHaveLength(0);
    await withWorker(async () => {
      await eventually(async () => (await jobState(invitation!.jobId)) === "completed", "the job to complete");
    });
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    const [sent] = await invitationsOf(db, ws.id, landlord.id);
    expect(sent).toMatchObject({ status: "sent", attempts: 1 });
    expect(sent!.tokenHash).toEqual(hashInvitationToken(tokenIn(smtp.to(landlord.email!)[0]!.raw)));
  });

  test("a worker process killed while sending: nothing was delivered, and after restart the email goes out exactly once", async () => {
    const landlord = await addContact(db, ws);
    smtp.behave(landlord.email!, "stall");
    const stalled = smtp.receiving(landlord.email!);
    expect((await invite(landlord.id)).status).toBe(200);
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    const child = Bun.spawn(["bun", join(import.meta.dir, "worker_process.ts")], {
      env: {
        ...process.env,
        DATABASE_URL: h.database.url,
        SMTP_URL: smtp.url,
        PORTAL_BASE_URL: "https://portal.test",
        LOG_LEVEL: "silent",
      },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await stalled; // the child's worker holds the job and is in the middle of SMTP DATA
      expect(await jobState(invitation!.jobId)).toBe("active");
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
    // Its expiry (expireInSeconds after its start) passed: the start moved back an hour rather than waited for.
    await db`update pgboss.job set started_on = started_on - interval '1 hour' where id = ${invitation!.jobId}::uuid`;
    smtp.behave(landlord.email!, "accept");
    expect(smtp.to(landlord.email!)).toHaveLength(0);
    await withWorker(async () => {
      await eventually(
        async () => (await jobState(invitation!.jobId)) === "completed",
        "the expired job to be retried and complete",
      );
    });
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    const [sent] = await invitationsOf(db, ws.id, landlord.id);
    expect(sent).toMatchObject({ status: "sent", attempts: 1 });
    expect(sent!.tokenHash).toEqual(hashInvitationToken(tokenIn(smtp.to(landlord.email!)[0]!.raw)));
  });

  test("two runs of one invitation's job at once send one email: the second waits for the first and finds it sent", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    const smtpMailer = createMailer(config, log);
    // A server that holds the first run in its sending until the second run is waiting for the ledger row.
    let sending!: () => void;
    const firstSending = new Promise<void>((resolve) => (sending = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: Mailer = {
      ...smtpMailer,
      send: async (m) => {
        sending();
        await released;
        return smtpMailer.send(m);
      },
    };
    const job = { workspaceId: ws.id, invitationId: invitation!.id };
    const first = deliverInvitationEmail({ db, config }, held, job, { final: false });
    await firstSending;
    const second = deliverInvitationEmail({ db, config }, held, job, { final: false });
    try {
      await eventually(async () => (await lockWaits()) > 0, "the second run to wait for the ledger row's lock");
    } finally {
      release();
    }
    const outcomes = await Promise.all([first, second]);
    smtpMailer.close();
    expect(outcomes.sort()).toEqual(["already_sent", "sent"]);
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    // The queued job itself, run later by a worker, sends nothing more.
    await withWorker(async () => {
      await eventually(async () => (await jobState(invitation!.jobId)) === "completed", "the job to complete");
    });
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    expect((await invitationsOf(db, ws.id, landlord.id))[0]).toMatchObject({ status: "sent", attempts: 1 });
  });

  test("an invitation superseded before its email went out is not sent; only the newest link is", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    await invite(landlord.id);
    const [older, newer] = await invitationsOf(db, ws.id, landlord.id);
    await withWorker(async () => {
      await eventually(
        async () => (await jobState(older!.jobId)) === "completed" && (await jobState(newer!.jobId)) === "completed",
        "both jobs",
      );
    });
    const [message, ...more] = smtp.to(landlord.email!);
    expect(more).toHaveLength(0);
    const [olderAfter, newerAfter] = await invitationsOf(db, ws.id, landlord.id);
    expect(olderAfter).toMatchObject({
      status: "skipped",
      lastError: "superseded by a newer invitation",
      tokenHash: null,
    });
    expect(newerAfter).toMatchObject({ status: "sent" });
    expect(newerAfter!.tokenHash).toEqual(hashInvitationToken(tokenIn(message!.raw)));
  });

  test("an invitation whose access was revoked before its email went out is not sent", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    await db`update landlord_portal_access set status = 'revoked', revoked_at = now() where workspace_id = ${ws.id} and contact_id = ${landlord.id}`;
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    await withWorker(async () => {
      await eventually(async () => (await jobState(invitation!.jobId)) === "completed", "the job");
    });
    expect(smtp.to(landlord.email!)).toHaveLength(0);
    expect((await invitationsOf(db, ws.id, landlord.id))[0]).toMatchObject({
      status: "skipped",
      lastError: "portal access is revoked",
    });
  });
});

describe("retries and the dead-letter queue", () => {
  test("a send the server refuses once is retried and then delivered once", async () => {
    const landlord = await addContact(db, ws);
    smtp.behave(landlord.email!, "reject");
    await invite(landlord.id);
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    await withWorker(async () => {
      await eventually(
        async () => (await invitationsOf(db, ws.id, landlord.id))[0]!.status === "failed",
        "the first attempt to fail",
      );
      smtp.behave(landlord.email!, "accept");
      await eventually(async () => (await jobState(invitation!.jobId)) === "completed", "the retry to complete");
    });
    expect(smtp.to(landlord.email!)).toHaveLength(1);
    expect((await invitationsOf(db, ws.id, landlord.id))[0]).toMatchObject({
      status: "sent",
      attempts: 2,
      lastError: null,
      deadLetteredAt: null,
    });
  });

  test("a send that keeps failing is dead-lettered after its retries, with the reason kept on the job and in the ledger", async () => {
    const landlord = await addContact(db, ws);
    smtp.behave(landlord.email!, "reject");
    await invite(landlord.id);
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);
    await withWorker(async (jobs) => {
      const boss = await jobs.boss();
      const [dead] = await eventually(async () => {
        const found = await boss.findJobs(inviteEmailQueuePolicy.deadLetter!, {
          data: { invitationId: invitation!.id },
        });
        return found.length ? found : undefined;
      }, "the dead-lettered job");
      expect(dead!.data).toEqual({ workspaceId: ws.id, invitationId: invitation!.id });
      const [failed] = await boss.findJobs(queues.inviteEmail, { id: invitation!.jobId });
      expect(failed!.state).toBe("failed");
      expect(JSON.stringify(failed!.output)).toContain("Mailbox unavailable");
    });
    const [ledger] = await invitationsOf(db, ws.id, landlord.id);
    expect(ledger).toMatchObject({ status: "failed", attempts: 2 });
    expect(ledger!.lastError).toContain("550");
    expect(ledger!.deadLetteredAt).not.toBeNull();
    expect(smtp.to(landlord.email!)).toHaveLength(0);
  });
});
