// Every command on a vault of hostile notes finishes within a bound, in bounded memory, exit 0,
// and changes no note. Runs the built CLI (needs `npm run build`, as `npm test` does).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
// @ts-expect-error: a plain ES module shared with scripts/reliability.mjs
import { hostileCases, writeHostileCases } from '../fixtures/hostile/cases.mjs';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

type Case = { name: string; files?: Record<string, string | Buffer>; link?: [string, string] };
const SCALE = process.env['MEM_SLOW'] ? 10 : 1;
const cases = (hostileCases as (scale: number) => Case[])(SCALE);
/** A command that takes longer than this is a hang (the red-team run saw 240 s and more). */
const BOUND_MS = 60_000 * SCALE;

let root: string;

function runMem(args: string[]): Promise<{ code: number | null; ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=1024', join(REPO_ROOT, 'dist/cli/main.js'), ...args],
      {
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - started, stderr });
    });
  });
}

async function snapshot(dir: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.name === '.mem' || entry.name === '.git' || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) Object.assign(out, await snapshot(dir, path));
    else
      out[path] = createHash('sha256')
        .update(await readFile(join(dir, path)))
        .digest('hex');
  }
  return out;
}

beforeAll(async () => {
  root = await makeVault(
    { 'insights/tokyo.md': '# Tokyo\n\nCherry blossoms in 东京.\n' },
    { config: { timezone: 'UTC' } },
  );
  await writeHostileCases(root, cases);
}, 120_000);

afterAll(cleanupVaults);

describe('the hostile corpus', () => {
  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases.filter((c) => c.files).map((c) => [c.name, c] as const))(
    '%s parses without throwing',
    (_name, c) => {
      for (const [path, content] of Object.entries(c.files ?? {})) {
        const text = typeof content === 'string' ? content : content.toString('utf8');
        expect(() => parseNote(path, text)).not.toThrow();
      }
    },
  );

  it(
    'every command finishes within the bound, exit 0, and no note changes',
    async () => {
      const before = await snapshot(root);
      const commands = [
        ['index', '--rebuild'],
        ['doctor', '--json'],
        ['recall', '东京 cherry'],
        ['recall', 'a'.repeat(65_000)],
        ['compile', '东京 lorem ipsum'],
        ['show', 'h/deep-quote'],
        ['remember', 'still writable', '--at', '2026-01-01T12:00:00Z'],
      ];
      const results: Array<{ args: string; code: number | null; ms: number; stderr: string }> = [];
      for (const args of commands) {
        results.push({ args: args.join(' ').slice(0, 40), ...(await runMem(['--vault', root, ...args])) });
      }
      expect(results.filter((r) => r.code !== 0 || r.ms >= BOUND_MS)).toEqual([]);
      const after = await snapshot(root);
      // Only remember's daily note may change (it appends one entry).
      const changed = Object.keys({ ...before, ...after }).filter((p) => before[p] !== after[p]);
      expect(changed).toEqual(['episodes/daily/2026-01-01.md']);
    },
    BOUND_MS * 8,
  );
});
