// What `mem recall` and `mem compile` cost as processes when the vault's background daemon answers:
// the first call (which starts the daemon and waits for it to open the vault) and the calls after
// it, each counted as the command's CPU plus the daemon's CPU for that request (from /proc).
// Used by the scale benchmark's daemon row; on its own:
//   node bench/daemon-cost.mjs <vault> [--queries 13] [--compiles 5]
// on a copy of a seeded vault (bench/synth-vault.mjs) whose cache is built (`mem index`).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureNode, procCpuMs } from './measure-process.mjs';
import { memCli } from './peers.mjs';
import { makeMessages, makeQueries } from './queries.mjs';
import { percentile, round } from './stats.mjs';
import { SYNTH_NOW } from './synth-vault.mjs';

const p = (values) => ({
  p50: round(percentile(values, 50)),
  p95: round(percentile(values, 95)),
  n: values.length,
});

async function daemonPid(root) {
  try {
    return JSON.parse(await readFile(join(root, '.mem', 'daemon.json'), 'utf8')).pid;
  } catch {
    return undefined;
  }
}

/**
 * Runs `args` (after `--vault root`) as a process the daemon answers; the daemon's CPU for it is
 * read before and after. Throws when the answer did not come from the daemon.
 */
async function viaDaemon(cli, root, args, env) {
  const pid = await daemonPid(root);
  const before = pid ? await procCpuMs(pid) : 0;
  const r = await measureNode(cli, ['--vault', root, ...args], { env: { ...env, MEM_TRACE: '1' } });
  const after = await daemonPid(root);
  if (!after) throw new Error(`no daemon answered mem ${args.join(' ')}`);
  // A daemon started by this call: all of its CPU so far (opening the vault, then the request).
  const daemonCpuMs = (await procCpuMs(after)) - (after === pid ? before : 0);
  return { cliCpuMs: r.cpuMs, daemonCpuMs, wallMs: r.wallMs, started: after !== pid };
}

/**
 * The daemon row for one vault: `queries` recalls and `messages` compiles as processes. The first
 * recall starts the daemon (no daemon may run before); the daemon is stopped at the end.
 */
export async function benchDaemon({ cli, root, queries, messages, now }) {
  const env = { ...process.env };
  delete env['MEM_NO_DAEMON'];
  await measureNode(cli, ['--vault', root, 'daemon', 'stop'], { env });
  try {
    const recall = (q) => ['recall', q, '-k', '8', '--now', now, '--json'];
    const first = await viaDaemon(cli, root, recall(queries[0]), env);
    if (!first.started) throw new Error('a daemon was already running');
    const later = { cliCpuMs: [], daemonCpuMs: [], totalCpuMs: [], wallMs: [] };
    const compile = { cliCpuMs: [], daemonCpuMs: [], totalCpuMs: [], wallMs: [] };
    const add = (into, r) => {
      into.cliCpuMs.push(r.cliCpuMs);
      into.daemonCpuMs.push(r.daemonCpuMs);
      into.totalCpuMs.push(r.cliCpuMs + r.daemonCpuMs);
      into.wallMs.push(r.wallMs);
    };
    for (const q of queries.slice(1)) add(later, await viaDaemon(cli, root, recall(q), env));
    for (const m of messages)
      add(
        compile,
        await viaDaemon(cli, root, ['compile', m, '--budget', '2000', '--now', now, '--json'], env),
      );
    const summary = (runs) => ({
      cliCpuMs: p(runs.cliCpuMs),
      daemonCpuMs: p(runs.daemonCpuMs),
      totalCpuMs: p(runs.totalCpuMs),
      wallMs: p(runs.wallMs),
    });
    return {
      first: {
        cliCpuMs: round(first.cliCpuMs),
        daemonCpuMs: round(first.daemonCpuMs),
        totalCpuMs: round(first.cliCpuMs + first.daemonCpuMs),
        wallMs: round(first.wallMs),
      },
      recall: summary(later),
      compile: summary(compile),
    };
  } finally {
    await measureNode(cli, ['--vault', root, 'daemon', 'stop'], { env });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { queries: { type: 'string', default: '13' }, compiles: { type: 'string', default: '5' } },
  });
  const root = positionals[0];
  if (!root) throw new Error('usage: node bench/daemon-cost.mjs <vault> [--queries N] [--compiles N]');
  // The seeded vault's people, as the scale benchmark's queries name them.
  const names = (await readdir(join(root, 'profile', 'people')).catch(() => ['Alex.md'])).map((f) =>
    f.replace(/\.md$/, ''),
  );
  const queries = makeQueries(names, Number(values.queries)).map((q) => q.text);
  const messages = makeMessages(names, Number(values.compiles)).map((m) => m.text);
  const result = await benchDaemon({ cli: memCli(), root, queries, messages, now: SYNTH_NOW.toISOString() });
  console.log(JSON.stringify(result, null, 2));
}
