import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { openRegularFile, readRegularFile, readRegularFileSync } from '../../src/core/regular-file.js';
import { VectorCache, vectorCacheFile } from '../../src/indexing/vectors/vector-cache.js';
import { readUsage } from '../../src/reflect/token-budget.js';
import { hashText } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';

// Every file name mem opens in a vault or in .mem/, with a command that reads it. A FIFO there used
// to hang mem for ever (a read of a FIFO waits for a writer); now each command ends promptly,
// either refusing with an error that names the file and what it is, or going on without it.
const AT = '2026-11-29T10:00:00Z';
const DAY = 'episodes/daily/2026-11-29.md';
const CASES: Array<{ file: string; args: string[]; refuses: boolean; autoCommit?: boolean }> = [
  { file: DAY, args: ['remember', 'hello', '--at', AT], refuses: true },
  { file: '.mem/write.lock', args: ['remember', 'hello', '--at', AT], refuses: true },
  { file: 'mem.config.json', args: ['recall', 'kettle'], refuses: true },
  { file: '.mem/index/manifest.json', args: ['recall', 'kettle'], refuses: false },
  { file: '.mem/serve.json', args: ['recall', 'kettle'], refuses: false },
  { file: '.mem/daemon.json', args: ['recall', 'kettle'], refuses: false },
  // Read by every commit, so only where mem commits (there is no repository: nothing is committed).
  {
    file: '.mem/pending-commit.json',
    args: ['remember', 'hello', '--at', AT],
    refuses: false,
    autoCommit: true,
  },
  // A FIFO with a note's name is not a note: the walk leaves it out, so these say "not found".
  {
    file: 'profile/commitments.md',
    args: ['note', 'set', 'profile/commitments', 'pinned=true'],
    refuses: false,
  },
  { file: 'insights/kettle.md', args: ['note', 'set', 'insights/kettle', 'importance=0.9'], refuses: false },
  { file: 'insights/kettle.md', args: ['mv', 'insights/kettle', 'insights/pot'], refuses: false },
  { file: 'insights/kettle.md', args: ['forget', 'insights/kettle'], refuses: false },
  { file: 'insights/kettle.md', args: ['recall', 'kettle'], refuses: false },
];

/** Past this a command counts as hung (a CLI start and one small vault take well under 2 s). */
const HUNG_MS = 15_000;

function run(args: string[], root: string): Promise<{ code: number | null; stderr: string; hung: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), '--vault', root, ...args], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], MEM_NO_DAEMON: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HUNG_MS);
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, hung });
    });
  });
}

async function vaultWith(file: string, kind: 'fifo' | 'zero' = 'fifo', autoCommit = false): Promise<string> {
  const root = await makeVault(
    {
      'insights/kettle.md': '# Kettle\n\nThe kettle is blue.\n',
      'profile/commitments.md': '# Commitments\n',
      [DAY]: '# 2026-11-29\n',
    },
    { config: { timezone: 'UTC', git: { autoCommit } } },
  );
  await mkdir(dirname(join(root, file)), { recursive: true });
  await rm(join(root, file), { force: true });
  if (kind === 'fifo') execFileSync('mkfifo', [join(root, file)]);
  else await symlink('/dev/zero', join(root, file));
  return root;
}

const hangs = { runs: 0, hung: 0 };
afterAll(() =>
  reportReliability({
    class: 'FIFO or device where mem reads a file (real CLI)',
    runs: hangs.runs,
    hung: hangs.hung,
  }),
);

describe('a FIFO where mem expects a file', () => {
  afterEach(cleanupVaults);

  it.each(CASES)(
    '$file, read by mem $args.0: ends promptly, never hangs',
    async ({ file, args, refuses, autoCommit }) => {
      const root = await vaultWith(file, 'fifo', autoCommit);
      const result = await run(args, root);
      hangs.runs++;
      if (result.hung) hangs.hung++;
      expect(result.hung).toBe(false);
      if (refuses) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`${join(root, file)} is a FIFO (named pipe), not a regular file`);
      }
    },
    30_000,
  );
});

describe('a symlink to /dev/zero where mem expects a file', () => {
  afterEach(cleanupVaults);

  it.each([
    { file: 'mem.config.json', args: ['recall', 'kettle'] },
    { file: '.mem/write.lock', args: ['remember', 'hello', '--at', AT] },
  ])(
    '$file: refused as a device, not read for ever',
    async ({ file, args }) => {
      const root = await vaultWith(file, 'zero');
      const result = await run(args, root);
      hangs.runs++;
      if (result.hung) hangs.hung++;
      expect(result.hung).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${join(root, file)} is a character device, not a regular file`);
    },
    30_000,
  );
});

describe('a FIFO where the library expects a file of .mem/', () => {
  afterEach(cleanupVaults);

  it('.mem/adds.jsonl: starting the exchange writer is refused at once, naming it', async () => {
    const root = await vaultWith('.mem/adds.jsonl');
    const vault = await openVault({ path: root });
    try {
      await expect(vault.startExchanges()).rejects.toThrow(
        `${join(root, '.mem/adds.jsonl')} is a FIFO (named pipe), not a regular file`,
      );
    } finally {
      // close() waits for the writer, whose start failed as above.
      await vault.close().catch(() => undefined);
    }
  });

  it('.mem/reflect-usage.json: the day counts as unused, without waiting', async () => {
    const root = await vaultWith('.mem/reflect-usage.json');
    expect(await readUsage(root, '2026-11-29')).toEqual({
      day: '2026-11-29',
      promptTokens: 0,
      completionTokens: 0,
    });
  });
});

describe('a FIFO at the old fixed temp name of the vector cache', () => {
  afterEach(cleanupVaults);

  it('does not stop a save (the temp name is unique and created new)', async () => {
    const root = await makeVault();
    const file = vectorCacheFile(root, 'stub');
    await mkdir(dirname(file), { recursive: true });
    execFileSync('mkfifo', [`${file}.tmp`]);
    const cache = await VectorCache.load(root, 'stub');
    await cache.fill(['tea'], async (texts) => texts.map(() => [1, 0]), 8);
    await cache.save(root);
    const loaded = await VectorCache.load(root, 'stub');
    expect(loaded.size).toBe(1);
    expect(loaded.hashAt(loaded.slotOf('tea') ?? -1)).toBe(hashText('tea'));
    expect(loaded.get('tea')?.[0]).toBeCloseTo(1, 6);
    expect(loaded.get('tea')?.[1]).toBe(0);
  });
});

describe('regular-file reads', () => {
  let dir: string;
  let server: Server;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memvault-special-'));
    await writeFile(join(dir, 'mem.config.json'), '{}');
    server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    await symlink('/dev/zero', join(dir, 'zero'));
    await symlink('/dev/null', join(dir, 'null'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['sock', 'a socket'],
    ['fifo', 'a FIFO (named pipe)'],
    ['zero', 'a character device'],
    ['null', 'a character device'],
    ['.', 'a directory'],
  ])('refuse %s (%s) for reading, appending and synchronous reading', async (name, kind) => {
    const path = join(dir, name);
    const message = `${path} is ${kind}, not a regular file`;
    await expect(readRegularFile(path)).rejects.toThrow(message);
    expect(() => readRegularFileSync(path)).toThrow(message);
    if (name !== '.') await expect(openRegularFile(path, 'append')).rejects.toThrow(message);
  });

  it('read a regular file and pass ENOENT through unchanged', async () => {
    expect((await readRegularFile(join(dir, 'mem.config.json'))).toString()).toBe(
      await readFile(join(dir, 'mem.config.json'), 'utf8'),
    );
    await expect(readRegularFile(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
