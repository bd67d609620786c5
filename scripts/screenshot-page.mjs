#!/usr/bin/env node
// Draws docs/img/web-page.png: the web page of `mem serve` over a copy of vault-example/, showing
// one day's entries and the context compile gave the model for one turn of it.
//
//   npm run build && node scripts/screenshot-page.mjs [out.png]
//
// Drives CHROMIUM, a Chrome or Chromium on PATH, or the one npm ci brings (scripts/find-chromium.mjs).
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from './find-chromium.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = resolve(process.argv[2] ?? join(ROOT, 'docs', 'img', 'web-page.png'));
const DAY = '2026-11-28';
const TURN = 'episodes/daily/2026-11-28.md#^e5';

/** Starts `mem serve` on a free loopback port; resolves with its process and its page's URL. */
function startServe(vault) {
  const child = spawn(process.execPath, [
    join(ROOT, 'dist/cli/main.js'),
    'serve',
    '--port',
    '0',
    '--vault',
    vault,
  ]);
  let out = '';
  return new Promise((resolvePage, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /web page[^:]*: (http:\/\/\S+)/.exec(out);
      if (match) resolvePage({ child, page: match[1] });
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    child.once('exit', (code) => reject(new Error(`mem serve exited ${code}: ${out}`)));
  });
}

// A copy: the server writes its cache and its claim into the vault it serves.
const vault = await mkdtemp(join(tmpdir(), 'memvault-screenshot-'));
await cp(join(ROOT, 'vault-example'), vault, { recursive: true, filter: (src) => !src.endsWith('/.mem') });
const { child, page: url } = await startServe(vault);
const { executablePath, args } = await findChromium();
const browser = await chromium.launch({ executablePath, args });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const params = new URLSearchParams({ day: DAY, turn: TURN });
  await page.goto(`${url}${url.includes('#') ? '&' : '#'}${params}`);
  await page.locator('.section[data-section="persona"]').waitFor();
  await page.locator(`a.entry[data-id="${TURN}"]`).waitFor();
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
  await rm(vault, { recursive: true, force: true });
}
