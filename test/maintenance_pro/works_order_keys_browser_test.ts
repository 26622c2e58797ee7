/**
 * The contractor's page of an order naming a key set, in Chromium without JavaScript on a 375 px phone: it says the
 * contractor has the set once the agency checked it out to them, and its form "The key does not work" stores a key
 * report of the repair. Every page passes axe-core (WCAG A/AA and best practices) and fits the phone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Page } from "puppeteer-core";
import { ulid } from "ulid";
import type { AppContext } from "../../src/core/operation.ts";
import { haveChromium } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import { expectAccessibleAndFitting, openPhone, type PhoneBrowser, serveApp } from "../support/phone_browser.ts";
import { contractorWorld, deliverToOutbox } from "./contractor_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

describe.skipIf(!haveChromium("works order keys browser test"))(
  "the key set on the contractor's page in Chromium, without JavaScript",
  async () => {
    const h = await harness();
    let server: ReturnType<typeof Bun.serve>;
    let base = "";
    let ctx: AppContext;
    let phone: PhoneBrowser | undefined;
    let page: Page;

    beforeAll(async () => {
      ({ base, ctx, server } = serveApp((base) => {
        const outbox = outboxContext(h);
        return { ...outbox, config: { ...outbox.config, publicBaseUrl: base, portalBudgetPerMinute: 100_000 } };
      }));
      phone = await openPhone();
      page = phone.page;
    }, 120_000);
    afterAll(async () => {
      await phone?.chrome.close();
      server?.stop(true);
      if (ctx) rmSync(ctx.config.dataDir, { recursive: true, force: true });
    });

    const checked = (state: string) => expectAccessibleAndFitting(phone!, state);
    const main = () => page.$eval("main", (el) => el.textContent ?? "");
    const submit = (button: string) => Promise.all([page.waitForNavigation(), page.click(button)]);

    test("the set checked out to them: 'You have it'; the key does not work: reported, shown, listed", async () => {
      const w = await contractorWorld(h);
      const db = h.database.db;
      const keySetId = ulid();
      await db`
        insert into key_sets (workspace_id, id, reference, label, unit_id, status, holder_type)
        values (${w.world.ws.id}, ${keySetId}, 'BRS-2B-1', 'Front door and communal', ${w.world.unitId},
          'in_office', 'office')`;
      const order = await w.raise({ keySetId, instructions: "Water through the kitchen ceiling" });
      const token = await deliverToOutbox(ctx, w.world.ws.id, order.id);
      const link = `${base}/contractor/${token}`;

      expect((await page.goto(link, { waitUntil: "load" }))!.status()).toBe(200);
      expect(await main()).toContain("Key set BRS-2B-1: Front door and communal. Collect it from us.");
      await checked("to collect");

      expectStatus(
        await h.request("POST", `/maintenance-pro/works-orders/${order.id}/key-set/check-out`, { key: w.world.ws.key }),
        200,
      );
      await page.goto(link, { waitUntil: "load" });
      expect(await main()).toContain("Key set BRS-2B-1: Front door and communal. You have it.");
      await checked("with the contractor");

      // Sent without a note, the browser's own check stops it (no script): nothing is stored.
      await page.click("#key-report");
      expect(
        await page.$eval("#key-note", (el) => (el as unknown as { validity: { valid: boolean } }).validity.valid),
      ).toBe(false);
      await page.type("#key-note", "The key turns but the lock does not open");
      await submit("#key-report");
      expect(page.url()).toBe(link);
      expect(await main()).toContain("You told us the key does not work: we will be in touch.");
      await checked("reported");

      const reports = expectStatus(
        await h.request("GET", `/keys/sets/${keySetId}/reports`, { key: w.world.ws.key }),
        200,
      );
      expect(reports.notWorking).toBe(true);
      expect(reports.reports).toHaveLength(1);
      expect(reports.reports[0]).toMatchObject({
        note: "The key turns but the lock does not open",
        source: { kind: "repair", id: w.repair.id, label: w.repair.reference },
        reportedBy: "Cal Contractor",
      });
    }, 120_000);
  },
);
