// A pool of mem serve processes behind HAProxy with a git daemon holding every vault's remote, all
// on loopback: what bench/cluster.mjs and test/cluster/ run. Installs nothing: HAProxy and git must
// be installed (Debian: apt-get install -y haproxy git; HAProxy is found on PATH or in /usr/sbin). The configuration is deploy/render.mjs's.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gitDaemonArgs, memServeArgs, renderHaproxy } from '../deploy/render.mjs';

const run = promisify(execFile);
const MEM = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
/** The router connects from here: mem serve --router accepts the router's Host from it only. */
const ROUTER_SOURCE = '127.0.0.2';

/**
 * The HAProxy binary: on PATH, or where Debian puts it (/usr/sbin, which a user's PATH or an
 * `env -i` run often leaves out).
 */
const HAPROXY =
  [...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean), '/usr/local/sbin', '/usr/sbin']
    .map((dir) => join(dir, 'haproxy'))
    .find((path) => existsSync(path)) ?? 'haproxy';

/** `HAProxy version 2.6.12-1+deb12u4 …` → `2.6.12-1+deb12u4`, or undefined when it is not installed. */
export async function haproxyVersion() {
  try {
    const { stdout } = await run(HAPROXY, ['-v']);
    return /HAProxy version (\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** A free loopback port (listened on, then closed: the router's configuration needs them named). */
/** @returns {Promise<number>} */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** @param {number} ms @returns {Promise<void>} */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is truthy or `ms` pass; returns its last value. */
export async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** @type {NodeJS.ProcessEnv} */
const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'mem bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'mem bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** @param {import('node:child_process').ChildProcess} child @returns {Promise<void>} */
function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** The real git, for the counting shim (which must not find itself on PATH). */
async function realGit() {
  return (await run('/bin/sh', ['-c', 'command -v git'])).stdout.trim();
}

/**
 * A folder with a `git` that appends the value of `$<tag>` (its server's name) and its subcommand
 * to `log`, then runs the real git: put first on a mem serve's PATH, it counts the git processes
 * that server spawns (bench/git-per-add.mjs tags them by phase instead).
 * @param {string} dir @param {string} log @param {string} [tag]
 */
export async function gitCountingShim(dir, log, tag = 'MEM_BENCH_SERVER') {
  const shim = join(dir, 'git-shim');
  await mkdir(shim, { recursive: true });
  const real = await realGit();
  const script = [
    '#!/bin/sh',
    // The subcommand: the first argument that is no option (`-c key=value` and `-C dir` skipped).
    'sub=""; skip=0; for a in "$@"; do',
    '  if [ $skip = 1 ]; then skip=0; continue; fi',
    '  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac',
    'done',
    `printf '%s %s\\n' "$${tag}" "$sub" >> '${log}'`,
    `exec '${real}' "$@"`,
    '',
  ].join('\n');
  await writeFile(join(shim, 'git'), script);
  await chmod(join(shim, 'git'), 0o755);
  return shim;
}

/**
 * Starts the git daemon, `servers` mem serve processes and HAProxy under `dir`. With `countGit`,
 * each mem serve runs git through a shim that logs it (`gitCounts()`).
 * @param {{ dir: string, servers?: number, idleMinutes?: number, countGit?: boolean }} options
 */
export async function startCluster({ dir, servers: count = 3, idleMinutes = 10, countGit = false }) {
  const gitLog = join(dir, 'git-processes.log');
  const shim = countGit ? await gitCountingShim(dir, gitLog) : undefined;
  const gitBase = join(dir, 'git');
  await mkdir(gitBase, { recursive: true });
  const [gitPort, routerPort, ...ports] = await Promise.all(
    Array.from({ length: count + 2 }, () => freePort()),
  );
  const routerHost = `127.0.0.1:${routerPort}`;
  /** @type {string[]} */
  const stopKilled = [];
  const children = new Set();
  const track = (child, name) => {
    children.add(child);
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.once('exit', () => children.delete(child));
    return () => `${name}: ${output.slice(-4000)}`;
  };

  // `git daemon` runs git-daemon as its child: in a process group of its own, so that stop() ends
  // both (killing `git` alone left git-daemon holding the pipes, and the benchmark never exited).
  const gitd = spawn('git', gitDaemonArgs({ base: gitBase, port: gitPort }), { env: ENV, detached: true });
  track(gitd, 'git daemon');
  await until(
    async () =>
      await run('git', ['ls-remote', `git://127.0.0.1:${gitPort}/none.git`]).catch((e) =>
        /not exported|access denied|does not appear/.test(String(e.stderr)) ? { ok: true } : undefined,
      ),
    10_000,
    'git daemon',
  );

  /** @typedef {{ name: string, port: number, url: string, vaults: string, startedAt?: number,
   *   child?: import('node:child_process').ChildProcess, output: () => string }} Server */
  const servers = ports.map(
    (port, i) =>
      /** @type {Server} */ ({
        name: `mem${i + 1}`,
        port,
        url: `http://127.0.0.1:${port}`,
        vaults: join(dir, `server${i + 1}`),
        output: () => '',
      }),
  );
  /** @param {Server} s */
  const running = (s) => s.child !== undefined && s.child.exitCode === null && s.child.signalCode === null;

  /** @param {Server} server */
  async function startServer(server) {
    const args = memServeArgs({
      port: server.port,
      vaults: server.vaults,
      gitPort,
      gitBase,
      routerSource: ROUTER_SOURCE,
      routerHost,
    });
    const env = shim
      ? { ...ENV, MEM_BENCH_SERVER: server.name, PATH: `${shim}${delimiter}${ENV['PATH'] ?? ''}` }
      : ENV;
    const child = spawn(process.execPath, [MEM, 'serve', ...args, '--idle-minutes', String(idleMinutes)], {
      env,
    });
    server.child = child;
    server.output = track(child, server.name);
    await until(
      async () => (await fetch(`${server.url}/memory/health`)).ok,
      30_000,
      `${server.name} to listen`,
    ).catch((error) => {
      throw new Error(`${error.message}\n${server.output()}`);
    });
    server.startedAt = Date.now();
  }
  await Promise.all(servers.map(startServer));

  const socket = join(dir, 'haproxy.sock');
  const config = await renderHaproxy({
    bind: routerHost,
    host: routerHost,
    source: ROUTER_SOURCE,
    socket,
    servers: servers.map((s) => ({ name: s.name, address: `127.0.0.1:${s.port}` })),
  });
  const configFile = join(dir, 'haproxy.cfg');
  await writeFile(configFile, config);
  const haproxy = spawn(HAPROXY, ['-db', '-f', configFile], { env: ENV });
  const haproxyOutput = track(haproxy, 'haproxy');
  const routerUrl = `http://${routerHost}`;
  // Up once every server passes its health check through the router's eyes.
  await until(async () => (await serverStates()).every((s) => s.up), 30_000, 'haproxy and its health checks');

  /** Each server's state as HAProxy sees it (the stats socket's `show servers state`). */
  async function serverStates() {
    const out = await adminCommand('show servers state mem');
    return out
      .split('\n')
      .filter((line) => /^\d+ mem /.test(line))
      .map((line) => {
        const f = line.split(' ');
        return { name: f[3], up: f[5] === '2' };
      });
  }

  function adminCommand(command) {
    return new Promise((resolve, reject) => {
      import('node:net').then(({ createConnection }) => {
        const conn = createConnection(socket);
        let out = '';
        conn.on('data', (d) => {
          out += d;
        });
        conn.on('end', () => resolve(out));
        conn.on('error', reject);
        conn.end(`${command}\n`);
      });
    });
  }

  return {
    routerUrl,
    routerHost,
    gitBase,
    gitPort,
    servers,
    config,
    serverStates,
    /** Waits until HAProxy sees `name` up (true) or down (false). */
    waitState: (name, up) =>
      until(
        async () => (await serverStates()).find((s) => s.name === name)?.up === up,
        30_000,
        `haproxy to see ${name} ${up ? 'up' : 'down'}`,
      ),
    output: () => [haproxyOutput(), ...servers.map((s) => s.output())].join('\n'),
    /** SIGKILL: the process ends without closing anything (its journal is what it leaves). */
    /** @param {Server} server */
    async kill(server) {
      server.child?.kill('SIGKILL');
      if (server.child) await exited(server.child);
    },
    /** Starts a killed or stopped server again, on its port and its folder of vaults. */
    /** @param {Server} server */
    restart: (server) => startServer(server),
    /** SIGTERM to every mem serve (each commits and pushes what it holds), then the router and git. */
    /** Servers killed because they had not exited 20 s after stop()'s SIGTERM */
    stopKilled,
    /** @param {(name: string) => void} [onStopped] told as each server exits */
    async stop(onStopped) {
      await Promise.all(
        servers.map(async (s) => {
          if (!s.child || !running(s)) return;
          s.child.kill('SIGTERM');
          // A server that has not exited 20 s after SIGTERM is killed and named (stopKilled), a
          // failure the test asserts against, rather than left to hang the run; what it had not
          // pushed is then counted as lost.
          const timer = setTimeout(() => {
            stopKilled.push(s.name);
            s.child?.kill('SIGKILL');
          }, 20_000);
          await exited(s.child);
          clearTimeout(timer);
          onStopped?.(s.name);
        }),
      );
      for (const child of [...children]) {
        if (child === gitd && gitd.pid) process.kill(-gitd.pid, 'SIGKILL');
        else child.kill('SIGKILL');
        await exited(child);
      }
    },
    /**
     * Makes the remote of `agent/user` before its first request: a vault whose config is the one
     * `mem serve --remote` gives a new user's vault plus `sync` settings of its own (e.g.
     * `{ ackAfterPush: true }`), pushed to a new bare repository, which the serving server clones.
     * @param {string} agent @param {string} user @param {Record<string, unknown>} sync
     */
    async seedVault(agent, user, sync) {
      const { initVault } = await import('../dist/index.js');
      const work = join(dir, 'seed', agent, user);
      const bare = join(gitBase, agent, `${user}.git`);
      await mkdir(join(gitBase, agent), { recursive: true });
      await run('git', ['init', '-q', '--bare', bare], { env: ENV });
      await initVault(work, {
        git: true,
        config: { sync: { remote: 'origin', afterCommit: true, intervalSeconds: 60, ...sync } },
      });
      const branch = (
        await run('git', ['symbolic-ref', '--short', 'HEAD'], { cwd: work, env: ENV })
      ).stdout.trim();
      await run('git', ['push', '-q', bare, `HEAD:refs/heads/${branch}`], { cwd: work, env: ENV });
      await run('git', ['--git-dir', bare, 'symbolic-ref', 'HEAD', `refs/heads/${branch}`], { env: ENV });
    },
    /** Every add text's token found in the remote of `agent/user` (HEAD of its bare repository). */
    async tokensInRemote(agent, user, pattern) {
      const repo = join(gitBase, agent, `${user}.git`);
      const { stdout } = await run(
        'git',
        ['--git-dir', repo, 'grep', '-h', '-o', '-E', pattern, 'HEAD', '--'],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((error) => ({ stdout: error.code === 1 ? '' : Promise.reject(error) }));
      return new Set(String(stdout).split('\n').filter(Boolean));
    },
    /**
     * The git processes each mem serve started so far, by subcommand (`countGit`), and in all.
     * @returns {Promise<{ total: number, byServer: Record<string, number>, bySubcommand: Record<string, number> }>}
     */
    async gitCounts() {
      const lines = (await readFile(gitLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
      /** @type {Record<string, number>} */
      const byServer = {};
      /** @type {Record<string, number>} */
      const bySubcommand = {};
      for (const line of lines) {
        const [name = '', sub = ''] = line.split(' ');
        byServer[name] = (byServer[name] ?? 0) + 1;
        bySubcommand[sub] = (bySubcommand[sub] ?? 0) + 1;
      }
      return { total: lines.length, byServer, bySubcommand };
    },
    /**
     * CPU seconds each mem serve used (its own, and its git processes'), the git daemon's (with
     * the upload-pack and receive-pack it ran) and HAProxy's, from /proc: where the machine's time went.
     */
    async cpu() {
      const tick = 100;
      /** @param {number | undefined} pid */
      const of = async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
        const f = stat
          .slice(stat.lastIndexOf(')') + 2)
          .split(' ')
          .map(Number);
        // After the name: state is field 3; utime, stime, cutime, cstime are fields 14 to 17.
        return { self: ((f[11] ?? 0) + (f[12] ?? 0)) / tick, children: ((f[13] ?? 0) + (f[14] ?? 0)) / tick };
      };
      /** @type {Record<string, { self: number, children: number }>} */
      const out = {};
      for (const s of servers) if (s.child && running(s)) out[s.name] = await of(s.child.pid);
      // `git daemon` runs git-daemon, which runs each upload-pack and receive-pack: summed.
      const kids = (await readFile(`/proc/${gitd.pid}/task/${gitd.pid}/children`, 'utf8').catch(() => ''))
        .split(' ')
        .filter(Boolean);
      const daemon = [await of(gitd.pid), ...(await Promise.all(kids.map((pid) => of(Number(pid)))))];
      out['git daemon'] = {
        self: daemon.reduce((n, c) => n + c.self, 0),
        children: daemon.reduce((n, c) => n + c.children, 0),
      };
      out['haproxy'] = await of(haproxy.pid);
      return out;
    },
    /** Resident memory of each mem serve now, and its peak (VmHWM), in MiB. */
    async memory() {
      const out = {};
      for (const s of servers) {
        if (!s.child || !running(s)) continue;
        const status = await readFile(`/proc/${s.child.pid}/status`, 'utf8').catch(() => '');
        const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
        out[s.name] = { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
      }
      return out;
    },
  };
}
