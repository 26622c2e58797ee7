/**
 * The contractor's link: a raise queues its email in the raise's transaction; the worker sends it once (its ledger
 * locked while sending), through SMTP, with a random token stored only as its SHA-256; the link opens the order's
 * page (address, instructions, who to contact, requiredBy in UK time, the key set) under the pages' policy; unknown
 * tokens, suspended workspaces and links of orders closed longer than the grace period are refused.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { ulid } from "ulid";
import { buildApp } from "../../src/app.ts";
import { Jobs } from "../../src/core/jobs.ts";
import { createLogger } from "../../src/core/log.ts";
import { ukTimeText } from "../../src/core/dates.ts";
import { createMailer, type Mailer } from "../../src/email/transport.ts";
import {
  contractorLinkQueue,
  deliverContractorLink,
  startContractorLinkWorker,
} from "../../src/maintenance_pro/contractor_link.ts";
import { contractorPolicy } from "../../src/maintenance_pro/contractor_page.ts";
import { contractorLinkGraceDays } from "../../src/maintenance_pro/contractor_queries.ts";
import { parseEmail, startSmtpServer } from "../email/smtp.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox, tokenInText } from "./contractor_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const smtp = await startSmtpServer();
const ctx = outboxContext(h);
// The tests' own SMTP mailers keep pooled connections open, which the server's close would wait out (30 s).
const mailers: Mailer[] = [];
const smtpMailer = (log = createLogger("silent")) => {
  const mailer = createMailer(smtpConfig, log);
  mailers.push(mailer);
  return mailer;
};
afterAll(async () => {
  for (const mailer of mailers) mailer.close();
  await smtp.close();
  rmSync(ctx.config.dataDir, { recursive: true, force: true });
});
const smtpConfig = { ...h.ctx.config, smtpUrl: smtp.url, publicBaseUrl: "https://lettings.test" };
const { page } = contractorCalls(ctx);

const ledger = async (workspaceId: string, worksOrderId: string) => {
  const [row] = await db<{ status: string; attempts: number; tokenHash: Buffer | null; jobId: string }[]>`
    select status, attempts, token_hash, job_id from contractor_links
    where workspace_id = ${workspaceId} and works_order_id = ${worksOrderId}`;
  return row;
};

/** Polls until `check` answers something (the worker's commit), failing after 20 s. */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await Bun.sleep(50);
  }
  throw new Error("never happened");
}

describe("the link email", () => {
  test("a raise queues one job and a ledger row in its transaction; the worker sends it by SMTP, once", async () => {
    const { world, raise, contractorEmail } = await contractorWorld(h);
    const order = await raise({ instructions: "Make the ceiling safe" });
    const queued = await ledger(world.ws.id, order.id);
    expect(queued).toMatchObject({ status: "queued", attempts: 0, tokenHash: null });
    const jobs =
      await db`select id, data from pgboss.job where name = ${contractorLinkQueue} and id = ${queued!.jobId}`;
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: world.ws.id, worksOrderId: order.id }]);

    const log = createLogger("silent");
    const jobsClient = new Jobs(h.database.url, log);
    try {
      await startContractorLinkWorker({ ...h.ctx, config: smtpConfig, jobs: jobsClient });
      const sent = await eventually(async () => {
        const row = await ledger(world.ws.id, order.id);
        return row?.status === "sent" ? row : undefined;
      });
      expect(sent.attempts).toBe(1);
      const [message] = smtp.to(contractorEmail);
      const email = parseEmail(message!.raw);
      expect(email.headers.subject).toBe(`Works order ${order.reference} from Workspace ${world.ws.slug}`);
      const token = tokenInText(email.text ?? "");
      expect(email.text).toContain(`https://lettings.test/contractor/${token}`);
      expect(email.text).toContain(`required by ${ukTimeText(order.requiredBy)}`);
      // Only the token's hash is stored.
      expect(sent.tokenHash).toEqual(createHash("sha256").update(token).digest());
      const stored = await db`select * from contractor_links where works_order_id = ${order.id}`;
      expect(JSON.stringify(stored)).not.toContain(token);
      // The job run again (a retry after a crash) sends nothing more.
      const mailer = smtpMailer(log);
      const again = await deliverContractorLink({ ...h.ctx, config: smtpConfig }, mailer, jobs[0]!.data, {
        final: false,
      });
      expect(again).toBe("already_sent");
      expect(smtp.to(contractorEmail)).toHaveLength(1);
    } finally {
      await jobsClient.stop(5000);
    }
  });

  test("two runs of the job at once send one email (the ledger row is locked while sending)", async () => {
    const { world, raise, contractorEmail } = await contractorWorld(h);
    const order = await raise();
    const mailer = smtpMailer();
    const job = { workspaceId: world.ws.id, worksOrderId: order.id };
    const outcomes = await Promise.all([
      deliverContractorLink({ ...h.ctx, config: smtpConfig }, mailer, job, { final: false }),
      deliverContractorLink({ ...h.ctx, config: smtpConfig }, mailer, job, { final: false }),
    ]);
    expect(outcomes.sort()).toEqual(["already_sent", "sent"]);
    expect(smtp.to(contractorEmail)).toHaveLength(1);
  });

  test("a raise that rolls back queues no job and keeps no ledger row", async () => {
    const { world, raise } = await contractorWorld(h);
    const before = await db`select count(*)::int as n from pgboss.job where name = ${contractorLinkQueue}`;
    // The activity entry is written after the job is queued: failing it rolls the raise back.
    const fn = `fail_raise_${world.ws.id.toLowerCase()}`;
    await db.unsafe(`
      create function ${fn}() returns trigger language plpgsql as $$
      begin
        if new.workspace_id = '${world.ws.id}' and new.action = 'maintenance-pro.works_order_raised' then
          raise exception 'injected failure';
        end if;
        return new;
      end $$;
      create trigger ${fn} before insert on activity_log for each row execute function ${fn}();`);
    try {
      await expect(raise()).rejects.toThrow("expected 201, got 500");
    } finally {
      await db.unsafe(`drop trigger ${fn} on activity_log; drop function ${fn}();`);
    }
    const after = await db`select count(*)::int as n from pgboss.job where name = ${contractorLinkQueue}`;
    expect(after[0]!.n).toBe(before[0]!.n);
    expect(await db`select 1 from contractor_links where workspace_id = ${world.ws.id}`).toHaveLength(0);
    expect(await db`select 1 from works_orders where workspace_id = ${world.ws.id}`).toHaveLength(0);
  });

  test("no email is sent to a contractor without an address, nor for an order cancelled first", async () => {
    const { world, raise, contractorId } = await contractorWorld(h);
    const cancelled = await raise();
    expectStatus(
      await h.request("POST", `/maintenance-pro/works-orders/${cancelled.id}/cancel`, {
        key: world.ws.key,
        body: { expectedRevision: 1, reason: "Raised by mistake" },
      }),
      200,
    );
    const mailer = smtpMailer();
    const deliver = (worksOrderId: string) =>
      deliverContractorLink(
        { ...h.ctx, config: smtpConfig },
        mailer,
        { workspaceId: world.ws.id, worksOrderId },
        {
          final: false,
        },
      );
    expect(await deliver(cancelled.id)).toBe("skipped");
    await db`update contacts set email = null where workspace_id = ${world.ws.id} and id = ${contractorId}`;
    const noAddress = await raise();
    expect(await deliver(noAddress.id)).toBe("skipped");
    expect((await ledger(world.ws.id, noAddress.id))!.status).toBe("skipped");
    expect(await deliver(ulid())).toBe("missing");
  });
});

describe("the page of a link", () => {
  test("shows the address, instructions, who to contact, requiredBy in UK time and the key set", async () => {
    const { world, raise } = await contractorWorld(h);
    await db`
      update properties set address_line1 = '4 Mill Lane', address_town = 'Bristol', address_postcode = 'BS3 1AS'
      where workspace_id = ${world.ws.id} and id = ${world.propertyId}`;
    const keySetId = ulid();
    await db`
      insert into key_sets (workspace_id, id, reference, label, unit_id, status, holder_type)
      values (${world.ws.id}, ${keySetId}, 'K-12', 'Front door and meter cupboard', ${world.unitId}, 'in_office',
              'office')`;
    const order = await raise({ instructions: "Isolate the <leak> & make safe", keySetId });
    const token = await deliverToOutbox(ctx, world.ws.id, order.id);
    const res = await page(token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(contractorPolicy);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text).toContain(`Works order ${order.reference}`);
    expect(res.text).toContain("Flat 2, 4 Mill Lane, 4 Mill Lane, Bristol, BS3 1AS");
    expect(res.text).toContain("Isolate the &lt;leak&gt; &amp; make safe");
    expect(res.text).toContain(ukTimeText(order.requiredBy));
    expect(res.text).toContain("Key set K-12: Front door and meter cupboard");
    expect(res.text).toContain(`Workspace ${world.ws.slug}: `);
    expect(res.text).toContain(`owner@${world.ws.slug}.test`);
    expect(res.text).not.toContain("<script");
  });

  test("an unknown token, a malformed one and a suspended workspace's link are not found", async () => {
    const { world, raise } = await contractorWorld(h);
    const order = await raise();
    const token = await deliverToOutbox(ctx, world.ws.id, order.id);
    expect((await page(token)).status).toBe(200);
    const unknown = Buffer.alloc(32, 7).toString("base64url");
    expect((await page(unknown)).status).toBe(404);
    expect((await page("not-a-token")).status).toBe(404);
    expect((await page(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`)).status).toBe(404);
    await db`update workspaces set suspended_at = now() where id = ${world.ws.id}`;
    expect((await page(token)).status).toBe(404);
  });

  test("every request counts against the per-address budget `contractor`: beyond it, 429 as a page", async () => {
    const { world, raise } = await contractorWorld(h);
    const order = await raise();
    const token = await deliverToOutbox(ctx, world.ws.id, order.id);
    // An app whose budget is 2 a minute, behind one proxy (so each address below is a client of its own).
    const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 2, trustedProxyHops: 1 } });
    const from = (address: string) =>
      app.handle(
        new Request(`http://localhost/contractor/${token}`, {
          headers: { accept: "text/html", "x-forwarded-for": address },
        }),
      );
    expect((await from("203.0.113.7")).status).toBe(200);
    expect((await from("203.0.113.7")).status).toBe(200);
    const refused = await from("203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(await refused.text()).toContain("Too many requests");
    expect((await from("203.0.113.8")).status).toBe(200);
  });

  test(`a closed order's link opens read-only for ${contractorLinkGraceDays} days, then is refused`, async () => {
    const { world, raise } = await contractorWorld(h);
    const order = await raise();
    const token = await deliverToOutbox(ctx, world.ws.id, order.id);
    expectStatus(
      await h.request("POST", `/maintenance-pro/works-orders/${order.id}/cancel`, {
        key: world.ws.key,
        body: { expectedRevision: 1, reason: "The tenant fixed it" },
      }),
      200,
    );
    const closed = await page(token);
    expect(closed.status).toBe(200);
    expect(closed.text).toContain("Cancelled by the agency");
    expect(closed.text).toContain("The tenant fixed it");
    expect(closed.text).not.toContain("<form");
    await db`
      update works_orders set updated_at = now() - make_interval(days => ${contractorLinkGraceDays}, secs => -60)
      where workspace_id = ${world.ws.id} and id = ${order.id}`;
    expect((await page(token)).status).toBe(200);
    await db`
      update works_orders set updated_at = now() - make_interval(days => ${contractorLinkGraceDays})
      where workspace_id = ${world.ws.id} and id = ${order.id}`;
    const expired = await page(token);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("This link has expired");
  });
});
