import { type Browser, chromium } from 'playwright-core';
import { findChromium } from '../../scripts/find-chromium.mjs';

interface Found {
  executablePath: string;
  args: string[];
  source: string;
}

let found: Promise<Found> | undefined;

/** The browser the tests drive: CHROMIUM, a Chrome or Chromium on PATH, or @sparticuz/chromium's. */
export function chromiumExecutable(): Promise<Found> {
  found ??= findChromium();
  return found;
}

/**
 * A headless chromium for tests of the web page. It never skips: a browser test that skipped
 * itself would let a broken page pass CI, and `npm ci` always brings one (@sparticuz/chromium).
 */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, args } = await chromiumExecutable();
  return chromium.launch({ executablePath, args });
}
