// Four processes remember into one daily note while a fifth edits it by hand, saving in place and
// by rename in turn: every entry is there exactly once, every hand edit is kept, no line is
// corrupted. The slow tier (`npm run test:slow`) writes 4 × 1,000 as the red-team run did.
// Needs `npm run build` (the writers run the built remember).
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

const SLOW = Boolean(process.env['MEM_SLOW']);
const WRITERS = ['A', 'B', 'C', 'D'];
const ENTRIES = SLOW ? 1000 : 25;
const DAY = 'episodes/daily/2026-11-30.md';

function runNode(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

afterEach(cleanupVaults);

describe(`${WRITERS.length} processes × ${ENTRIES} remembers beside a hand editor`, () => {
  it('keeps every entry exactly once and every hand edit, and corrupts no line', async () => {
    const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } });
    await mkdir(join(root, 'episodes/daily'), { recursive: true });
    await writeFile(join(root, DAY), '# 2026-11-30\n\n');
    const stop = join(root, 'stop');
    // A person saving every few tens of ms, in place and by rename in turn: far faster than anyone types.
    const editor = runNode([
      join(REPO_ROOT, 'test/fixtures/remember/hand-editor.mjs'),
      join(root, DAY),
      'H',
      stop,
      'both',
      '60',
    ]);
    const writers = WRITERS.map((tag) =>
      runNode([join(REPO_ROOT, 'test/fixtures/remember/append-many.mjs'), root, tag, String(ENTRIES)]),
    );
    for (const writer of await Promise.all(writers)) expect(writer.code).toBe(0);
    await writeFile(stop, '');
    const { code, stdout } = await editor;
    expect(code).toBe(0);
    const edits = Number(stdout);
    expect(edits).toBeGreaterThan(0);

    const lines = (await readFile(join(root, DAY), 'utf8')).split('\n');
    const entries = lines.flatMap(
      (l) => /^- \d\d:\d\d \*\*[A-D]:\*\* ([A-D] entry \d+) \^e\d+$/.exec(l)?.[1] ?? [],
    );
    const wanted = WRITERS.flatMap((tag) => Array.from({ length: ENTRIES }, (_, i) => `${tag} entry ${i}`));
    expect(wanted.filter((t) => !entries.includes(t))).toEqual([]);
    expect(entries.length).toBe(wanted.length);
    const ids = lines.flatMap((l) => /\^(e\d+)$/.exec(l)?.[1] ?? []);
    expect(new Set(ids).size).toBe(ids.length);
    const handLost = Array.from({ length: edits }, (_, i) => `H hand ${i}`).filter((l) => !lines.includes(l));
    expect(handLost).toEqual([]);
    expect(
      lines.filter(
        (l) => !/^(- \d\d:\d\d \*\*[A-D]:\*\* [A-D] entry \d+ \^e\d+|H hand \d+|# 2026-11-30|)$/.test(l),
      ),
    ).toEqual([]);
  }, 3_600_000);
});
