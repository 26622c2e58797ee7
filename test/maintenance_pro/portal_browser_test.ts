/**
 * The whole invitation flow in a real browser (Debian's Chromium driven by puppeteer-core, JavaScript off, every
 * request to anything but the service blocked) against the real service with its workers: the invite goes through
 * the API, the worker writes the .eml to the outbox, the browser opens the link from it, presses the button and
 * sees the confirmation; then the access is active through the API. A screenshot of each page state is left under
 * .data/ (portal-*.png) for people to look at. Every page state is also checked by an independent tool, Deque's
 * axe-core (WCAG 2.x A and AA rules and its best practices), and laid out for a 375×667 phone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import axeCore, { type AxeResults, type Result, type RunOptions } from "axe-core";
import type { Browser, Page } from "puppeteer-core";
import { haveChromium, launchChromium, type TestBrowser } from "../support/chromium.ts";
import { harness } from "../support/harness.ts";
import { envWithout, runToEnd, startService, type RunningService } from "../support/service.ts";
import { addContact, eventually } from "./fixtures.ts";
import { tokenOfEml } from "./portal_fixtures.ts";

// The callbacks given to page.evaluate run in the page; the project compiles without the DOM library.
declare const document: { characterSet: string; documentElement: { scrollWidth: number; clientWidth: number } };
/** axe-core's global, once its source has been evaluated in a page. */
declare const axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };

const present = haveChromium("portal browser test");

const shots = join(import.meta.dir, "..", "..", ".data");

/** A small phone's screen (an iPhone SE's), in CSS px. */
const phone = { width: 375, height: 667, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

describe.skipIf(!present)("the invitation flow in Chromium, offline, without JavaScript", async () => {
  const h = await harness();
  const db = h.database.db;
  const ws = await h.workspace();
  await db`update workspaces set name = 'Harbour Lettings' where id = ${ws.id}`;
  const dataDir = mkdtempSync(join(tmpdir(), "portal-browser-"));
  const outbox = join(dataDir, "outbox");
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  /** The page axe runs in: a copy of each state of `page`, with scripts on (see `accessible`). */
  let axePage: Page;
  let chrome: TestBrowser | undefined;
  const blocked: string[] = [];
  // Another site (another host name, so cross-site) serving a form that posts to the link it is given.
  const attacker = (() => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => {
        const target = new URL(request.url).searchParams.get("target") ?? "";
        const form = `<form method="post" action="${Bun.escapeHTML(target)}"><button>Win a prize</button></form>`;
        return new Response(form, { headers: { "content-type": "text/html; charset=utf-8" } });
      },
    });
    return { server, origin: `http://localhost:${server.port}` };
  })();
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // A free port, so that PUBLIC_BASE_URL (and from it the default PORTAL_BASE_URL) names the service itself.
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    service = await startService(h.database.url, {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      WORKERS: "true",
      DATA_DIR: dataDir,
    });
    chrome = await launchChromium();
    browser = chrome.browser;
    page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport(phone);
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const url = new URL(request.url());
      if ([service.base, attacker.origin].includes(url.origin)) return void request.continue();
      blocked.push(request.url());
      void request.abort("blockedbyclient");
    });
    page.on("console", (message) => {
      // Pages answered 404, 410 or 429 are logged as failed loads: those statuses are what is tested.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        consoleErrors.push(message.text());
      }
    });
    axePage = await browser.newPage();
    await axePage.setViewport(phone);
    // The copy loads nothing: any request it made would be a failure of the last test, as for `page`.
    await axePage.setRequestInterception(true);
    axePage.on("request", (request) => {
      blocked.push(request.url());
      void request.abort("blockedbyclient");
    });
    // The newest tab is the one shown, and a hidden tab draws nothing: its screenshots would never come.
    await page.bringToFront();
    mkdirSync(shots, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await service?.stop();
    attacker.server.stop(true);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (method: string, path: string) =>
    fetch(`${service.base}${path}`, { method, headers: { "x-api-key": ws.key } });
  const invite = async (contactId: string) => {
    const res = await api("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The link of the n-th invitation of a contact, from the .eml the service's worker wrote. */
  const linkFromOutbox = async (contactId: string, n = 1) => {
    const ids = await eventually(async () => {
      const rows = await db<{ id: string }[]>`
        select id from portal_invitations where workspace_id = ${ws.id} and contact_id = ${contactId} order by id`;
      const files = existsSync(outbox) ? readdirSync(outbox) : [];
      return rows.length >= n && files.includes(`invitation-${rows[n - 1]!.id}.eml`) && rows;
    }, `the .eml of invitation ${n}`);
    return `${service.base}/portal/invitations/${tokenOfEml(join(outbox, `invitation-${ids[n - 1]!.id}.eml`))}`;
  };
  const headingText = () => page.$eval("h1", (el) => el.textContent);
  const mainText = () => page.$eval("main", (el) => (el.textContent ?? "").replace(/\s+/g, " ").trim());
  /**
   * Checks the page `page` shows now with axe-core: no violation of the WCAG 2.0/2.1/2.2 A and AA rules nor of axe's
   * best practices, and nothing axe could not decide (say, a contrast over an image). axe needs scripts, and `page`
   * has them off: its timers never fire there, so `axe.run` never settles. So axe runs in `axePage`, scripts on, on a
   * copy of the same document (the DOM the JavaScript-less page built, its inline style included). That leaves `page`
   * untouched, its policy in force and watched by the last test. (The policy would not have stopped axe anyway:
   * source evaluated through DevTools is exempt from a page's script-src; `setBypassCSP` is not needed.)
   */
  const accessible = async (state: string) => {
    await axePage.setContent(await page.content(), { waitUntil: "load" });
    await axePage.evaluate(axeCore.source);
    // Only what the checks need comes back from the page.
    const results = await axePage.evaluate(
      async (tags) => {
        const all = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
        const found = (list: Result[]) =>
          list.map((r) => ({ rule: r.id, help: r.help, nodes: r.nodes.map((n) => n.html) }));
        return {
          violations: found(all.violations),
          incomplete: found(all.incomplete),
          passed: all.passes.map((r) => r.id),
        };
      },
      ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    );
    expect({ state, violations: results.violations }).toEqual({ state, violations: [] });
    expect({ state, incomplete: results.incomplete }).toEqual({ state, incomplete: [] });
    // It looked at this document: the rules every page is subject to ran and passed. No rule is disabled.
    for (const rule of [
      "html-has-lang",
      "document-title",
      "color-contrast",
      "landmark-one-main",
      "page-has-heading-one",
    ]) {
      expect({ state, passed: results.passed.includes(rule) }).toEqual({ state, passed: true });
    }
  };
  /** Readable on a phone (`phone`): nothing wider than the screen, so no sideways scrolling. */
  const fitsThePhone = async () => {
    const width = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      document.documentElement.clientWidth,
    ]);
    expect(width[1]).toBe(phone.width);
    expect(width[0]).toBeLessThanOrEqual(width[1]!);
  };
  /** The checks of every state of the page: accessible, fits the phone, and a screenshot. */
  const checked = async (state: string) => {
    await accessible(state);
    await fitsThePhone();
    await shot(state);
  };
  const shot = (name: string) => page.screenshot({ path: join(shots, `portal-${name}.png`) as `${string}.png` });
  const open = async (url: string) => {
    const res = await page.goto(url, { waitUntil: "load" });
    return res!.status();
  };

  test("open the emailed link, see the greeting, press the button, see the confirmation; active through the API", async () => {
    const landlord = await addContact(db, ws, { name: "Katherine Johnson" });
    await h.rows(ws).property({ landlordIds: [landlord.id] });
    await h.rows(ws).property({ landlordIds: [landlord.id] });
    expect((await invite(landlord.id)).status).toBe(200);
    const link = await linkFromOutbox(landlord.id);
    expect(link).toStartWith(`${service.base}/portal/invitations/`);

    expect(await open(link)).toBe(200);
    expect(await page.evaluate(() => document.characterSet)).toBe("UTF-8");
    expect(await headingText()).toBe("Your landlord portal invitation");
    const text = await mainText();
    expect(text).toContain("Hello Katherine Johnson,");
    expect(text).toContain("Harbour Lettings invites you to its landlord portal");
    expect(text).toContain("The access covers 2 properties.");
    // The button is big enough to tap on the phone: 44×44 CSS px at least (WCAG 2.5.5).
    const button = await page.$("button");
    const box = (await button!.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.width).toBeGreaterThanOrEqual(44);
    const snapshot = await page.accessibility.snapshot({ interestingOnly: true });
    type Node = { role: string; name?: string; children?: Node[] };
    const flat = (n: Node): Node[] => [n, ...(n.children ?? []).flatMap(flat)];
    const roles = flat(snapshot as Node).map((n) => `${n.role}: ${n.name ?? ""}`);
    expect(roles).toContain("button: Accept invitation");
    expect(roles).toContain("heading: Your landlord portal invitation");
    expect(roles).toContain("main: ");
    await checked("pending");

    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), button!.click()]);
    expect(await headingText()).toBe("Invitation accepted");
    expect(await mainText()).toContain("Your access to the landlord portal of Harbour Lettings is now active.");
    await checked("accepted-now");

    const again = await invite(landlord.id);
    expect(again).toEqual({ status: 409, body: { _tag: "PortalAccessActive", contactId: landlord.id } });

    expect(await open(link)).toBe(200);
    expect(await headingText()).toBe("Invitation already accepted");
    await checked("already-accepted");
  });

  test("the link with a trailing slash (as some mail programs and people copy it): Accept works from it too", async () => {
    const landlord = await addContact(db, ws, { name: "Dorothy Vaughan" });
    await h.rows(ws).property({ landlordIds: [landlord.id] });
    await invite(landlord.id);
    const link = `${await linkFromOutbox(landlord.id)}/`;
    expect(await open(link)).toBe(200);
    expect(await headingText()).toBe("Your landlord portal invitation");
    const [navigation] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button")]);
    expect(navigation!.url()).toBe(`${link}accept`);
    expect(navigation!.status()).toBe(200);
    expect(await headingText()).toBe("Invitation accepted");
    const [access] = await db`select status from landlord_portal_access where contact_id = ${landlord.id}`;
    expect(access!.status).toBe("active");
  });

  test("the other states, each a page: expired, replaced, revoked, unknown", async () => {
    const late = await addContact(db, ws);
    await invite(late.id);
    const lateLink = await linkFromOutbox(late.id);
    await db`update portal_invitations set expires_at = now() - interval '1 second'
             where workspace_id = ${ws.id} and contact_id = ${late.id}`;
    expect(await open(lateLink)).toBe(410);
    expect(await headingText()).toBe("This link has expired");
    await checked("expired");

    const twice = await addContact(db, ws);
    await invite(twice.id);
    const first = await linkFromOutbox(twice.id);
    await invite(twice.id);
    await linkFromOutbox(twice.id, 2);
    expect(await open(first)).toBe(410);
    expect(await headingText()).toBe("This link has been replaced");
    await checked("superseded");

    const gone = await addContact(db, ws);
    await invite(gone.id);
    const goneLink = await linkFromOutbox(gone.id);
    const env = envWithout(["LOG_LEVEL", "DATABASE_URL"], { DATABASE_URL: h.database.url });
    const revoked = await runToEnd(
      [process.execPath, "src/cli.ts", "portal", "revoke", "--workspace", ws.slug, "--contact", gone.id],
      { env },
    );
    expect(revoked.code).toBe(0);
    expect(await open(goneLink)).toBe(410);
    expect(await headingText()).toBe("Access withdrawn");
    await checked("revoked");

    expect(await open(`${service.base}/portal/invitations/${"x".repeat(43)}`)).toBe(404);
    expect(await headingText()).toBe("Link not recognised");
    await checked("unknown");
  });

  test("a form on another site posting to the link is refused with a page, and changes nothing", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    const link = await linkFromOutbox(landlord.id);
    await open(`${attacker.origin}/?target=${encodeURIComponent(`${link}/accept`)}`);
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button")]);
    expect(await headingText()).toBe("Please accept from the invitation page");
    await checked("cross-site");
    const [access] = await db`select status from landlord_portal_access where contact_id = ${landlord.id}`;
    expect(access!.status).toBe("pending");
  });

  test("beyond the address's budget, a page asks to wait", async () => {
    await db`update address_buckets set tokens = 0, updated_at = now() where scope = 'portal'`;
    expect(await open(`${service.base}/portal/invitations/${"y".repeat(43)}`)).toBe(429);
    expect(await headingText()).toBe("Too many requests");
    await checked("too-many");
  });

  test("nothing was loaded from elsewhere, and no page broke its policy", async () => {
    expect(blocked).toEqual([]);
    expect(consoleErrors).toEqual([]);
    // The service's logs name no token (the link holds 43 characters of it; none of its logs do).
    expect(service.process.stdout()).toContain('"msg":"portal invitation"');
    for (const output of [service.process.stdout(), service.process.stderr()]) {
      expect(output).not.toMatch(/invitations\/[A-Za-z0-9_-]{43}/);
    }
  });
});
