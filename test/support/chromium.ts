/** Debian's Chromium for the browser tests, driven by puppeteer-core: whether it is there, and a headless launch. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";

/** Where Debian's package puts it (`apt-get install -y chromium`; .ci/run installs it). */
export const chromiumPath = "/usr/bin/chromium";

/**
 * Whether Chromium is installed. In CI (where .ci/run installs it) a missing one fails the file; elsewhere the
 * test skips with a line naming `what`.
 */
export function haveChromium(what: string): boolean {
  if (existsSync(chromiumPath)) return true;
  if (process.env.CI) throw new Error(`${chromiumPath} is missing: .ci/run installs it (apt-get install -y chromium)`);
  console.warn(`SKIPPED ${what}: ${chromiumPath} is missing (apt-get install -y chromium)`);
  return false;
}

/** A headless Chromium with a fresh profile; close() also removes the profile. */
export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches Chromium headless with the flags this machine needs (no sandbox as root; no background networking, which
 * a closed network refuses many times over) and a new empty profile.
 */
export async function launchChromium(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "test-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    userDataDir: profile,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
