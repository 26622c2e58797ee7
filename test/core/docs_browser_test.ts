/**
 * /docs in a real browser (Debian's Chromium driven by puppeteer-core) against the real server, with every
 * request to anything but the service blocked: the reference renders, readable, from the service alone.
 */
import { eventTypes } from "../../src/event_types.ts";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { haveChromium, launchChromium, type TestBrowser } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import { startService, type RunningService } from "../support/service.ts";
import { operations } from "../../src/operations.ts";
import { publicRoutes } from "../../src/public_routes.ts";

// Swagger UI renders every operation: on a loaded 2-core machine a click took over the default 5 s.
setDefaultTimeout(30_000);

// The callbacks given to page.evaluate run in the page; the project compiles without the DOM library.
declare const window: any, document: any, getComputedStyle: (el: unknown) => { textDecorationLine: string };
type HTMLElement = { innerText: string };

const present = haveChromium("/docs browser test");

describe.skipIf(!present)("/docs in Chromium, offline", () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let chrome: TestBrowser | undefined;
  const requested: string[] = [];
  const blocked: string[] = [];
  const consoleErrors: string[] = [];
  const screenshot = join(import.meta.dir, "..", "..", ".data", "docs.png");

  beforeAll(async () => {
    const h = await harness();
    service = await startService(h.database.url);
    chrome = await launchChromium();
    browser = chrome.browser;
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1600 });
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.protocol === "data:") return void request.continue();
      requested.push(request.url());
      if (url.hostname === "127.0.0.1" && url.origin === service.base) return void request.continue();
      blocked.push(request.url());
      void request.abort("blockedbyclient");
    });
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(`page error: ${String(error)}`));
    await page.evaluateOnNewDocument(() => {
      (window as any).cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e: { violatedDirective: string; blockedURI: string }) => {
        (window as any).cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    await page.goto(`${service.base}/docs`, { waitUntil: "networkidle0" });
    // Not fatal here: when nothing renders, the tests below say what is missing (and the screenshot shows it).
    await page.waitForSelector(".opblock-summary-description", { timeout: 20_000 }).catch(() => {});
    mkdirSync(join(screenshot, ".."), { recursive: true });
    await page.screenshot({ path: screenshot as `${string}.png` });
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await service?.stop();
  });

  test("every operation's summary renders as text", async () => {
    const shown = await page.$$eval(".opblock-summary-description", (els) => els.map((e) => e.textContent?.trim()));
    // The operations, the documented public routes (the provider's webhook) and the event types (OpenAPI webhooks).
    const summaries = [
      ...operations.map((op) => op.summary),
      ...publicRoutes.flatMap((r) => (r.openapi ? [r.openapi.summary] : [])),
      ...eventTypes.map((type) => `The event \`${type.name}\`.`),
    ];
    expect(shown.sort()).toEqual(summaries.sort());
    const ids = await page.$$eval(".opblock-summary-path", (els) =>
      els.map((e) => e.textContent?.replace(/\u200b/g, "").trim()),
    );
    expect(ids.length).toBe(summaries.length);
  });

  test("no text is struck through", async () => {
    const struck = await page.evaluate(() =>
      ([...document.querySelectorAll("body *")] as { tagName: string; textContent: string | null }[])
        .filter(
          (el) =>
            ["S", "STRIKE", "DEL"].includes(el.tagName) ||
            getComputedStyle(el).textDecorationLine.includes("line-through"),
        )
        .map((el) => `${el.tagName}: ${(el.textContent ?? "").slice(0, 80)}`),
    );
    expect(struck).toEqual([]);
  });

  test("the page is UTF-8 and the description's arrows render as arrows", async () => {
    expect(await page.evaluate(() => document.characterSet)).toBe("UTF-8");
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered for a reader is what is checked
    const description = await page.$eval(".info .description", (el) => (el as HTMLElement).innerText);
    expect(description).toContain("no `x-api-key` → 401".replace(/`/g, ""));
    expect(description).not.toContain("â†");
    expect(await page.title()).toBe("Lettings and Property Maintenance Service API 1.0.0");
  });

  test("no request leaves the service, and nothing logs an error or breaks the Content-Security-Policy", async () => {
    expect(blocked).toEqual([]);
    expect(requested.every((url) => url.startsWith(`${service.base}/`))).toBe(true);
    expect(requested).toContain(`${service.base}/openapi.json`);
    expect(await page.evaluate(() => (window as any).cspViolations)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  test("an operation opens with its description and schemas, still within the policy", async () => {
    const cancel = '[id="operations-tasks-tasks\\\\.cancel"]'; // Swagger UI escapes the dot of the operationId
    await page.click(`${cancel} .opblock-summary-control`);
    await page.waitForSelector(`${cancel} .opblock-body .responses-table`);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered for a reader is what is checked
    const body = await page.$eval(`${cancel} .opblock-body`, (el) => (el as HTMLElement).innerText);
    expect(body).toContain("TaskNotCancellable");
    await page.screenshot({ path: screenshot.replace(/\.png$/, "-operation.png") as `${string}.png` });
    expect(await page.evaluate(() => (window as any).cspViolations)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
