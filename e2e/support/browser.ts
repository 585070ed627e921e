/**
 * Real Chromium for the e2e suite: Debian's /usr/bin/chromium (or PLAYWRIGHT_CHROMIUM_EXECUTABLE)
 * driven by playwright-core. Nothing is downloaded. Without a browser the suite is skipped with
 * a reason — except under CI=true, where a missing browser fails the run and says how to fix it.
 */
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE ?? '/usr/bin/chromium';
export const HAS_BROWSER = fs.existsSync(CHROMIUM);
export const MISSING_BROWSER = `No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set PLAYWRIGHT_CHROMIUM_EXECUTABLE.`;

export function requireBrowser(): void {
  if (!HAS_BROWSER && process.env.CI === 'true') throw new Error(MISSING_BROWSER);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
