// Which headless Chromium the web page's test and scripts/screenshot-page.mjs drive.
//
// In order: CHROMIUM (a path you name), a Chrome or Chromium installed on this machine, and
// otherwise the Chromium inside the @sparticuz/chromium dev dependency, which `npm ci` brings from
// the npm registry like any other package: a fresh clone needs no system browser.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

/** The first of `names` that is an executable file on `PATH`, or undefined. */
function onPath(names, path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter).filter(Boolean))
    for (const name of names) {
      const file = join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  return undefined;
}

/**
 * The browser to launch with playwright-core's `chromium.launch({ executablePath, args })`, and
 * where it came from (for a test's or the script's message).
 * @returns {Promise<{ executablePath: string, args: string[], source: string }>}
 */
export async function findChromium() {
  const named = process.env.CHROMIUM;
  if (named) return { executablePath: named, args: [], source: 'CHROMIUM' };
  const installed = onPath(NAMES);
  if (installed) return { executablePath: installed, args: [], source: 'PATH' };
  const { default: packaged } = await import('@sparticuz/chromium');
  // Unpacks once into the temp folder; later calls find it there. Its `args` are for AWS Lambda
  // (--disable-web-security among them) and are left out: the page's test needs the browser's
  // own rules for scripts and origins.
  const executablePath = await packaged.executablePath();
  return { executablePath, args: [], source: '@sparticuz/chromium' };
}
