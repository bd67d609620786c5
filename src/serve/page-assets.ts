// The web page `mem serve` shows at GET / (templates/page/): one HTML file, one script, one style
// sheet, read from the installed package. They hold no vault data, so they are served without the
// token (a browser cannot send one when it opens a URL); every datum comes from the JSON routes,
// which ask for it. Host and Origin are checked before this, as for every request.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMPLATES_DIR } from '../core/templates-dir.js';

const PAGE_DIR = join(TEMPLATES_DIR, 'page');

/** URL path → file of templates/page/ and its media type */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/page.mjs': { file: 'page.mjs', type: 'text/javascript; charset=utf-8' },
  '/page.css': { file: 'page.css', type: 'text/css; charset=utf-8' },
};

/**
 * Sent with the page and its assets: scripts, styles, images and fetches from this origin only
 * (no inline script, so a note's text that reached the DOM as markup still could not run), never
 * framed, no Referer.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

const loaded = new Map<string, Buffer>();

/** The asset served at `path` (its bytes and media type), or undefined when `path` is none of them. */
export async function pageAsset(path: string): Promise<{ body: Buffer; type: string } | undefined> {
  const asset = ASSETS[path];
  if (!asset) return undefined;
  let body = loaded.get(asset.file);
  if (!body) {
    body = await readFile(join(PAGE_DIR, asset.file));
    loaded.set(asset.file, body);
  }
  return { body, type: asset.type };
}

/** Whether `path` names one of the page's files (GET only). */
export const isPageAsset = (path: string): boolean => Object.hasOwn(ASSETS, path);
