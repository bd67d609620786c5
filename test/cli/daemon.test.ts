import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LONG_RUNNING_MMAP_THRESHOLD, longRunningEnv } from '../../src/cli/start-daemon.js';
import { isAlive, type ServeRecord, serveRecordPath } from '../../src/core/serve-record.js';
import { VERSION } from '../../src/core/version.js';
import { cleanupVaults, copyExampleVault, REPO_ROOT } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';
import { exited } from '../helpers/serve-process.js';
import { WAIT_MS } from '../helpers/wait.js';

// Real processes on real vaults: `mem` as the built binary, the daemon it starts detached, HTTP
// on 127.0.0.1. Every daemon a test started is stopped after it, so the suite leaves none behind.
const NOW = '2026-11-30T10:00:00+08:00';
const roots: string[] = [];
const servers: Server[] = [];

/** The pids of `mem daemon run` processes for `root`, from /proc (Linux) or ps. */
function daemonsOf(root: string): number[] {
  if (existsSync('/proc')) {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          return args.includes('daemon') && args.includes('run') && args.includes(root);
        } catch {
          return false;
        }
      })
      .map(Number);
  }
  return [];
}

async function waitGone(pid: number, ms = WAIT_MS): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(20))
    if (!isAlive(pid)) return true;
  return !isAlive(pid);
}

afterEach(async () => {
  for (const root of roots.splice(0)) {
    for (const pid of daemonsOf(root)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
      await waitGone(pid);
    }
  }
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  await cleanupVaults();
});

/** A copy of the example vault (51 notes) whose config lets a daemon start for it. */
async function vaultWithDaemon(daemon: object = { minNotes: 10 }): Promise<string> {
  const root = await copyExampleVault();
  roots.push(root);
  const config = JSON.parse(await readFile(join(root, 'mem.config.json'), 'utf8'));
  await writeFile(join(root, 'mem.config.json'), JSON.stringify({ ...config, daemon }));
  return root;
}

async function daemonRecord(root: string): Promise<ServeRecord> {
  return JSON.parse(await readFile(serveRecordPath(root, 'daemon'), 'utf8'));
}

const traced = { MEM_TRACE: '1' };

/** `mem daemon run` as a child of the test, so its exit is an event the test can wait for. */
async function runDaemon(root: string): Promise<ChildProcess & { said: string }> {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/cli/main.js'), '--vault', root, 'daemon', 'run'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes(' on http://127.0.0.1:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`mem daemon run exited ${code}: ${said}`)));
  });
  return Object.assign(child, { said });
}

/** A raw request to the daemon, with whatever Authorization header is given. */
function rawStatus(url: string, authorization?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: '上海' });
    const req = request(
      `${url}/recall`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the background daemon of a large vault', () => {
  it('starts on the first recall, answers as --no-server would, and answers the next call itself', async () => {
    const root = await vaultWithDaemon();
    const local = await memProcess([
      '--vault',
      root,
      '--no-server',
      'recall',
      '上海',
      '--now',
      NOW,
      '--json',
    ]);
    expect(local.code).toBe(0);
    expect(existsSync(serveRecordPath(root, 'daemon'))).toBe(false);

    const first = await memProcess(['--vault', root, 'recall', '上海', '--now', NOW, '--json'], {
      env: traced,
    });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(local.stdout);
    const record = await daemonRecord(root);
    expect(record.version).toBe(VERSION);
    expect(record.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(isAlive(record.pid)).toBe(true);
    expect(first.stderr).toContain(`answered by the daemon (pid ${record.pid}, started now)`);
    // A long-running process: glibc's mmap threshold stays fixed (longRunningEnv).
    if (existsSync(`/proc/${record.pid}/environ`)) {
      const environ = readFileSync(`/proc/${record.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`MALLOC_MMAP_THRESHOLD_=${LONG_RUNNING_MMAP_THRESHOLD}`);
    }
    // The token is in the record, which only its owner may read.
    expect(record.token?.length).toBeGreaterThanOrEqual(32);
    expect(statSync(serveRecordPath(root, 'daemon')).mode & 0o777).toBe(0o600);

    const second = await memProcess(['--vault', root, 'recall', '上海', '--now', NOW, '--json'], {
      env: traced,
    });
    expect(second.stdout).toBe(local.stdout);
    expect(second.stderr).toContain(`answered by the daemon (pid ${record.pid})\n`);
    const compiled = ['compile', 'where am I moving?', '--budget', '800', '--now', NOW, '--json'];
    const served = await memProcess(['--vault', root, ...compiled], { env: traced });
    expect(served.stderr).toContain(`answered by the daemon (pid ${record.pid})\n`);
    expect(served.stdout).toBe((await memProcess(['--vault', root, '--no-server', ...compiled])).stdout);
    expect(daemonsOf(root)).toEqual([record.pid]);

    const status = await memProcess(['--vault', root, 'daemon', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toEqual({
      running: true,
      root,
      pid: record.pid,
      url: record.url,
      version: VERSION,
      notes: 51,
    });
    const stop = await memProcess(['--vault', root, 'daemon', 'stop']);
    expect(stop.stdout).toBe(`stopped the daemon for ${root} (pid ${record.pid})\n`);
    expect(isAlive(record.pid)).toBe(false);
    expect(existsSync(serveRecordPath(root, 'daemon'))).toBe(false);
    expect((await memProcess(['--vault', root, 'daemon', 'status'])).stdout).toBe(`no daemon for ${root}\n`);
  });

  it('answers with a note written by hand just before the call', async () => {
    const root = await vaultWithDaemon();
    await memProcess(['--vault', root, 'recall', '上海', '--now', NOW]);
    const { pid } = await daemonRecord(root);
    for (const animal of ['quokkas', 'axolotls', 'pangolins']) {
      await writeFile(
        join(root, 'insights', 'zebra-crossing.md'),
        `# Zebra crossing\n\nThe user likes ${animal}.\n`,
      );
      const run = await memProcess(['--vault', root, 'recall', animal, '--json'], { env: traced });
      expect(run.stderr).toContain(`answered by the daemon (pid ${pid})`);
      expect(JSON.parse(run.stdout).hits.map((h: { path: string }) => h.path)).toContain(
        'insights/zebra-crossing.md',
      );
    }
    await rm(join(root, 'insights', 'zebra-crossing.md'));
    const gone = await memProcess(['--vault', root, 'recall', 'pangolins', '--json'], { env: traced });
    expect(gone.stderr).toContain(`answered by the daemon (pid ${pid})`);
    expect(JSON.parse(gone.stdout).hits.map((h: { path: string }) => h.path)).not.toContain(
      'insights/zebra-crossing.md',
    );

    // A folder made, and then renamed, between two calls: the daemon watches folders, not notes.
    const recalled = async (query: string) => {
      const run = await memProcess(['--vault', root, 'recall', query, '--json'], { env: traced });
      expect(run.stderr).toContain(`answered by the daemon (pid ${pid})`);
      return JSON.parse(run.stdout).hits.map((h: { path: string }) => h.path);
    };
    await mkdir(join(root, 'trips', 'iceland'), { recursive: true });
    await writeFile(join(root, 'trips', 'iceland', 'puffins.md'), '# Puffins\n\nWe saw puffins at Vik.\n');
    expect(await recalled('puffins')).toContain('trips/iceland/puffins.md');
    await rename(join(root, 'trips'), join(root, 'travel'));
    const moved = await recalled('puffins');
    expect(moved).toContain('travel/iceland/puffins.md');
    expect(moved).not.toContain('trips/iceland/puffins.md');
  });

  it('never answers with settings the config no longer has: a new daemon answers after an edit', async () => {
    const root = await vaultWithDaemon();
    const before = await memProcess(['--vault', root, 'recall', 'Shanghai', '--now', NOW, '--json'], {
      env: traced,
    });
    const { pid } = await daemonRecord(root);
    expect(JSON.parse(before.stdout).hits.length).toBeGreaterThan(2);
    const config = JSON.parse(await readFile(join(root, 'mem.config.json'), 'utf8'));
    await writeFile(join(root, 'mem.config.json'), JSON.stringify({ ...config, recall: { k: 2 } }));

    const after = await memProcess(['--vault', root, 'recall', 'Shanghai', '--now', NOW, '--json'], {
      env: traced,
    });
    expect(JSON.parse(after.stdout).hits).toHaveLength(2);
    const next = await daemonRecord(root);
    expect(next.pid).not.toBe(pid);
    expect(after.stderr).toContain(`answered by the daemon (pid ${next.pid}, started now)`);
    expect(await waitGone(pid)).toBe(true);
  });

  it('refuses a request without its token, or with a wrong one (401)', async () => {
    const root = await vaultWithDaemon();
    await memProcess(['--vault', root, 'recall', '上海', '--now', NOW]);
    const { url, token } = await daemonRecord(root);
    expect(await rawStatus(url)).toBe(401);
    expect(await rawStatus(url, 'Bearer wrong-token')).toBe(401);
    expect(await rawStatus(url, `Bearer ${token}`)).toBe(200);
  });

  it('exits by itself once idle, and when its vault folder is removed', async () => {
    const root = await vaultWithDaemon({ minNotes: 10, idleMinutes: 0.002 });
    const idle = await runDaemon(root);
    // A fresh read re-reads the notes that changed (inotify, Linux), not every note.
    if (process.platform === 'linux') expect(idle.said).toContain('(changed notes tracked)');
    expect(await exited(idle)).toBe(0);
    expect(existsSync(serveRecordPath(root, 'daemon'))).toBe(false);

    const other = await vaultWithDaemon({ minNotes: 10 });
    const orphan = await runDaemon(other);
    await rm(other, { recursive: true, force: true });
    expect(await exited(orphan)).toBe(0);
    // Nothing of the removed vault is written again (no cache saved into a recreated folder).
    expect(existsSync(other)).toBe(false);
  });

  it('two commands at once leave one daemon, and both are answered', async () => {
    const root = await vaultWithDaemon();
    const local = await memProcess([
      '--vault',
      root,
      '--no-server',
      'recall',
      '上海',
      '--now',
      NOW,
      '--json',
    ]);
    const runs = await Promise.all(
      [1, 2, 3].map(() =>
        memProcess(['--vault', root, 'recall', '上海', '--now', NOW, '--json'], { env: traced }),
      ),
    );
    const { pid } = await daemonRecord(root);
    for (const run of runs) {
      expect(run.stdout).toBe(local.stdout);
      expect(run.stderr).toContain(`answered by the daemon (pid ${pid}`);
    }
    expect(daemonsOf(root)).toEqual([pid]);
  });

  it('a second daemon on a vault stops at once, naming the first, which keeps serving', async () => {
    const root = await vaultWithDaemon();
    const first = await runDaemon(root);
    try {
      const { url } = await daemonRecord(root);
      const second = await memProcess(['--vault', root, 'daemon', 'run']);
      expect(second.code).toBe(0);
      expect(second.stderr).toBe(
        `mem: daemon for ${root} stopped: another daemon serves this vault (pid ${first.pid} on ${url})\n`,
      );
      expect(await daemonRecord(root)).toMatchObject({ pid: first.pid, url });
      expect(await rawStatus(url)).toBe(401);
    } finally {
      first.kill('SIGTERM');
      await exited(first);
    }
  });

  it('is never started with --no-server, MEM_NO_DAEMON=1, daemon.enabled false, or below daemon.minNotes', async () => {
    const cases: [object, string[], NodeJS.ProcessEnv][] = [
      [{ minNotes: 10 }, ['--no-server'], traced],
      [{ minNotes: 10 }, [], { ...traced, MEM_NO_DAEMON: '1' }],
      [{ minNotes: 10, enabled: false }, [], traced],
      [{ minNotes: 52 }, [], traced],
      // A wrong value: the command opens the vault itself, which reports it.
      [{ minNotes: -1 }, [], traced],
    ];
    for (const [daemon, flags, env] of cases) {
      const root = await vaultWithDaemon(daemon);
      const run = await memProcess(['--vault', root, ...flags, 'recall', '上海', '--now', NOW, '--json'], {
        env,
      });
      const what = JSON.stringify({ daemon, flags, env });
      expect(run.stderr, what).not.toContain('answered by');
      expect(existsSync(serveRecordPath(root, 'daemon')), what).toBe(false);
      expect(daemonsOf(root), what).toEqual([]);
      if ((daemon as { minNotes: number }).minNotes < 0) {
        expect(run.code).toBe(1);
        expect(run.stderr).toContain('daemon.minNotes');
      } else expect(run.code, what).toBe(0);
    }
  });

  it('asks a daemon of another version to stop, and starts one of its own', async () => {
    const root = await vaultWithDaemon();
    const asked: { path: string; auth?: string }[] = [];
    const old = createServer((req, res) => {
      asked.push({ path: req.url ?? '', auth: req.headers.authorization });
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"stopping":true}');
    });
    servers.push(old);
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    await mkdir(join(root, '.mem'), { recursive: true });
    const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    await writeFile(
      serveRecordPath(root, 'daemon'),
      JSON.stringify({ url, pid: process.pid, version: '0.0.1-old', token: 'old-token' }),
    );

    const run = await memProcess(['--vault', root, 'recall', '上海', '--now', NOW, '--json'], {
      env: traced,
    });
    expect(run.code).toBe(0);
    expect(asked).toEqual([{ path: '/daemon/stop', auth: 'Bearer old-token' }]);
    const record = await daemonRecord(root);
    expect(record.version).toBe(VERSION);
    expect(record.pid).not.toBe(process.pid);
    expect(run.stderr).toContain(`answered by the daemon (pid ${record.pid}, started now)`);
  });
});

describe('longRunningEnv', () => {
  it("fixes glibc's mmap threshold, and leaves one the user set as it is", () => {
    const env = { PATH: '/usr/bin' };
    expect(longRunningEnv(env)).toEqual({
      PATH: '/usr/bin',
      MALLOC_MMAP_THRESHOLD_: LONG_RUNNING_MMAP_THRESHOLD,
    });
    expect(env).toEqual({ PATH: '/usr/bin' });
    const own = { MALLOC_MMAP_THRESHOLD_: '65536' };
    expect(longRunningEnv(own)).toBe(own);
    const tuned = { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=1:glibc.malloc.mmap_threshold=262144' };
    expect(longRunningEnv(tuned)).toBe(tuned);
    const other = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' };
    expect(longRunningEnv(other)).toEqual({ ...other, MALLOC_MMAP_THRESHOLD_: LONG_RUNNING_MMAP_THRESHOLD });
  });
});
