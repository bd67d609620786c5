import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VaultStatus } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

ignoreEnvVault();

const children: ReturnType<typeof spawn>[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill();
  await cleanupVaults();
});

const DAY = (reflected?: string) =>
  `${reflected ? `---\nreflected: ${reflected}\n---\n` : ''}# 2026-11-28\n\n- 09:00 user: tea ^e1\n`;

async function status(root: string): Promise<VaultStatus> {
  const out = await mem(['--vault', root, 'status', '--json']);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as VaultStatus;
}

describe('mem status', () => {
  it('reports notes, a missing then fresh then stale index, git state and pending reflection', async () => {
    const root = await gitVault({
      'insights/tea.md': '# Tea\n',
      // Reflected after its day was over (Asia/Shanghai): done.
      'episodes/daily/2026-11-27.md': DAY('2026-11-28T09:00:00+08:00'),
      // Reflected during its day: entries may have come after.
      'episodes/daily/2026-11-28.md': DAY('2026-11-28T12:00:00+08:00'),
      'episodes/daily/2026-11-29.md': DAY(),
      // No entry of mem's nor of the person's (a template's empty task): nothing for reflect to read.
      'episodes/daily/2026-11-26.md': '# 2026-11-26\n\n## Tasks\n- [ ] \n',
    });

    const first = await status(root);
    expect(first).toMatchObject({
      root,
      configured: true,
      timezone: 'Asia/Shanghai',
      notes: 5,
      index: { state: 'missing' },
      git: { clean: true, uncommitted: 0, lastCommit: { subject: 'init' } },
      reflection: { pendingDays: 2, oldestPending: '2026-11-28' },
    });
    expect(first.git?.branch).toBe((await git(root, 'rev-parse', '--abbrev-ref', 'HEAD')).trim());
    expect(first.server).toBeUndefined();
    expect(first.daemon).toBeUndefined();
    expect(first.reflection.lastRun).toBeUndefined();

    // A command that reads the vault saves the index cache.
    expect((await mem(['--vault', root, '--no-server', 'recall', 'tea'])).code).toBe(0);
    expect((await status(root)).index).toMatchObject({ state: 'fresh', notes: 5 });

    await writeFile(join(root, 'insights/oolong.md'), '# Oolong\n');
    const after = await status(root);
    expect(after.notes).toBe(6);
    expect(after.index).toMatchObject({ state: 'stale', notes: 5 });
    expect(after.git).toMatchObject({ clean: false, uncommitted: 1 });
  });

  it("finds reflect's last commit and a running server's record, and ignores a dead one", async () => {
    const root = await gitVault({ 'a.md': '# A\n' });
    await writeFile(join(root, 'a.md'), '# A\n\nmore\n');
    await git(root, 'commit', '-qam', 'mem: reflect: 1 operation from 1 episode');
    await git(root, 'commit', '-q', '--allow-empty', '-m', 'later');
    // A live process standing in for `mem serve`: status only reads the record and checks the pid.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child);
    await mkdir(join(root, '.mem'), { recursive: true });
    // A port nothing listens on (free a moment ago): the record's process does not answer.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const record = { url: `http://127.0.0.1:${port}`, pid: child.pid, version: '0.0.0' };
    await writeFile(join(root, '.mem/serve.json'), JSON.stringify(record));
    await writeFile(join(root, '.mem/daemon.json'), JSON.stringify({ ...record, pid: 2 ** 22 + 1 }));

    const found = await status(root);

    expect(found.server).toEqual({ ...record, health: null });
    expect(found.daemon).toBeUndefined();
    expect(found.reflection.lastRun?.subject).toBe('mem: reflect: 1 operation from 1 episode');
    expect(found.git?.lastCommit?.subject).toBe('later');
    const text = await mem(['--vault', root, 'status']);
    expect(text.stdout).toContain(
      `server      mem serve at ${record.url} (pid ${child.pid}, not answering)\n`,
    );
    expect(text.stdout).toContain('daemon      not running\n');
    expect(text.stdout).toMatch(
      /\nreflection {2}last run \d{4}-\d\d-\d\dT\S+ \([0-9a-f]+\); 0 days not reflected yet\n/,
    );
  });

  it('works without git and names a write killed before its commit', async () => {
    const root = await makeVault({ 'a.md': '# A\n' });
    await mkdir(join(root, '.mem'), { recursive: true });
    await writeFile(
      join(root, '.mem/pending-commit.json'),
      JSON.stringify({ key: 'mv', message: 'mem: mv a.md -> b.md', paths: ['a.md'] }),
    );
    const found = await status(root);
    expect(found.git).toBeUndefined();
    expect(found.lastError).toContain('mem: mv a.md -> b.md');
    const text = await mem(['--vault', root, 'status']);
    expect(text.stdout).toContain('git         not a git repository (mem does not commit)\n');
    expect(text.stdout).toContain('last error  a write was stopped before its commit');
  });

  it("says where the days go, and when Obsidian's own daily-notes setting has moved elsewhere", async () => {
    const config = { timezone: 'UTC', layout: { daily: { folder: 'Journal', format: 'DD.MM.YYYY' } } };
    const root = await makeVault({ 'Journal/28.11.2026.md': DAY(), '.obsidian/app.json': '{}' }, { config });
    // Obsidian's defaults (vault root, YYYY-MM-DD) differ from what the vault's config says.
    expect((await status(root)).days).toEqual({
      folder: 'Journal',
      format: 'DD.MM.YYYY',
      obsidian: { folder: '', format: 'YYYY-MM-DD', source: 'daily-notes' },
    });
    expect((await status(root)).reflection.pendingDays).toBe(1);
    const text = await mem(['--vault', root, 'status']);
    expect(text.stdout).toContain(
      "days        Journal/ as DD.MM.YYYY; Obsidian's Daily notes put them in the vault root as YYYY-MM-DD (layout.daily in mem.config.json differs)\n",
    );
    await writeFile(
      join(root, '.obsidian/daily-notes.json'),
      JSON.stringify({ folder: 'Journal', format: 'DD.MM.YYYY' }),
    );
    expect((await status(root)).days).toEqual({ folder: 'Journal', format: 'DD.MM.YYYY' });
  });

  it("asks a running daemon's /health for its notes in memory and its background reflection", async () => {
    const root = await gitVault({ 'a.md': '# A\n' });
    const seen: IncomingHttpHeaders[] = [];
    const health = {
      status: 'ok',
      notes: 7,
      reflect: {
        enabled: true,
        running: false,
        newEntries: 3,
        failures: 1,
        lastRun: {
          trigger: 'idle 30 minutes',
          startedAt: '2026-11-30T10:00:00+08:00',
          finishedAt: '2026-11-30T10:00:05+08:00',
          episodes: 1,
          applied: 0,
          refused: 0,
          committed: false,
          error:
            'the model call at http://127.0.0.1:11434/v1 failed (Connection error.); nothing was written',
        },
      },
    };
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/health' ? health : {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await mkdir(join(root, '.mem'), { recursive: true });
      // This test's own process stands in for the daemon: its pid is alive.
      await writeFile(
        join(root, '.mem/daemon.json'),
        JSON.stringify({ url, pid: process.pid, version: '0.0.0', token: 'secret-token' }),
      );

      const json = await status(root);
      expect(json.daemon).toEqual({ url, pid: process.pid, version: '0.0.0', health });
      expect(JSON.stringify(json)).not.toContain('secret-token');
      expect(seen[0]?.authorization).toBe('Bearer secret-token');

      const text = await mem(['--vault', root, 'status']);
      expect(text.stdout).toContain(
        `daemon      running at ${url} (pid ${process.pid}, 7 notes in memory)\n`,
      );
      expect(text.stdout).toContain(
        '            background reflect on: last 2026-11-30T10:00:05+08:00 failed: the model call at http://127.0.0.1:11434/v1 failed (Connection error.); nothing was written; 3 new entries\n',
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
