/**
 * The tenant's pages in Chromium, without JavaScript, on a 375 px phone: ask for a link, open it from the email the
 * link worker wrote (or the SMS it queued), continue with a double click, report a repair with a photo, see its
 * reference, the photo (decoded from its route behind the session) and the clock's sentence, then the written summary
 * the agency recorded for the portal; find the link used in another browser. Every page passes axe-core (WCAG A/AA
 * and best practices) and fits the phone. The app is served in process; the worker's delivery is run as the worker
 * runs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverTenantLinks, type TenantLinkJob, tenantLinkQueue } from "../../src/maintenance_pro/tenant_link.ts";
import { haveChromium } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import {
  expectAccessibleAndFitting,
  jpegDrawn,
  openPhone,
  type PhoneBrowser,
  phone as phoneScreen,
  serveApp,
} from "../support/phone_browser.ts";
import { parseEmail } from "../email/smtp.ts";

describe.skipIf(!haveChromium("tenant browser test"))(
  "the tenant's pages in Chromium, without JavaScript",
  async () => {
    const h = await harness();
    const db = h.database.db;
    const ws = await h.workspace();
    const dataDir = mkdtempSync(join(tmpdir(), "tenant-browser-"));
    let server: ReturnType<typeof Bun.serve>;
    let base = "";
    let phone: PhoneBrowser | undefined;
    let page: Page;
    let ctx: typeof h.ctx;
    /**
     * A double click as a person makes it: the server holds the answer to the first POST of a link (which has spent
     * the link) until the second POST arrives, so the browser sends the second while the first is in flight.
     */
    let doubleClick:
      | { count: number; first: PromiseWithResolvers<void>; second: PromiseWithResolvers<void> }
      | undefined;

    beforeAll(async () => {
      ({ base, ctx, server } = serveApp(
        (base) => ({
          ...h.ctx,
          config: { ...h.ctx.config, dataDir, publicBaseUrl: base, portalBudgetPerMinute: 100_000 },
        }),
        (handle) => async (request) => {
          const held = doubleClick;
          if (!held || request.method !== "POST" || !new URL(request.url).pathname.includes("/t/"))
            return handle(request);
          if (++held.count > 1) {
            held.second.resolve();
            return handle(request);
          }
          const answer = await handle(request);
          held.first.resolve();
          await held.second.promise;
          return answer;
        },
      ));
      phone = await openPhone();
      page = phone.page;
    }, 120_000);
    afterAll(async () => {
      await phone?.chrome.close();
      server?.stop(true);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const mainText = (on: Page = page) => on.$eval("main", (el) => el.textContent ?? "");

    const checked = (state: string, on: Page = page) => expectAccessibleAndFitting(phone!, state, on);

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

      // The link's page spends nothing when fetched: its Continue (a POST) opens the tenancy's page, also when
      // double-clicked: the second POST, sent while the first is in flight, is the answer the browser keeps.
      expect((await page.goto(link, { waitUntil: "load" }))!.status()).toBe(200);
      await checked("continue");
      const held = { count: 0, first: Promise.withResolvers<void>(), second: Promise.withResolvers<void>() };
      doubleClick = held;
      try {
        const box = (await (await page.$("button[type=submit]"))!.boundingBox())!;
        const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
        const navigated = page.waitForNavigation();
        await page.mouse.click(x, y);
        await held.first.promise;
        // The second press of a double click (its click has detail 2): puppeteer's own click passes a press's count
        // through these options, which its public type leaves out.
        const secondPress = { clickCount: 2 } as Parameters<Page["mouse"]["down"]>[0];
        await page.mouse.down(secondPress);
        await page.mouse.up(secondPress);
        await navigated;
      } finally {
        doubleClick = undefined;
        held.second.resolve();
      }
      // Both presses were sent (a loaded browser may send a press more; each lands on the same session).
      expect(held.count).toBeGreaterThanOrEqual(2);
      expect(page.url()).toBe(`${base}/report/${ws.slug}/repairs`);
      expect(await mainText()).toContain("Report a repair");
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
      const scratch = mkdtempSync(join(tmpdir(), "tenant-photo-"));
      try {
        const photo = join(scratch, "mould.jpg");
        writeFileSync(photo, await jpegDrawn(phone!, 120, 90, "#3060a0"));
        const input = await page.$("#photo");
        await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(photo);
        await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      const [repair] = await db<{ id: string; reference: string }[]>`
        select id, reference from repairs where workspace_id = ${ws.id}`;
      expect(await page.$eval(".reference", (el) => el.textContent)).toBe(repair!.reference);
      await checked("reported");
      await Promise.all([page.waitForNavigation(), page.click("main a")]);
      expect(await mainText()).toContain("Repairs you reported");
      // The photo shows on the page, served behind the session and decoded by Chromium at its size.
      const shown = await page.$eval("ul.photos img", (img) => [
        (img as unknown as { naturalWidth: number }).naturalWidth,
        (img as unknown as { naturalHeight: number }).naturalHeight,
        img.getAttribute("alt"),
        img.getAttribute("src"),
      ]);
      const [stored] = await db<{ id: string }[]>`
        select id from repair_photos where workspace_id = ${ws.id} and repair_id = ${repair!.id}`;
      expect(shown).toEqual([
        120,
        90,
        `Photo 1 sent with the report of ${repair!.reference}`,
        `/report/${ws.slug}/photos/${stored!.id}`,
      ]);
      await checked("photo");

      // The agency assesses it: the page says what must happen by when.
      const key = ws.key;
      const write = async (path: string, body: Record<string, unknown>) => {
        const current = await h.request("GET", `/maintenance-pro/repairs/${repair!.id}`, { key });
        const res = await h.request("POST", `/maintenance-pro/repairs/${repair!.id}/${path}`, {
          key,
          body: { expectedRevision: current.body.revision, ...body },
        });
        expect({ path, status: res.status, body: res.status === 200 ? null : res.body }).toEqual({
          path,
          status: 200,
          body: null,
        });
      };
      await write("triage", { hazard: "significant", hhsrsHazard: "damp_and_mould_growth" });
      await page.reload({ waitUntil: "load" });
      expect(await mainText()).toMatch(/We must inspect the problem by [^.]+\(UK time\)\./);
      await checked("assessed");

      // It records its inspection and the written summary sent through the portal: the page shows the summary.
      const now = () => new Date().toISOString();
      await write("milestones", { kind: "investigated", at: now(), outcome: "hazard_confirmed" });
      const summary = "We found mould from a blocked vent. We will clear it and treat the wall by Friday.";
      await write("milestones", { kind: "summary_sent", at: now(), method: "portal", note: summary });
      expect((await page.reload({ waitUntil: "load" }))!.status()).toBe(200);
      const after = await mainText();
      expect(after).toContain("Written summary sent");
      expect(await page.$eval("main .summary", (el) => el.textContent)).toBe(summary);
      expect(after).toMatch(/We must start the work [^.]+ by [^.]+\(UK time\)\./);
      expect(after).not.toContain("We must send you a written summary");
      await checked("summary");

      // The link is spent: another browser (no session) is told so, and how to get a new one.
      const other = await phone!.chrome.browser.createBrowserContext();
      const stranger = await other.newPage();
      await stranger.setJavaScriptEnabled(false);
      await stranger.setViewport(phoneScreen);
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
