/**
 * The contractor's page in Chromium, without JavaScript, on a 375 px phone: the link read from the email the link
 * job sent to an SMTP server, the page opened, the order accepted, an appointment agreed, a visit without access, a
 * new appointment and a completed visit; the repair's clocks met accordingly. Every page passes axe-core (WCAG A/AA
 * and best practices) and fits the phone. The app is served in process; the link's delivery is run as its job runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { londonInstant, londonToday } from "../../src/core/dates.ts";
import { createMailer } from "../../src/email/transport.ts";
import { deliverContractorLink } from "../../src/maintenance_pro/contractor_link.ts";
import { parseEmail, startSmtpServer, type TestSmtp } from "../email/smtp.ts";
import { haveChromium } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import {
  expectAccessibleAndFitting,
  jpegDrawn,
  openPhone,
  type PhoneBrowser,
  serveApp,
} from "../support/phone_browser.ts";
import { contractorWorld } from "./contractor_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

describe.skipIf(!haveChromium("contractor browser test"))(
  "the contractor's page in Chromium, without JavaScript",
  async () => {
    const h = await harness();
    let smtp: TestSmtp;
    let server: ReturnType<typeof Bun.serve>;
    let phone: PhoneBrowser | undefined;
    let page: Page;
    let ctx: typeof h.ctx;

    beforeAll(async () => {
      smtp = await startSmtpServer();
      ({ ctx, server } = serveApp((base) => ({
        ...h.ctx,
        config: { ...h.ctx.config, smtpUrl: smtp.url, publicBaseUrl: base, portalBudgetPerMinute: 100_000 },
      })));
      phone = await openPhone();
      page = phone.page;
    }, 120_000);
    afterAll(async () => {
      await phone?.chrome.close();
      server?.stop(true);
      await smtp?.close();
    });

    const checked = (state: string) => expectAccessibleAndFitting(phone!, state);
    const status = () => page.$eval("#status", (el) => el.textContent ?? "");
    const submit = (button: string) => Promise.all([page.waitForNavigation(), page.click(button)]);
    /** Fills the appointment form (date and time inputs take their value as the browser's own picker sets it). */
    const appointment = async (date: string, from: string, to: string) => {
      for (const [id, value] of [
        ["#date", date],
        ["#from", from],
        ["#to", to],
      ] as const) {
        await page.$eval(
          id,
          (el, v) => {
            (el as unknown as { value: string }).value = v;
          },
          value,
        );
      }
      await submit("#schedule");
    };

    test("email, page, accept, appointment, no access, completed: the make-safe clock met", async () => {
      const { world, call, repair, raise, contractorEmail } = await contractorWorld(h);
      const db = h.database.db;
      await db`
        update properties set address_line1 = '4 Mill Lane', address_town = 'Bristol', address_postcode = 'BS3 1AS'
        where workspace_id = ${world.ws.id} and id = ${world.propertyId}`;
      const order = await raise({ purpose: "make_safe", instructions: "Water through the kitchen ceiling" });
      const [job] = await db<{ data: { workspaceId: string; worksOrderId: string } }[]>`
        select l.job_id, j.data from contractor_links l join pgboss.job j on j.id = l.job_id
        where l.workspace_id = ${world.ws.id} and l.works_order_id = ${order.id}`;
      // Closed at once: its pooled connection would hold the SMTP server's close for 30 s.
      const mailer = createMailer(ctx.config, ctx.log);
      try {
        expect(await deliverContractorLink(ctx, mailer, job!.data, { final: false })).toBe("sent");
      } finally {
        mailer.close();
      }
      const [message] = smtp.to(contractorEmail);
      const link = /(http:\/\/\S+\/contractor\/[A-Za-z0-9_-]{43})/.exec(parseEmail(message!.raw).text ?? "")![1]!;

      expect((await page.goto(link, { waitUntil: "load" }))!.status()).toBe(200);
      const text = await page.$eval("main", (el) => el.textContent ?? "");
      expect(text).toContain("Flat 2, 4 Mill Lane, 4 Mill Lane, Bristol, BS3 1AS");
      expect(text).toContain("Water through the kitchen ceiling");
      expect(await status()).toBe("Waiting for you to accept or decline");
      await checked("raised");

      await submit("#accept");
      expect(page.url()).toBe(link);
      expect(await status()).toBe("Accepted: please agree an appointment");
      await checked("accepted");

      const tomorrow = londonToday(Date.now() + 86_400_000);
      await appointment(tomorrow, "08:00", "10:00");
      expect(await status()).toBe("Appointment agreed");
      expect(await page.$eval("#appointment", (el) => el.textContent ?? "")).toContain("08:00 (UK time)");
      await checked("scheduled");

      await page.click("#outcome-no_access");
      await page.type("#note", "Rang the bell and phoned the tenant twice, no answer");
      // Without a photo, "no access" is not taken: the page says what is missing.
      await submit("#visit");
      expect(await page.$eval("[role=alert]", (el) => el.textContent ?? "")).toContain("at least one photo");
      await page.click("#outcome-no_access");
      await page.type("#note", "Rang the bell and phoned the tenant twice, no answer");
      const scratch = mkdtempSync(join(tmpdir(), "contractor-photo-"));
      try {
        const photo = join(scratch, "door.jpg");
        writeFileSync(photo, await jpegDrawn(phone!, 120, 90, "#a05030"));
        const input = await page.$("#photo");
        await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(photo);
        await submit("#visit");
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      expect(await status()).toBe("No access at the last visit: please agree a new appointment");
      // The photo shows on the page, served behind the link and decoded by Chromium at its size.
      const shown = await page.$eval("ul.photos img", (img) => [
        (img as unknown as { naturalWidth: number }).naturalWidth,
        (img as unknown as { naturalHeight: number }).naturalHeight,
        img.getAttribute("alt"),
      ]);
      expect(shown).toEqual([120, 90, "Photo 1 of the repair, sent by a contractor"]);
      await checked("no access");

      await appointment(tomorrow, "12:00", "13:30");
      expect(await status()).toBe("Appointment agreed");
      await page.click("#outcome-completed");
      await page.type("#note", "Isolated the leak, ceiling propped");
      await submit("#visit");
      expect(await status()).toBe("Completed");
      expect(await page.$("form")).toBeNull();
      await checked("completed");

      const done = expectStatus(
        await h.request("GET", `/maintenance-pro/works-orders/${order.id}`, { key: world.ws.key }),
        200,
      );
      expect(done).toMatchObject({ status: "completed", revision: 6 });
      expect(done.appointment.startsAt).toBe(new Date(londonInstant(tomorrow, "12:00")).toISOString());
      const after = expectStatus(await call.get(repair.id), 200);
      expect(after.accessAttempts.map((a: { outcome: string }) => a.outcome)).toEqual(["no_answer"]);
      expect(after.milestones.map((m: { kind: string }) => m.kind)).toEqual(["made_safe"]);
      const clock = (kind: string) => after.clocks.find((c: { kind: string }) => c.kind === kind);
      expect(clock("emergency_make_safe").status).toBe("met");
      expect(clock("emergency_investigate").status).toBe("running");
    }, 120_000);
  },
);
