import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecallResult } from '../../src/api/open-vault.js';
import type { CompileResult } from '../../src/compile/compile.js';
import { countTokens } from '../../src/compile/count-tokens.js';
import type { Edge } from '../../src/core/types.js';
import type { DoctorReport } from '../../src/indexing/doctor.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, copyExampleVault, REPO_ROOT } from '../helpers/make-vault.js';
import { mem, memProcess } from '../helpers/run-cli.js';

/** Every path under `dir`, relative and sorted, skipping `.mem/` (the cache) when asked. */
async function listTree(dir: string, options: { skipCache?: boolean } = {}): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .filter((p) => !(options.skipCache && (p === '.mem' || p.startsWith('.mem/'))))
    .sort();
}

async function countNotes(root: string): Promise<number> {
  return (await listTree(root, { skipCache: true })).filter((p) => p.endsWith('.md')).length;
}

/** Recency and time words are measured from this moment, never from the wall clock. */
const NOW = '2026-11-30T10:00:00+08:00';

/** The example vault, copied once for the read-only tests below; `.mem/` is built by the first command. */
let vault: string;
const run = (args: string[]) => mem(['--vault', vault, ...args]);

beforeAll(async () => {
  vault = await copyExampleVault();
});

ignoreEnvVault();

afterAll(async () => {
  await cleanupVaults();
});

describe('mem index', () => {
  it('prints the note count, then finds nothing to do on the second run', async () => {
    const root = await copyExampleVault();
    const notes = await countNotes(root);
    expect(notes).toBe(51);
    const first = await mem(['index'], { cwd: join(root, 'profile', 'people') });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(
      /^51 notes indexed in \d+ ms \(51 added, 0 changed, 0 removed, 0 unchanged\)\n$/,
    );
    const second = await mem(['index', '--json'], { cwd: root });
    expect(second.code).toBe(0);
    const stats = JSON.parse(second.stdout) as Record<string, number>;
    expect({ ...stats, ms: 0 }).toEqual({
      notes: 51,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 51,
      touched: 0,
      ms: 0,
    });
  });

  it('--rebuild indexes every note again', async () => {
    const root = await copyExampleVault();
    await mem(['index'], { cwd: root });
    const result = await mem(['index', '--rebuild', '--json'], { cwd: root });
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout) as Record<string, number>;
    expect([stats['notes'], stats['added'], stats['unchanged']]).toEqual([51, 51, 0]);
  });
});

describe('mem recall on the example vault', () => {
  it('"上海" --json: the top hit is a profile or episode memory that mentions 上海', async () => {
    const result = await run(['recall', '--now', NOW, '上海', '--json']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as RecallResult;
    expect(data.query).toBe('上海');
    const top = data.hits[0]!;
    expect(['profile', 'episodes']).toContain(top.layer);
    expect(top.path.startsWith('profile/') || top.path.startsWith('episodes/')).toBe(true);
    expect(`${top.anchor} ${top.text}`).toContain('上海');
    expect(top.reasons[0]).toContain('上海');
    expect(data.hits.length).toBe(8);
  });

  it('"Shanghai" and "上海" both find profile/places/Shanghai.md', async () => {
    for (const query of ['Shanghai', '上海']) {
      const data = JSON.parse((await run(['recall', '--now', NOW, query, '--json'])).stdout) as RecallResult;
      expect(data.hits.map((h) => h.path)).toContain('profile/places/Shanghai.md');
    }
  });

  it('an alias of the user (Rain, 林雨) finds profile/user.md', async () => {
    for (const query of ['Rain', '林雨']) {
      const data = JSON.parse(
        (await run(['recall', '--now', NOW, query, '--json', '-k', '3'])).stdout,
      ) as RecallResult;
      expect(data.hits.length).toBe(3);
      expect(data.hits.map((h) => h.path)).toContain('profile/user.md');
    }
  });

  it('a superseded fact is left out by default and returned with --all', async () => {
    const plain = JSON.parse(
      (await run(['recall', '--now', NOW, 'where does Rain live', '--json'])).stdout,
    ) as RecallResult;
    const paths = plain.hits.map((h) => h.path);
    expect(paths).not.toContain('insights/facts/lives-in-hangzhou.md');
    expect(paths).toContain('insights/facts/lives-in-shanghai.md');
    const all = JSON.parse(
      (await run(['recall', '--now', NOW, 'where does Rain live', '--all', '--json'])).stdout,
    ) as RecallResult;
    expect(all.hits.map((h) => h.path)).toContain('insights/facts/lives-in-hangzhou.md');
  });

  it('--layer insights returns only insights', async () => {
    const data = JSON.parse(
      (await run(['recall', '--now', NOW, 'Rain', '--layer', 'insights', '--json'])).stdout,
    ) as RecallResult;
    expect(data.hits.length).toBeGreaterThan(0);
    expect(new Set(data.hits.map((h) => h.layer))).toEqual(new Set(['insights']));
    expect(data.hits.every((h) => h.path.startsWith('insights/'))).toBe(true);
  });

  it('--layer takes several layers, comma-separated or repeated', async () => {
    for (const args of [
      ['--layer', 'persona,insights'],
      ['--layer', 'persona', '--layer', 'insights'],
    ]) {
      const data = JSON.parse(
        (await run(['recall', '--now', NOW, 'Rain', ...args, '--json', '-k', '20'])).stdout,
      ) as RecallResult;
      const layers = new Set(data.hits.map((h) => h.layer));
      expect([...layers].every((l) => l === 'persona' || l === 'insights')).toBe(true);
      expect(layers.has('insights')).toBe(true);
    }
  });

  it('--explain prints every part of each score', async () => {
    const result = await run(['recall', '--now', NOW, '汤圆', '--explain', '-k', '2']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const scoreLines = lines.filter((l) => l.startsWith('   score: '));
    expect(scoreLines.length).toBe(2);
    for (const line of scoreLines) {
      expect(line).toMatch(
        /^ {3}score: text [\d.]+ · graph [\d.]+ · recency [\d.]+ · importance [\d.]+ · layer [\d.]+$/,
      );
    }
    expect(lines[0]).toMatch(/^1\. \[\[汤圆#汤圆\]\] {2}· {2}profile {2}· {2}汤圆 {3}\d\.\d{3}$/);
    // Without --explain the score parts stay out.
    const plain = await run(['recall', '--now', NOW, '汤圆', '-k', '2']);
    expect(plain.stdout).not.toContain('score: text');
  });

  it('-k limits the number of hits', async () => {
    const data = JSON.parse(
      (await run(['recall', '--now', NOW, 'Rain', '-k', '2', '--json'])).stdout,
    ) as RecallResult;
    expect(data.hits.length).toBe(2);
  });

  it('--batch with a JSONL file of 3 queries prints 3 JSON lines with the same ids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-batch-'));
    try {
      const file = join(dir, 'queries.jsonl');
      await writeFile(
        file,
        '{"id":"a","query":"上海"}\n{"id":"b","query":"汤圆"}\n\n{"id":7,"query":"Mei"}\n',
      );
      const result = await mem(
        ['--vault', vault, 'recall', '--now', NOW, '--batch', 'queries.jsonl', '-k', '2'],
        {
          cwd: dir,
        },
      );
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.length).toBe(3);
      const parsed = lines.map((l) => JSON.parse(l) as RecallResult & { id: unknown });
      expect(parsed.map((p) => p.id)).toEqual(['a', 'b', 7]);
      expect(parsed.map((p) => p.query)).toEqual(['上海', '汤圆', 'Mei']);
      expect(parsed.map((p) => p.hits.length)).toEqual([2, 2, 2]);
      expect(parsed[1]!.hits[0]!.path).toBe('profile/pets/汤圆.md');
      expect(parsed[2]!.hits[0]!.path).toBe('profile/people/Mei.md');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('mem show, links, backlinks, doctor', () => {
  it('show user prints the title, path, aliases and backlinks', async () => {
    const result = await run(['show', 'user']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '# Rain (林雨)',
      'path: profile/user.md  ·  layer: profile',
      'aliases: Rain, Lin Yu, 林雨',
    ]);
    const at = lines.indexOf('backlinks (5):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6).map((l) => l.trim().split('  ->  ')[1]?.split(' (in ')[0])).toEqual([
      'insights/facts/lives-in-shanghai.md',
      'insights/facts/works-at-lumen-labs.md',
      'insights/patterns/deflects-stress-with-jokes.md',
      'insights/patterns/sleeps-badly-before-big-changes.md',
      'persona/identity.md',
    ]);
  });

  it('show by path with and without .md gives the same note', async () => {
    const a = await run(['show', 'profile/user.md', '--json']);
    const b = await run(['show', 'profile/user', '--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).note.path).toBe('profile/user.md');
    expect(b.stdout).toBe(a.stdout);
  });

  it('links on a person note lists where each link resolves', async () => {
    const result = await run(['links', 'Mei', '--json']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as { note: string; links: Edge[] };
    expect(data.note).toBe('profile/people/Mei.md');
    expect(data.links.map((e) => [e.link.raw, e.to, e.link.line])).toEqual([
      ['[[Hangzhou]]', 'profile/places/Hangzhou.md', 11],
      ['[[九溪]]', 'profile/places/九溪.md', 14],
      ['[[2026-11-14#^e3]]', 'episodes/daily/2026-11-14.md', 14],
      ['[[2026-11-14#^e4]]', 'episodes/daily/2026-11-14.md', 14],
      ['[[Shanghai]]', 'profile/places/Shanghai.md', 15],
      ['[[2026-11-14#^e4]]', 'episodes/daily/2026-11-14.md', 15],
      ['[[2026-11-14#^e6]]', 'episodes/daily/2026-11-14.md', 16],
    ]);
    const text = await run(['links', 'Mei']);
    expect(text.stdout.split('\n')[0]).toBe('[[Hangzhou]]  ->  profile/places/Hangzhou.md  line 11');
  });

  it('backlinks on a person note lists the linking notes and sections', async () => {
    const result = await run(['backlinks', 'Mei', '--json']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as { note: string; backlinks: Edge[] };
    expect(data.note).toBe('profile/people/Mei.md');
    expect(data.backlinks.map((e) => [e.from, e.section, e.link.raw])).toEqual([
      ['episodes/daily/2026-11-14.md', '^e1', '[[Mei|美美]]'],
      ['episodes/daily/2026-11-14.md', '^e3', '[[Mei]]'],
      ['episodes/daily/2026-11-29.md', '^e8', '[[Mei]]'],
      ['episodes/weekly/2026-W46.md', '2026-W46', '[[Mei]]'],
      ['profile/people/林雪.md', 'Relationship', '[[Mei]]'],
      ['profile/places/Hangzhou.md', 'People here', '[[Mei]]'],
      ['profile/places/九溪.md', '九溪', '[[Mei]]'],
      ['profile/user.md', 'People', '[[Mei]]'],
    ]);
    const text = await run(['backlinks', 'Mei']);
    expect(text.stdout.split('\n')[0]).toBe(
      '[[Mei|美美]]  ->  episodes/daily/2026-11-14.md (in ^e1)  line 8',
    );
  });

  it('doctor --json lists exactly the one unresolved [[Dr Chen]] link', async () => {
    const result = await run(['doctor', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.notes).toBe(51);
    expect(report.unresolved).toEqual([
      { from: 'episodes/daily/2026-11-25.md', line: 11, link: '[[Dr Chen]]' },
    ]);
    expect(report.duplicateNames).toEqual([]);
    expect(report.invalidFrontmatter).toEqual([]);
    const text = await run(['doctor']);
    expect(text.stdout).toContain('unresolved links: 1\n  episodes/daily/2026-11-25.md:11  [[Dr Chen]]\n');
  });
});

describe('mem compile on the example vault', () => {
  it('"我现在住在哪里？" --json: sections in order, within budget, Shanghai as the current home', async () => {
    const result = await run(['compile', '我现在住在哪里？', '--now', NOW, '--json']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as CompileResult;
    expect(data.sections.map((s) => s.name)).toEqual(['persona', 'user', 'relevant', 'recent']);
    expect(data.budget).toBe(2000);
    expect(data.used).toBeLessThanOrEqual(data.budget);
    expect(data.tokenizer).toBe('o200k_base');
    expect(data.used).toBe(countTokens(data.markdown, 'o200k_base'));
    expect(data.markdown).toContain('Lives in [[Shanghai]]');
    // The superseded Hangzhou fact never comes in as a memory of its own.
    const items = data.sections.flatMap((s) => s.items.map((i) => i.path));
    expect(items).not.toContain('insights/facts/lives-in-hangzhou.md');
    expect(items).toContain('profile/user.md');
    // The order of the headings in the Markdown follows the sections.
    const headings = data.markdown.split('\n').filter((l) => /^## /.test(l));
    expect(headings).toEqual(['## Persona', '## About the user', '## Relevant memories', '## Recent']);
  });

  it('--budget is honoured and the Markdown without --json is the same document', async () => {
    const args = ['compile', '我现在住在哪里？', '--now', NOW, '--budget', '600'];
    const json = JSON.parse((await run([...args, '--json'])).stdout) as CompileResult;
    expect(json.budget).toBe(600);
    expect(json.used).toBeLessThanOrEqual(600);
    const text = await run(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(json.markdown.endsWith('\n') ? json.markdown : `${json.markdown}\n`);
  });
});

describe('mem init', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-init-'));
    dirs.push(dir);
    return dir;
  };

  it('creates a vault in an empty folder: config, persona, profile and a git repository', async () => {
    const dir = await tempDir();
    const result = await mem(['init'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(`created a vault in ${dir}`);
    expect(result.stdout).toMatch(/\ncommitted these \d+ files to a new git repository, and nothing else\n$/);
    for (const file of ['mem.config.json', 'persona/identity.md', 'profile/user.md', '.gitignore']) {
      expect((await stat(join(dir, file))).isFile()).toBe(true);
      expect(result.stdout).toContain(`  ${file}\n`);
    }
    expect((await stat(join(dir, '.git'))).isDirectory()).toBe(true);
    // One first commit holds the whole new vault.
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' })).toBe(
      'mem: init vault\n',
    );
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe('');
    const config = JSON.parse(await readFile(join(dir, 'mem.config.json'), 'utf8')) as { timezone: string };
    expect(config.timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
    // The new vault is usable at once.
    const doctor = await mem(['doctor', '--json'], { cwd: dir });
    expect(doctor.code).toBe(0);
  });

  it('init again in the same folder refuses with exit code 1 and writes nothing', async () => {
    const dir = await tempDir();
    expect((await mem(['init'], { cwd: dir })).code).toBe(0);
    const before = await listTree(dir);
    const config = await readFile(join(dir, 'mem.config.json'), 'utf8');
    const again = await mem(['init'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^mem: .*already has .*mem\.config\.json.*; nothing was written\n$/);
    expect(await listTree(dir)).toEqual(before);
    expect(await readFile(join(dir, 'mem.config.json'), 'utf8')).toBe(config);
  });

  it('init refuses when one file it would create exists, and creates nothing else', async () => {
    const dir = await tempDir();
    const other = await tempDir();
    await writeFile(join(other, 'mem.config.json'), '{}');
    const result = await mem(['init', other], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`mem: ${other} already has mem.config.json; nothing was written\n`);
    expect(await listTree(other)).toEqual(['mem.config.json']);
  });

  it('--no-git creates no repository', async () => {
    const dir = await tempDir();
    const result = await mem(['init', 'sub', '--no-git', '--json'], { cwd: dir });
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as { root: string; gitInitialized: boolean; created: string[] };
    expect(data.root).toBe(join(dir, 'sub'));
    expect(data.gitInitialized).toBe(false);
    expect(data.created).toContain('persona/identity.md');
    expect(existsSync(join(dir, 'sub', '.git'))).toBe(false);
  });
});

describe('the built mem binary', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file alone on a fresh checkout.
    if (!existsSync(join(REPO_ROOT, 'dist/cli/main.js'))) {
      await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
    }
  });

  it('recall --json works as a real process and matches the in-process result', async () => {
    const result = await memProcess(['recall', '--now', NOW, '汤圆', '--json', '-k', '3'], {
      cwd: join(vault, 'profile'),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as RecallResult;
    expect(data.query).toBe('汤圆');
    expect(data.hits.length).toBe(3);
    expect(data.hits[0]!.path).toBe('profile/pets/汤圆.md');
    const inProcess = JSON.parse(
      (await run(['recall', '--now', NOW, '汤圆', '--json', '-k', '3'])).stdout,
    ) as RecallResult;
    expect(data.hits.map((h) => h.id)).toEqual(inProcess.hits.map((h) => h.id));
  });

  it('exits 1 with one mem: line on stderr when there is no vault', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-novault-'));
    try {
      const result = await memProcess(['recall', '--now', NOW, 'x'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')).toEqual([expect.stringMatching(/^mem: no vault here: /), '']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
