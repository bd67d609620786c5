// Generates the "Reliability" figures of docs/reliability.md from the built CLI (run `npm run build` first):
// hostile notes tried, writers killed, entries written and lost beside a hand editor, secrets caught,
// and the class tests of the suite (generators, crash loops, hostile files), which report what they
// tried through MEM_RELIABILITY_REPORT. With --write the table replaces the one in
// docs/reliability.md between its reliability markers; without it, the table is printed.
// Usage: node scripts/reliability.mjs [--entries 1000] [--kills 200] [--scale 10] [--slow] [--write]
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const ENTRIES = arg('entries', 200);
const KILLS = arg('kills', 50);
const SCALE = arg('scale', 1);
const SLOW = process.argv.includes('--slow');
const WRITE = process.argv.includes('--write');
const run = promisify(execFile);
const temps = [];

/**
 * The suite's class tests: each appends one JSON line per class it covered to the file named by
 * MEM_RELIABILITY_REPORT, e.g. `{"class":"crash at every step","command":"mv","kills":12,"lost":0}`.
 */
const CLASS_TESTS = [
  'test/write/entry-text.property.test.ts',
  'test/write/entry-points.property.test.ts',
  'test/write/crash-loop.test.ts',
  'test/hostile/non-regular-files.test.ts',
  'test/vault/lock-stale.test.ts',
  'test/serve/request-guard.test.ts',
  'test/compile/quoted-memory.test.ts',
  'test/write/secret-corpus.test.ts',
  'test/serve/killed-server-commits.test.ts',
  'test/git/plans-beside-chat.test.ts',
  'test/git/plan-owners.test.ts',
  'test/hostile/hostile-remote.test.ts',
  'test/git/sync-ids.test.ts',
  'test/serve/add-crash-loop.test.ts',
];

async function classTests() {
  const dir = await mkdtemp(join(tmpdir(), 'mem-reliability-report-'));
  temps.push(dir);
  const report = join(dir, 'report.jsonl');
  const files = CLASS_TESTS.filter((file) => existsSync(join(ROOT, file)));
  const env = { ...process.env, MEM_RELIABILITY_REPORT: report, ...(SLOW ? { MEM_SLOW: '1' } : {}) };
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
  const result = await new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...files], { cwd: ROOT, env, stdio: 'ignore' });
    child.on('close', (code) => resolve(code));
  });
  const text = existsSync(report) ? await readFile(report, 'utf8') : '';
  const rows = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { passed: result === 0, files: files.length, rows };
}

/**
 * The table's rows from the class tests' report lines: lines of one class (the crash loop writes one
 * per command) are one row, their numbers added up and their names listed.
 */
function classRows(lines) {
  const byClass = new Map();
  for (const { class: name, ...figures } of lines) {
    const row = byClass.get(name) ?? new Map();
    for (const [key, value] of Object.entries(figures)) {
      const before = row.get(key);
      if (typeof value === 'number') row.set(key, (before ?? 0) + value);
      else row.set(key, before === undefined ? value : `${before}, ${value}`);
    }
    byClass.set(name, row);
  }
  return [...byClass].map(
    ([name, row]) => `| ${name} | ${[...row].map(([key, value]) => `${key} ${value}`).join('; ')} |`,
  );
}

async function tempVault(config = { timezone: 'UTC' }) {
  const dir = await mkdtemp(join(tmpdir(), 'mem-reliability-'));
  temps.push(dir);
  await writeFile(join(dir, 'mem.config.json'), JSON.stringify(config));
  return dir;
}

function node(args, { killAfter, maxOldSpace } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const flags = maxOldSpace ? [`--max-old-space-size=${maxOldSpace}`] : [];
    const child = spawn(process.execPath, [...flags, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const timer = killAfter === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfter);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: Date.now() - started });
    });
  });
}

async function hostile() {
  const { hostileCases, writeHostileCases } = await import(
    pathToFileURL(join(ROOT, 'test/fixtures/hostile/cases.mjs')).href
  );
  const cases = hostileCases(SCALE);
  const root = await tempVault();
  await writeHostileCases(root, cases);
  const commands = [
    ['index', '--rebuild'],
    ['doctor'],
    ['recall', '东京'],
    ['recall', 'a'.repeat(65_000)],
    ['compile', '东京'],
    ['show', 'h/deep-quote'],
  ];
  let slowest = 0;
  let failed = 0;
  for (const args of commands) {
    const r = await node([CLI, '--vault', root, ...args], { killAfter: 240_000, maxOldSpace: 1024 });
    slowest = Math.max(slowest, r.ms);
    if (r.code !== 0) failed++;
  }
  return { cases: cases.length, commands: commands.length, failed, slowestSeconds: slowest / 1000 };
}

async function handEdits(mode) {
  const root = await tempVault({ timezone: 'Asia/Shanghai', git: { autoCommit: false } });
  const day = join(root, 'episodes/daily/2026-11-30.md');
  await mkdir(dirname(day), { recursive: true });
  await writeFile(day, '# 2026-11-30\n\n');
  const stop = join(root, 'stop');
  const editor = node([join(ROOT, 'test/fixtures/remember/hand-editor.mjs'), day, 'H', stop, mode]);
  await node([join(ROOT, 'test/fixtures/remember/append-many.mjs'), root, 'A', String(ENTRIES)]);
  await writeFile(stop, '');
  const edits = Number((await editor).stdout);
  const lines = (await readFile(day, 'utf8')).split('\n');
  const entries = lines.flatMap((l) => /^- \d\d:\d\d \*\*A:\*\* (A entry \d+) \^e\d+$/.exec(l)?.[1] ?? []);
  const distinct = new Set(entries);
  return {
    mode,
    entries: ENTRIES,
    entriesLost: ENTRIES - distinct.size,
    entriesDuplicated: entries.length - distinct.size,
    handEdits: edits,
    handEditsLost: Array.from({ length: edits }, (_, i) => `H hand ${i}`).filter((l) => !lines.includes(l))
      .length,
  };
}

async function kills() {
  const root = await tempVault({ timezone: 'Asia/Shanghai' });
  const day = join(root, 'episodes/daily/2026-11-30.md');
  await mkdir(dirname(day), { recursive: true });
  await writeFile(day, '# 2026-11-30\n\n');
  const git = (...a) => run('git', ['-c', 'user.name=R', '-c', 'user.email=r@x', ...a], { cwd: root });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'start');
  for (let i = 0; i < KILLS; i++) {
    await node([join(ROOT, 'test/fixtures/remember/append-many.mjs'), root, `K${i}`, '50'], {
      killAfter: 50 + Math.floor(Math.random() * 600),
    });
  }
  const broken = (await readFile(day, 'utf8'))
    .split('\n')
    .filter((l) => !/^(# 2026-11-30|- 12:00 \*\*K\d+:\*\* K\d+ entry \d+ \^e\d+|)$/.test(l)).length;
  const leftovers = (await readdir(dirname(day))).filter((f) => f !== '2026-11-30.md').length;
  const next = await node([CLI, '--vault', root, 'remember', 'after', '--at', '2026-11-30T12:00:00+08:00']);
  const fsck = await run('git', ['fsck', '--no-progress'], { cwd: root }).then(
    () => true,
    () => false,
  );
  const rebuilt = await node([CLI, '--vault', root, 'index', '--rebuild']);
  return {
    kills: KILLS,
    brokenLines: broken,
    tempFilesLeft: leftovers,
    nextWriteOk: next.code === 0,
    fsckClean: fsck,
    indexRebuilt: rebuilt.code === 0,
  };
}

if (!existsSync(CLI)) throw new Error('run `npm run build` first');
try {
  const h = await hostile();
  const inplace = await handEdits('inplace');
  const renamed = await handEdits('rename');
  const k = await kills();
  const c = await classTests();
  const lines = [
    '| check | result |',
    '|---|---|',
    `| hostile notes (${h.cases} cases) × ${h.commands} commands | ${h.failed} failed; slowest ${h.slowestSeconds.toFixed(1)} s (bound 240 s, heap 1 GB) |`,
    ...[inplace, renamed].map(
      (r) =>
        `| ${r.entries} remembers beside an editor saving ${r.mode === 'inplace' ? 'in place' : 'by rename'} | entries lost ${r.entriesLost}, duplicated ${r.entriesDuplicated}; hand edits lost ${r.handEditsLost} of ${r.handEdits} |`,
    ),
    `| writers killed with SIGKILL | ${k.kills} kills: ${k.brokenLines} broken lines, ${k.tempFilesLeft} temp files left, next write ${k.nextWriteOk ? 'ok' : 'FAILED'}, git fsck ${k.fsckClean ? 'clean' : 'NOT clean'}, index ${k.indexRebuilt ? 'rebuilt' : 'NOT rebuilt'} |`,
    ...classRows(c.rows),
    `| class tests (${c.files} files${SLOW ? ', slow tier' : ''}) | ${c.passed ? 'all passed' : 'FAILED'} |`,
  ];
  const table = `${lines.join('\n')}\n`;
  if (WRITE) {
    const page = join(ROOT, 'docs', 'reliability.md');
    const text = await readFile(page, 'utf8');
    const start = '<!-- reliability:start -->';
    const end = '<!-- reliability:end -->';
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/reliability.md has no ${start} … ${end} markers`);
    const stamp = `Generated by \`node scripts/reliability.mjs ${process.argv.slice(2).join(' ')}\` on ${new Date().toISOString().slice(0, 10)}.\n\n`;
    await writeFile(page, `${text.slice(0, from + start.length)}\n${stamp}${table}${text.slice(to)}`);
  } else process.stdout.write(table);
} finally {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
}
