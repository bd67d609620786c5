// One `mem serve` per vault, and a port in use said once with what to do. Real processes (needs
// `npm run build`): two servers on one vault each replayed and committed the other's adds.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_ENV } from '../helpers/git.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

const ROUNDS = process.env['MEM_SLOW'] ? 10 : 2;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await cleanupVaults();
});

type Outcome =
  | { serving: true; url: string; pid: number; child: ChildProcess }
  | { serving: false; code: number | null; stderr: string };

/** Starts the built `mem serve`; resolves when it serves (its start line) or exits. */
function serve(root: string, port = '0', where: string[] = ['--vault', root]): Promise<Outcome> {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/cli/main.js'), 'serve', '--port', port, ...where],
    {
      env: GIT_ENV,
    },
  );
  children.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = / on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) resolve({ serving: true, url, pid: child.pid ?? 0, child });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once('close', (code) => resolve({ serving: false, code, stderr: err }));
  });
}

/** A pid that belongs to no running process: one that has just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}

describe('one mem serve per vault', () => {
  it(`of two servers started together on one vault, one serves and the other is refused naming it (${ROUNDS} races)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const root = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
      const outcomes = await Promise.all([serve(root), serve(root)]);
      const served = outcomes.filter((o) => o.serving);
      const refused = outcomes.filter((o) => !o.serving);
      expect(served).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const first = served[0] as Extract<Outcome, { serving: true }>;
      const second = refused[0] as Extract<Outcome, { serving: false }>;
      expect(second.code).toBe(1);
      // It may have been refused while the first one was still starting: then it has no URL yet.
      expect(second.stderr).toMatch(
        new RegExp(
          `^mem: .* is already served by mem serve \\(pid ${first.pid}( on ${first.url.replace(/\./g, '\\.')}|, starting)\\); stop it first, or send requests to it\\n$`,
        ),
      );
      // Once the first listens, a third is refused with its URL.
      const third = await serve(root);
      expect(third.serving).toBe(false);
      expect((third as { stderr: string }).stderr).toContain(`(pid ${first.pid} on ${first.url})`);
      expect(JSON.parse(await readFile(join(root, '.mem', 'serve.json'), 'utf8'))).toMatchObject({
        pid: first.pid,
        url: first.url,
      });
      first.child.kill('SIGTERM');
      await new Promise((resolve) => first.child.once('close', resolve));
    }
  }, 60_000);

  it('of two servers on one folder of vaults (--vaults), one serves and the other is refused naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-pool-'));
    const pool = (at: string) => serve(at, '0', ['--vaults', at]);
    const outcomes = await Promise.all([pool(dir), pool(dir)]);
    const first = outcomes.find((o) => o.serving) as Extract<Outcome, { serving: true }> | undefined;
    const second = outcomes.find((o) => !o.serving) as Extract<Outcome, { serving: false }> | undefined;
    expect(first).toBeDefined();
    expect(second?.code).toBe(1);
    expect(second?.stderr).toMatch(
      new RegExp(
        `^mem: .* is already served by mem serve \\(pid ${first?.pid}( on .+|, starting)\\); stop it first`,
      ),
    );
    first?.child.kill('SIGTERM');
    if (first) await new Promise((resolve) => first.child.once('close', resolve));
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('takes over a claim left by a process that is gone', async () => {
    const root = await makeVault({ 'profile/user.md': '# User\n' });
    const pid = await deadPid();
    await mkdir(join(root, '.mem'));
    await writeFile(
      join(root, '.mem', 'serve.json'),
      JSON.stringify({ url: 'http://127.0.0.1:9', pid, version: '0.0.0' }),
    );
    const outcome = await serve(root);
    expect(outcome.serving).toBe(true);
  }, 30_000);
});

describe('mem serve on a port in use', () => {
  let blocker: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve())));

  it('says so in one line naming the port, its holder and --port, exits 2, and leaves no claim behind', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const root = await makeVault({ 'profile/user.md': '# User\n' });
    const outcome = await serve(root, String(port));
    expect(outcome.serving).toBe(false);
    const { code, stderr } = outcome as Extract<Outcome, { serving: false }>;
    expect(code).toBe(2);
    // On Linux the holder is named (this test's own process); elsewhere it is not known.
    const holder =
      process.platform === 'linux'
        ? `by pid ${process.pid} \\(.+\\)`
        : 'by another program, or another mem serve';
    expect(stderr).toMatch(
      new RegExp(
        `^mem: port ${port} on 127\\.0\\.0\\.1 is in use \\(${holder}\\); choose another with --port\\n$`,
      ),
    );
    await expect(readFile(join(root, '.mem', 'serve.json'), 'utf8')).rejects.toThrow('ENOENT');
  }, 30_000);

  it.runIf(process.platform === 'linux')(
    'names another mem serve holding the port by its pid',
    async () => {
      blocker = undefined;
      const first = await serve(await makeVault({ 'profile/user.md': '# A\n' }));
      expect(first.serving).toBe(true);
      const { url, pid } = first as Extract<Outcome, { serving: true }>;
      const port = new URL(url).port;
      const outcome = await serve(await makeVault({ 'profile/user.md': '# B\n' }), port);
      expect(outcome).toEqual({
        serving: false,
        code: 2,
        stderr: `mem: port ${port} on 127.0.0.1 is in use (by another mem serve, pid ${pid}); choose another with --port\n`,
      });
    },
    30_000,
  );
});

describe('mem serve --allow-host and serve.allowedHosts / serve.allowedOrigins', () => {
  it('answers the names and the page origins it is given, and refuses others', async () => {
    const root = await makeVault(
      { 'profile/user.md': '# User\nLoves ramen.\n' },
      {
        config: {
          timezone: 'UTC',
          serve: { allowedHosts: ['fromconfig.local'], allowedOrigins: ['http://localhost:5173'] },
        },
      },
    );
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'dist/cli/main.js'),
        'serve',
        '--port',
        '0',
        '--vault',
        root,
        '--allow-host',
        'fromflag.local',
      ],
      { env: GIT_ENV },
    );
    children.push(child);
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = / on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (found) resolve(found);
      });
      child.once('close', () => reject(new Error(out)));
    });
    const port = new URL(url).port;
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'GET', path: '/health', headers, setHost: false, agent: false },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await status({ host: `fromflag.local:${port}` })).toBe(200);
    expect(await status({ host: `fromconfig.local:${port}` })).toBe(200);
    expect(await status({ host: `other.local:${port}` })).toBe(403);
    expect(await status({ host: `localhost:${port}`, origin: 'http://localhost:5173' })).toBe(200);
    expect(await status({ host: `localhost:${port}`, origin: 'http://localhost:5174' })).toBe(403);
  }, 30_000);
});
