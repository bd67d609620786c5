import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CompileResult, RecallResult } from '../../src/index.js';
import { chromiumExecutable, launchChromium } from '../helpers/browser.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';

// Issue 24: the page `mem serve` shows at / — the vault's days, recall's score parts, and the
// context compile gave the model for a turn — driven in a real headless chromium against a real
// `mem serve` with a token. Notes are untrusted: none of their text may run or become markup.

const TOKEN = 'page-test-token';
const NOW = '2026-11-30T12:00';

/** One of each way text becomes code or markup when a page sets it as HTML. */
const PAYLOADS = [
  `<script>window.__pwned='script'</script>`,
  `<img src=x onerror="window.__pwned='img'">`,
  `<svg onload="window.__pwned='svg'"></svg>`,
  `<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>`,
  `"><img src=x onerror=window.__pwned='attribute'>`,
  `<a href="javascript:window.__pwned='a'">ramen link</a>`,
  `[ramen](javascript:window.__pwned='markdown')`,
  `<style>body{display:none}</style>`,
  `<details open ontoggle="window.__pwned='toggle'">`,
];
const HOSTILE = PAYLOADS.join(' ');

/** The elements the page itself makes; vault text that became markup would add others. */
const PAGE_TAGS = new Set(
  'html head meta title link script body header h1 h2 h3 span form input button main nav section ol ul li a p div blockquote details summary pre'.split(
    ' ',
  ),
);

// The few DOM shapes the functions run in the page use: the tests compile without the DOM library.
interface DomElement {
  tagName: string;
  href?: string;
  dataset: Record<string, string | undefined>;
  getAttributeNames(): string[];
  querySelector(selector: string): DomElement | null;
  getBoundingClientRect(): { width: number };
}
declare const window: { __pwned?: string };
declare const document: {
  querySelectorAll(selector: string): Iterable<DomElement>;
  scripts: { length: number };
};

let root: string;
let stop: () => Promise<void>;
let base: string;
let printed: string;
/** The page's address with the token, as a person opens it */
const pageUrl = () => `${base}/#token=${encodeURIComponent(TOKEN)}`;
let browser: Browser;

beforeAll(async () => {
  root = await makeVault(
    {
      'persona/identity.md': '# Mira\nI am Mira, a companion who remembers.\n',
      'profile/user.md': '# Rain\nRain lives in [[Shanghai]] and loves ramen.\n',
      'profile/places/Shanghai.md': '# Shanghai\nWhere Rain moved in November.\n',
      'episodes/daily/2026-11-10.md':
        '---\ndate: 2026-11-10\ntype: episode\n---\n# 2026-11-10\n\n' +
        '- 09:14 **Rain:** Any ramen place near the new flat in [[Shanghai]]? ^e1\n' +
        '- 09:15 **Mira:** Let me think of the ones you liked. ^e2\n' +
        '- 21:02 (event) Rain signed the lease. ^e3\n',
      'episodes/daily/2026-11-12.md': '# 2026-11-12\n\n- 08:30 **Rain:** The ramen at Menya was great. ^e1\n',
      'episodes/daily/2026-11-13.md': `# 2026-11-13\n\n- 10:00 **Rain:** ramen ${HOSTILE} ^e1\n`,
      'insights/hostile.md': `---\ntitle: "<img src=x onerror=\\"window.__pwned='title'\\">"\n---\nramen notes ${HOSTILE}\n`,
    },
    { config: { timezone: 'Asia/Shanghai', compile: { budget: 600 } } },
  );
  const { child, url, output } = await startServe(root, ['--vault', root, '--token', TOKEN]);
  base = url;
  stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  await vi.waitFor(() => {
    if (!/web page[^\n]*\n/.test(output())) throw new Error(`no page URL printed yet: ${output()}`);
  }, WAIT);
  printed = /web page[^:]*: (.+)/.exec(output())?.[1] ?? '';
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await cleanupVaults();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A GET with exactly these headers (fetch would set Host itself). */
function raw(path: string, headers: Record<string, string>): Promise<Raw> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, setHost: false, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A JSON route, as the page calls it. */
async function api<T>(path: string, body?: object): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

const JSON_ROUTES = [
  '/days',
  '/days/2026-11-10',
  `/turn?entry=${encodeURIComponent('episodes/daily/2026-11-10.md#^e1')}`,
  '/markdown/profile/user.md',
];

/** Opens the page with its token, plus `fragment` parameters; fails on any dialog. */
async function openPage(fragment: Record<string, string> = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  const extra = new URLSearchParams(fragment).toString();
  await page.goto(extra ? `${pageUrl()}&${extra}` : pageUrl());
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

/** Nothing of a note ran or became markup: no flag set, no element or handler the page did not make. */
async function expectInert(page: Page): Promise<void> {
  const found = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    tags: [...document.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()),
    handlers: [...document.querySelectorAll('*')].flatMap((e) =>
      e.getAttributeNames().filter((name) => name.startsWith('on')),
    ),
    scripts: document.scripts.length,
    javascriptLinks: [...document.querySelectorAll('a')].filter((a) => a.href?.startsWith('javascript:'))
      .length,
  }));
  expect(found.pwned).toBeNull();
  expect(found.tags.filter((tag) => !PAGE_TAGS.has(tag))).toEqual([]);
  expect(found.handlers).toEqual([]);
  expect(found.scripts).toBe(1);
  expect(found.javascriptLinks).toBe(0);
}

describe('the web page of mem serve', () => {
  it('prints the page URL but never the token, and serves the page under a strict CSP without it', async () => {
    expect(printed).toBe(`${base}/ (add #token=<the token> to the address)`);
    expect(printed).not.toContain(TOKEN);
    const host = { host: new URL(base).host };
    const page = await raw('/', host);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    // No inline script to allow: the page's one script is a file of its own.
    expect(page.text).toMatch(/<script type="module" src="\/page\.mjs"><\/script>/);
    expect(page.text).not.toMatch(/<script>|\son[a-z]+=/i);
    const script = await raw('/page.mjs', host);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    // The data asks for the token.
    for (const path of JSON_ROUTES) expect((await raw(path, host)).status, path).toBe(401);
  });

  it('refuses a foreign Host or Origin on the page and on every JSON route it reads', async () => {
    const { host } = new URL(base);
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const path of ['/', '/page.mjs', ...JSON_ROUTES]) {
      const rebound = await raw(path, { ...auth, host: `evil.example:${new URL(base).port}` });
      expect(rebound.status, path).toBe(403);
      const foreign = await raw(path, { ...auth, host, origin: 'http://evil.example' });
      expect(foreign.status, path).toBe(403);
      for (const reply of [rebound, foreign]) expect(reply.text).not.toContain('ramen');
      expect((await raw(path, { ...auth, host })).status, path).toBe(200);
    }
  });

  it('lists the days, shows a day with its speakers and times, and the context compile gave a turn', async () => {
    const page = await openPage();
    const { days } = await api<{ days: { date: string }[] }>('/days');
    expect(days.map((d) => d.date)).toEqual(['2026-11-13', '2026-11-12', '2026-11-10']);
    await expect.poll(() => page.locator('a.day').count(), WAIT).toBe(3);
    expect(await page.locator('a.day .date').allTextContents()).toEqual(days.map((d) => d.date));

    // The newest day is shown until another is picked.
    await page.locator('a.entry[data-id="episodes/daily/2026-11-13.md#^e1"]').waitFor();
    expect(await page.locator('a.day.current').getAttribute('data-date')).toBe('2026-11-13');
    await page.locator('a.day[data-date="2026-11-10"]').click();
    await page.locator('a.entry[data-id="episodes/daily/2026-11-10.md#^e1"]').waitFor();
    expect(await page.locator('a.day.current').getAttribute('data-date')).toBe('2026-11-10');
    const shown = await page
      .locator('a.entry')
      .evaluateAll((links) =>
        links.map((a) => [...a.querySelectorAll('span')].map((span) => span.textContent ?? '')),
      );
    expect(shown).toEqual([
      ['09:14', 'Rain', 'Any ramen place near the new flat in [[Shanghai]]?'],
      ['09:15', 'Mira', 'Let me think of the ones you liked.'],
      ['21:02', '', '(event) Rain signed the lease.'],
    ]);

    await page.locator('a.entry[data-id="episodes/daily/2026-11-10.md#^e1"]').click();
    await page.locator('.budget-row[data-section="total"]').waitFor();
    // The same compile the model got: that turn's text, at that turn's time, the configured budget.
    const expected = await api<CompileResult>('/compile', {
      message: 'Any ramen place near the new flat in [[Shanghai]]?',
      now: '2026-11-10T09:14',
    });
    expect(expected.budget).toBe(600);
    const rows = await page.locator('.budget-row').evaluateAll((list) =>
      list.map((row) => {
        const track = row.querySelector('.track') as DomElement;
        const fill = row.querySelector('.fill') as DomElement;
        return {
          name: row.getAttribute('data-section'),
          used: Number(track.dataset['used']),
          budget: Number(track.dataset['budget']),
          filled: fill.getBoundingClientRect().width / track.getBoundingClientRect().width,
        };
      }),
    );
    expect(rows.map(({ name, used, budget }) => ({ name, used, budget }))).toEqual([
      { name: 'total', used: expected.used, budget: expected.budget },
      ...expected.sections.map((s) => ({ name: s.name, used: s.used, budget: s.budget })),
    ]);
    expect(expected.sections.map((s) => s.name)).toEqual(expect.arrayContaining(['persona', 'user']));
    for (const row of rows)
      expect(row.filled, row.name ?? '').toBeCloseTo(Math.min(1, row.used / row.budget), 1);

    // Every item cites its note, and the citation opens the note's Markdown in the page.
    const items = expected.sections.flatMap((s) => s.items);
    expect(items.length).toBeGreaterThan(0);
    const cites = page.locator('.section .cite');
    expect(await cites.count()).toBe(items.length);
    const hrefs = await cites.evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.map((href) => new URLSearchParams(href.slice(1)).get('note'))).toEqual(
      items.map((i) => i.path),
    );
    const user = items.findIndex((i) => i.path === 'profile/user.md');
    expect(user).toBeGreaterThanOrEqual(0);
    await cites.nth(user).click();
    await page.locator('pre.markdown').waitFor();
    const lines = await page.locator('pre.markdown .line').allTextContents();
    expect(lines.join('\n')).toBe(await readFile(join(root, 'profile/user.md'), 'utf8'));
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('token')).toBe(TOKEN);

    // An entry's citation marks its line.
    await page.goto(`${pageUrl()}&note=episodes/daily/2026-11-10.md&at=%5Ee2`);
    await page.locator('pre.markdown .line.marked').waitFor();
    expect(await page.locator('pre.markdown .line.marked').textContent()).toMatch(/\*\*Mira:\*\*.* \^e2$/);
    await page.close();
  });

  it('searches with the score parts mem recall --explain prints', async () => {
    const page = await openPage();
    await page.locator('#query').fill('ramen Shanghai');
    await page.locator('#now').fill(NOW);
    await page.locator('#search button').click();
    await page.locator('.hit').first().waitFor();
    const expected = await api<RecallResult>('/recall', { query: 'ramen Shanghai', k: 10, now: NOW });
    expect(expected.hits.length).toBeGreaterThan(2);
    const hits = await page.locator('.hit').evaluateAll((list) =>
      list.map((hit) => ({
        id: hit.getAttribute('data-id'),
        score: hit.querySelector('.score')?.textContent,
        parts: Object.fromEntries(
          [...hit.querySelectorAll('.part')].map((part) => [
            part.getAttribute('data-part'),
            Number(part.querySelector('.value')?.textContent),
          ]),
        ),
        why: hit.querySelector('.why')?.textContent,
      })),
    );
    expect(hits).toEqual(
      expected.hits.map((hit) => ({
        id: hit.id,
        score: hit.score.toFixed(3),
        parts: hit.parts,
        why: `why: ${hit.reasons.join('; ')}`,
      })),
    );
    expect(Object.keys(hits[0]?.parts ?? {})).toEqual(
      expect.arrayContaining(['text', 'graph', 'recency', 'importance', 'layer']),
    );
    await expectInert(page);
    await page.close();
  });

  it('shows notes holding script and markup as text: nothing in them runs or becomes an element', async () => {
    const page = await openPage({ day: '2026-11-13' });
    await page.locator('a.entry').first().waitFor();
    expect(await page.locator('a.entry .text').textContent()).toBe(`ramen ${HOSTILE}`);
    await expectInert(page);
    // The hostile turn's context, then the hostile note itself.
    await page.locator('a.entry').first().click();
    await page.locator('.budget-row[data-section="total"]').waitFor();
    expect(await page.locator('blockquote.turn').textContent()).toBe(`ramen ${HOSTILE}`);
    await expectInert(page);
    await page.goto(`${pageUrl()}&note=insights/hostile.md`);
    await page.locator('pre.markdown').waitFor();
    expect(await page.locator('#panel-title').textContent()).toBe(
      `<img src=x onerror="window.__pwned='title'">`,
    );
    expect(await page.locator('pre.markdown').textContent()).toContain(HOSTILE);
    await expectInert(page);
    await page.close();
  });

  it('says the token is missing when the page is opened without it', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('#status').textContent()).toContain('token');
    await page.close();
  });

  it('scripts/screenshot-page.mjs draws the page over vault-example/', async () => {
    const out = join(tmpdir(), `memvault-web-page-${process.pid}.png`);
    await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'scripts/screenshot-page.mjs'), out], {
      env: { ...process.env, CHROMIUM: (await chromiumExecutable()).executablePath },
    });
    const png = await readFile(out);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1440, 900]);
    await rm(out, { force: true });
  });
});
