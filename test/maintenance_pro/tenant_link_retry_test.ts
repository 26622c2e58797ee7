/**
 * The link worker sends each occupant's link once per request: a job whose mailer fails on its second match is
 * retried by pg-boss, and the retry sends only what the failed attempt did not.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { buildApp } from "../../src/app.ts";
import { Jobs } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { createMailer, type Mailer, outboxDir } from "../../src/email/transport.ts";
import {
  startTenantLinkWorker,
  tenantLinkQueue,
  tenantLinkQueuePolicy,
} from "../../src/maintenance_pro/tenant_link.ts";
import { harness } from "../support/harness.ts";
import { until } from "../telephony/fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
const ws = await h.workspace();
const rows = h.rows(ws);

// This file's queue: a failed job is retried after a second.
const { retryDelayMax: _, ...policy } = tenantLinkQueuePolicy;
await h.ctx.jobs.ensureQueue(tenantLinkQueue, { ...policy, retryDelay: 1, retryBackoff: false });

const running: Jobs[] = [];
afterAll(async () => {
  for (const jobs of running) await jobs.stop(2000).catch(() => {});
  rmSync(ctx.config.dataDir, { recursive: true, force: true });
});

test("a job whose mailer fails on the second match is retried and sends each occupant exactly one email", async () => {
  // One tenant renting two flats at one postcode: two matches for one request.
  const email = "two.flats@example.test";
  const contactId = await rows.contact({ name: "Tess Tenant", email, roles: ["tenant"] });
  const propertyId = await rows.property();
  await db`update properties set address_postcode = 'BS8 1TH' where workspace_id = ${ws.id} and id = ${propertyId}`;
  const tenancies = [];
  for (const label of ["Flat 1", "Flat 2"]) {
    const unitId = await rows.unit({ propertyId, label });
    tenancies.push(await rows.tenancy({ unitId, occupants: [{ contactId, isLead: true }] }));
  }

  const outbox = createMailer(ctx.config, ctx.log);
  const attempts: string[] = [];
  const delivered: string[] = [];
  const flaky: Mailer = {
    kind: "outbox",
    async send(message) {
      attempts.push(message.reference);
      if (attempts.length === 2) throw new Error("SMTP connection lost");
      delivered.push(message.reference);
      return outbox.send(message);
    },
    close: () => {},
  };
  const jobs = new Jobs(h.database.url, h.ctx.log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  running.push(jobs);
  const workerCtx: AppContext = { ...ctx, jobs };
  await startTenantLinkWorker(workerCtx, { mailer: flaky });

  const app = buildApp(ctx);
  const res = await app.handle(
    new Request(`http://localhost/report/${ws.slug}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ postcode: "BS8 1TH", contact: email }).toString(),
    }),
  );
  expect(res.status).toBe(200);
  const boss = await h.ctx.jobs.boss();
  const job = await until(async () => {
    const [found] = await boss.findJobs(tenantLinkQueue, { data: { slug: ws.slug } });
    return found?.state === "completed" ? found : undefined;
  }, "the link job to complete after its retry");

  expect(job.retryCount).toBe(1);
  expect(attempts.length).toBe(3);
  expect(delivered.length).toBe(2);
  const links = await db<{ id: string; tenancyId: string }[]>`
    select id, tenancy_id as "tenancyId" from tenant_links where workspace_id = ${ws.id} order by tenancy_id`;
  expect(links.map((l) => l.tenancyId)).toEqual([...tenancies].sort());
  expect(delivered.sort()).toEqual(links.map((l) => `tenant-link-${l.id}`).sort());
  expect(readdirSync(outboxDir(ctx.config)).length).toBe(2);
  await jobs.stop(2000);
});
