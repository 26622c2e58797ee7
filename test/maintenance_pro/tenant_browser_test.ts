/**
 * The tenant's pages in Chromium, without JavaScript, on a 375 px phone: ask for a link, open it from the email the
 * link worker wrote (or the SMS it queued), continue, report a repair, see its reference, find the link used; every
 * page passes axe-core (WCAG A/AA and best practices) and fits the phone. The app is served in process; the
 * worker's delivery is run as the worker runs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import axeCore, { type AxeResults, type RunOptions } from "axe-core";
import type { Page } from "puppeteer-core";
import { buildApp } from "../../src/app.ts";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverTenantLinks, type TenantLinkJob, tenantLinkQueue } from "../../src/maintenance_pro/tenant_link.ts";
import { haveChromium, launchChromium, type TestBrowser } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";

declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };
declare const axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };
const phone = { width: 375, height: 667, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

describe.skipIf(!haveChromium("tenant browser test"))(
  "the tenant's pages in Chromium, without JavaScript",
  async () => {
    const h = await harness();
    const db = h.database.db;
    const ws = await h.workspace();
    const dataDir = mkdtempSync(join(tmpdir(), "tenant-browser-"));
    let server: ReturnType<typeof Bun.serve>;
    let base = "";
    let chrome: TestBrowser | undefined;
    let page: Page;
    let axePage: Page;
    let ctx: typeof h.ctx;

    beforeAll(async () => {
      const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
      const port = probe.port;
      probe.stop(true);
      base = `http://127.0.0.1:${port}`;
      ctx = { ...h.ctx, config: { ...h.ctx.config, dataDir, publicBaseUrl: base, portalBudgetPerMinute: 100_000 } };
      const app = buildApp(ctx);
      server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => app.handle(request) });
      chrome = await launchChromium();
      page = await chrome.browser.newPage();
      await page.setJavaScriptEnabled(false);
      await page.setViewport(phone);
      axePage = await chrome.browser.newPage();
      await axePage.setViewport(phone);
      await page.bringToFront();
    }, 120_000);
    afterAll(async () => {
      await chrome?.close();
      server?.stop(true);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const checked = async (state: string, on: Page = page) => {
      await axePage.setContent(await on.content(), { waitUntil: "load" });
      await axePage.evaluate(axeCore.source);
      const violations = await axePage.evaluate(async () => {
        const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
        const all = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
        return all.violations.map((r) => ({ rule: r.id, nodes: r.nodes.map((n) => n.html) }));
      });
      expect({ state, violations }).toEqual({ state, violations: [] });
      const width = await on.evaluate(() => [
        document.documentElement.scrollWidth,
        document.documentElement.clientWidth,
      ]);
      expect(width[0]).toBeLessThanOrEqual(width[1]!);
    };

    test("ask for a link, open it, report a repair, see its reference", async () => {
      const email = "tess.tenant@example.test";
      const contactId = await h.rows(ws).contact({ name: "Tess Tenant", email, roles: ["tenant"] });
      const propertyId = await h.rows(ws).property();
      await db`update properties set address_postcode = 'BS3 1AS' where workspace_id = ${ws.id} and id = ${propertyId}`;
      const unitId = await h.rows(ws).unit({ propertyId });
      await h.rows(ws).tenancy({ unitId, occupants: [{ contactId, isLead: true }] });

      expect((await page.goto(`${base}/report/${ws.slug}`, { waitUntil: "load" }))!.status()).toBe(200);
      await checked("request");
      await page.type("#postcode", "bs3 1as");
      await page.type("#contact", email);
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      expect(await page.$eval("main", (el) => el.textContent ?? "")).toContain("If we found your tenancy");
      await checked("sent");

      const jobs = await db<{ id: string; data: TenantLinkJob }[]>`
      select id, data from pgboss.job where name = ${tenantLinkQueue} and data->>'slug' = ${ws.slug}`;
      for (const job of jobs) await deliverTenantLinks(ctx, createMailer(ctx.config, ctx.log), job.data, job.id);
      const dir = outboxDir(ctx.config);
      const [file] = readdirSync(dir).filter((f) => f.startsWith("tenant-link-"));
      const link = /(http:\/\/\S+\/report\/\S+\/t\/[A-Za-z0-9_-]{43})/.exec(
        parseEmail(readFileSync(join(dir, file!), "utf8")).text ?? "",
      )![1]!;

      // The link's page spends nothing when fetched: its Continue (a POST) opens the tenancy's page.
      expect((await page.goto(link, { waitUntil: "load" }))!.status()).toBe(200);
      await checked("continue");
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      expect(page.url()).toBe(`${base}/report/${ws.slug}/repairs`);
      await checked("tenancy");
      await page.select("#category", "damp_mould");
      await page.type("#location", "Bedroom");
      await page.type("#description", "Black mould behind the wardrobe");
      const emergency = (await page.$("#emergency"))!;
      expect(await emergency.isVisible()).toBe(false);
      await page.click("#risk-yes");
      // Answering yes shows the emergency numbers before the form is sent, with the page's style alone.
      expect(await emergency.isVisible()).toBe(true);
      await checked("at risk");
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      const [repair] = await db<{ reference: string }[]>`select reference from repairs where workspace_id = ${ws.id}`;
      expect(await page.$eval(".reference", (el) => el.textContent)).toBe(repair!.reference);
      await checked("reported");
      await Promise.all([page.waitForNavigation(), page.click("main a")]);
      expect(await page.$eval("main", (el) => el.textContent ?? "")).toContain("Repairs you reported");

      // The link is spent: another browser (no session) is told so, and how to get a new one.
      const other = await chrome!.browser.createBrowserContext();
      const stranger = await other.newPage();
      await stranger.setJavaScriptEnabled(false);
      await stranger.setViewport(phone);
      expect((await stranger.goto(link, { waitUntil: "load" }))!.status()).toBe(410);
      expect(await stranger.$eval("main", (el) => el.textContent ?? "")).toContain("This link has been used");
      await checked("used", stranger);
      await other.close();
    }, 120_000);

    test("ask for a link with a mobile number, open it from the SMS, see the tenancy's page", async () => {
      await db`insert into sms_numbers (number, workspace_id, source) values ('+441174960777', ${ws.id}, 'cli')`;
      const contactId = await h.rows(ws).contact({ name: "Sam Tenant", mobile: "07700 900456", roles: ["tenant"] });
      const propertyId = await h.rows(ws).property();
      await db`update properties set address_postcode = 'BS5 9QP' where workspace_id = ${ws.id} and id = ${propertyId}`;
      const unitId = await h.rows(ws).unit({ propertyId, label: "Flat 9" });
      await h.rows(ws).tenancy({ unitId, occupants: [{ contactId, isLead: true }] });
      await db`delete from pgboss.job where name = ${tenantLinkQueue}`;

      await page.goto(`${base}/report/${ws.slug}`, { waitUntil: "load" });
      await page.type("#postcode", "BS5 9QP");
      await page.type("#contact", "07700 900456");
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      const jobs = await db<{ id: string; data: TenantLinkJob }[]>`
      select id, data from pgboss.job where name = ${tenantLinkQueue} and data->>'slug' = ${ws.slug}`;
      for (const job of jobs) await deliverTenantLinks(ctx, createMailer(ctx.config, ctx.log), job.data, job.id);
      const [sms] = await db<{ body: string }[]>`
        select m.body from sms_messages m join sms_threads t on t.workspace_id = m.workspace_id and t.id = m.thread_id
        where m.workspace_id = ${ws.id} and t.address = '+447700900456'`;
      const link = /(http:\/\/\S+\/report\/\S+\/t\/[A-Za-z0-9_-]{43})/.exec(sms!.body)![1]!;

      expect((await page.goto(link, { waitUntil: "load" }))!.status()).toBe(200);
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      expect(await page.$eval("main", (el) => el.textContent ?? "")).toContain("Flat 9");
      await checked("tenancy by SMS");
    }, 120_000);
  },
);
