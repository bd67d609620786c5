// mem's appends and a person's saves of the same daily note, in separate processes: nothing is lost
// on either side. Needs `npm run build` (the writer runs the built remember).
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

/** Entries per run; the slow tier (`npm run test:slow`) writes 1,000 as the red-team run did. */
const ENTRIES = process.env['MEM_SLOW'] ? 1000 : 40;
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

describe.each(['inplace', 'rename'])('remember beside an editor that saves %s', (mode) => {
  it('keeps every entry exactly once and every hand edit', async () => {
    const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } });
    await mkdir(join(root, 'episodes/daily'), { recursive: true });
    await writeFile(join(root, DAY), '# 2026-11-30\n\n');
    const stop = join(root, 'stop');
    const editor = runNode([
      join(REPO_ROOT, 'test/fixtures/remember/hand-editor.mjs'),
      join(root, DAY),
      'H',
      stop,
      mode,
    ]);
    const writer = runNode([
      join(REPO_ROOT, 'test/fixtures/remember/append-many.mjs'),
      root,
      'A',
      String(ENTRIES),
    ]);
    expect((await writer).code).toBe(0);
    await writeFile(stop, '');
    const { code, stdout } = await editor;
    expect(code).toBe(0);
    const edits = Number(stdout);
    expect(edits).toBeGreaterThan(0);

    const text = await readFile(join(root, DAY), 'utf8');
    const lines = text.split('\n');
    // Lines, not parsed entries: a hand line right under an entry continues its list item.
    const entries = lines.flatMap((l) => /^- \d\d:\d\d \*\*A:\*\* (A entry \d+) \^e\d+$/.exec(l)?.[1] ?? []);
    const lost = Array.from({ length: ENTRIES }, (_, i) => `A entry ${i}`).filter(
      (t) => !entries.includes(t),
    );
    expect(lost).toEqual([]);
    const ids = lines.flatMap((l) => /\^(e\d+)$/.exec(l)?.[1] ?? []);
    expect(entries.length).toBe(ENTRIES);
    expect(new Set(ids).size).toBe(ids.length);
    const handLost = Array.from({ length: edits }, (_, i) => `H hand ${i}`).filter((l) => !lines.includes(l));
    expect(handLost).toEqual([]);
    // Every line is an entry, a hand edit, the heading or blank: none is corrupted.
    expect(
      lines.filter((l) => !/^(- \d\d:\d\d \*\*A:\*\* A entry \d+ \^e\d+|H hand \d+|# 2026-11-30|)$/.test(l)),
    ).toEqual([]);
  }, 120_000);
});
