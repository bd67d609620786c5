import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (.ci/run installs it); CHROMIUM names another build. */
export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * A headless chromium for tests of the web page. Missing, it fails the test with what to do: a
 * browser test that skipped itself would let a broken page pass CI.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `chromium is not installed at ${CHROMIUM}: install it (apt-get install chromium, as .ci/run does) or set CHROMIUM to a chromium binary`,
    );
  return chromium.launch({ executablePath: CHROMIUM });
}
