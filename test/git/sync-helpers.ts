// Two clones of one vault and the bare remote between them, on disk, with real git; and the checks
// every sync test makes: each entry and hand edit once, no conflict markers, git fsck clean, links
// resolving.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { GIT_ENV, git } from '../helpers/git.js';
import { makeVault, REPO_ROOT } from '../helpers/make-vault.js';

const run = promisify(execFile);

export const DAY = '2026-11-29';
export const DAY_PATH = `episodes/daily/${DAY}.md`;
export const PROFILE = 'profile/user.md';
export const PROFILE_TEXT =
  '# Me\n\n- Lives in Lisbon.\n- Drinks tea.\n\n## Work\n\n- Writes software.\n- Likes git.\n';

export const FILES: Record<string, string> = {
  '.gitignore': '.mem/\n',
  [PROFILE]: PROFILE_TEXT,
  'profile/people/Mei.md': '# Mei\n\nA friend from school.\n',
  'insights/tea.md': '# Tea\n\n[[profile/people/Mei]] likes oolong.\n',
  'insights/coffee.md': '# Coffee\n\nNone after noon.\n',
  [DAY_PATH]: `---\ndate: ${DAY}\ntype: episode\n---\n# ${DAY}\n\n- 08:00 **Rain:** good morning ^e1\n`,
};

export interface Clones {
  bare: string;
  a: string;
  b: string;
}

/** A vault pushed to a bare remote and cloned twice (`a`, `b`); `origin` is the bare one. */
export async function twoClones(files: Record<string, string> = FILES, config: object = {}): Promise<Clones> {
  const origin = await makeVault(files, { config: { timezone: 'UTC', ...config } });
  await git(origin, 'init', '-q', '-b', 'main');
  await git(origin, 'add', '-A');
  await git(origin, 'commit', '-q', '-m', 'init');
  const dir = await mkdtemp(join(tmpdir(), 'memvault-sync-'));
  const bare = join(dir, 'remote.git');
  await run('git', ['clone', '-q', '--bare', origin, bare], { env: GIT_ENV });
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  for (const clone of [a, b]) {
    await run('git', ['clone', '-q', bare, clone], { env: GIT_ENV });
    await git(clone, 'config', 'user.name', clone === a ? 'A' : 'B');
    await git(clone, 'config', 'user.email', 'test@example.com');
  }
  return { bare, a, b };
}

/** Every Markdown file of a clone (path → text), `.git` and `.mem` left out. */
export async function notesOf(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.mem') continue;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.name.endsWith('.md'))
        out.set(relative(root, abs).split('\\').join('/'), await readFile(abs, 'utf8'));
    }
  };
  await walk(root);
  return out;
}

/** How many times `needle` occurs as a whole line across the clone's notes. */
export function countLine(notes: Map<string, string>, needle: string): number {
  let n = 0;
  for (const text of notes.values()) n += text.split('\n').filter((l) => l.includes(needle)).length;
  return n;
}

/** No markers, fsck clean, a clean work tree, and every `[[…]]` link and `#^id` resolves. */
export async function expectHealthy(root: string): Promise<Map<string, string>> {
  const notes = await notesOf(root);
  for (const [path, text] of notes) {
    expect(text, path).not.toMatch(/^(<{7}|={7}|>{7})( |$)/m);
  }
  await git(root, 'fsck', '--no-progress');
  expect(await git(root, 'status', '--porcelain')).toBe('');
  const names = new Set(
    [...notes.keys()].flatMap((p) => [p.replace(/\.md$/, ''), p.replace(/\.md$/, '').split('/').at(-1)!]),
  );
  for (const [path, text] of notes) {
    for (const m of text.matchAll(/\[\[([^\]|#]*)(?:#\^([A-Za-z0-9-]+))?(?:\|[^\]]*)?\]\]/g)) {
      const target = m[1] === '' ? path.replace(/\.md$/, '') : m[1]!;
      expect(names.has(target), `${path} links to ${m[0]}`).toBe(true);
      if (m[2]) {
        const note =
          notes.get(`${target}.md`) ?? [...notes].find(([p]) => p.endsWith(`/${target}.md`))?.[1] ?? '';
        expect(note, `${path} links to ${m[0]}`).toMatch(new RegExp(`\\^${m[2]}$`, 'm'));
      }
    }
  }
  return notes;
}

/**
 * A folder holding `mem` (this build, needs `npm run build`), as an install puts it on PATH, and
 * the file each run appends its arguments to; `env` is GIT_ENV with that folder first on PATH.
 */
export async function memOnPath(): Promise<{ bin: string; ran: string; env: NodeJS.ProcessEnv }> {
  const bin = await mkdtemp(join(tmpdir(), 'memvault-bin-'));
  const ran = join(bin, 'ran');
  await writeFile(
    join(bin, 'mem'),
    `#!/bin/sh\necho "$@" >> '${ran}'\nexec '${process.execPath}' '${join(REPO_ROOT, 'dist/cli/main.js')}' "$@"\n`,
  );
  await chmod(join(bin, 'mem'), 0o755);
  return { bin, ran, env: { ...GIT_ENV, PATH: `${bin}:${process.env['PATH']}` } };
}
