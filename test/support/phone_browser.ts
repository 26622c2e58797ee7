/**
 * The public pages' browser tests: the app served in process on a free port of 127.0.0.1, and a 375 px phone in
 * Chromium with two tabs, `page` (scripts off, as the pages must work) and `axePage`, where axe-core checks a copy of
 * what `page` shows (axe needs scripts; `page`'s timers never fire, so `axe.run` would never settle there).
 */
import { expect } from "bun:test";
import axeCore, { type AxeResults, type RunOptions } from "axe-core";
import type { Page } from "puppeteer-core";
import { buildApp } from "../../src/app.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { launchChromium, type TestBrowser } from "./chromium.ts";

declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  createElement(tag: "canvas"): {
    width: number;
    height: number;
    getContext(kind: "2d"): { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void } | null;
    toDataURL(type: string): string;
  };
};
declare const axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };

/** A small phone's screen (an iPhone SE's), in CSS px. */
export const phone = { width: 375, height: 667, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

/**
 * The app of `contextAt(base)` served at `base`, a free port of 127.0.0.1 (known before the app is built); `around`
 * may stand between the server and the app (to hold an answer, say).
 */
export function serveApp(
  contextAt: (base: string) => AppContext,
  around: (handle: (request: Request) => Promise<Response>) => (request: Request) => Promise<Response> = (h) => h,
): {
  base: string;
  ctx: AppContext;
  server: ReturnType<typeof Bun.serve>;
} {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const base = `http://127.0.0.1:${port}`;
  const ctx = contextAt(base);
  const app = buildApp(ctx);
  const fetch = around((request) => app.handle(request));
  return { base, ctx, server: Bun.serve({ port, hostname: "127.0.0.1", fetch }) };
}

/** Chromium with the phone's two tabs; `page` in front, without JavaScript. */
export interface PhoneBrowser {
  chrome: TestBrowser;
  page: Page;
  axePage: Page;
}

export async function openPhone(): Promise<PhoneBrowser> {
  const chrome = await launchChromium();
  const page = await chrome.browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport(phone);
  const axePage = await chrome.browser.newPage();
  await axePage.setViewport(phone);
  await page.bringToFront();
  return { chrome, page, axePage };
}

/**
 * What `on` shows now has no axe-core violation of the WCAG 2.x A and AA rules nor of its best practices (run on a
 * copy in `axePage`), and fits the phone's width (nothing scrolls sideways). `state` names the page in a failure.
 */
export async function expectAccessibleAndFitting(phone: PhoneBrowser, state: string, on: Page = phone.page) {
  const { axePage } = phone;
  await axePage.setContent(await on.content(), { waitUntil: "load" });
  await axePage.evaluate(axeCore.source);
  const violations = await axePage.evaluate(async () => {
    const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
    const all = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return all.violations.map((r) => ({ rule: r.id, nodes: r.nodes.map((n) => n.html) }));
  });
  expect({ state, violations }).toEqual({ state, violations: [] });
  const width = await on.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(width[0]).toBeLessThanOrEqual(width[1]!);
}

/** A JPEG of width × height in one colour, made by Chromium's own encoder (in `axePage`, which runs scripts). */
export async function jpegDrawn(phone: PhoneBrowser, width: number, height: number, colour: string): Promise<Buffer> {
  const url = await phone.axePage.evaluate(
    (w, h, c) => {
      const canvas = document.createElement("canvas");
      canvas.width = w;
      canvas.height = h;
      const g = canvas.getContext("2d")!;
      g.fillStyle = c;
      g.fillRect(0, 0, w, h);
      return canvas.toDataURL("image/jpeg");
    },
    width,
    height,
    colour,
  );
  return Buffer.from(url.slice(url.indexOf(",") + 1), "base64");
}
