/**
 * Renders packaging/icon.svg into the PNGs the installers need (run by hand when the icon changes:
 * `npx tsx packaging/make-icons.ts`): assets/icon.png at 1024 px (macOS makes its .icns from it,
 * 512 px @2x included; Windows its .ico, up to 256 px) and assets/icons/<n>x<n>.png for Linux
 * (16 to 512 px, the sizes desktop environments look up). Drawn by Chromium, so edges are crisp
 * at every size instead of scaled from one bitmap.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../e2e/support/browser.js';

const ROOT = path.resolve(import.meta.dirname, '..');
export const LINUX_ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];

const svg = await fs.readFile(path.join(ROOT, 'packaging', 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
try {
  const page = await browser.newPage();
  const render = async (size: number, file: string) => {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`);
    await fs.writeFile(file, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
  };
  await render(1024, path.join(ROOT, 'assets', 'icon.png'));
  await fs.mkdir(path.join(ROOT, 'assets', 'icons'), { recursive: true });
  for (const size of LINUX_ICON_SIZES) await render(size, path.join(ROOT, 'assets', 'icons', `${size}x${size}.png`));
} finally {
  await browser.close();
}
