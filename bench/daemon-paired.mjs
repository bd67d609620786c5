// Paired: `mem recall` opening the vault itself (--no-server) against `mem recall` answered by the
// vault's daemon (command CPU + the daemon's CPU for the request), query by query, the order
// alternating. `node bench/daemon-paired.mjs <vault> [pairs]` on a seeded vault with its cache built.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measureNode, procCpuMs } from './measure-process.mjs';
import { memCli } from './peers.mjs';
import { makeQueries } from './queries.mjs';
import { median, round } from './stats.mjs';
import { SYNTH_NOW } from './synth-vault.mjs';

const root = process.argv[2];
const pairs = Number(process.argv[3] ?? 9);
if (!root) throw new Error('usage: node bench/daemon-paired.mjs <vault> [pairs]');
const cli = memCli();
const now = SYNTH_NOW.toISOString();
const names = (await readdir(join(root, 'profile', 'people'))).map((f) => f.replace(/\.md$/, ''));
const queries = makeQueries(names, pairs + 1).map((q) => q.text);
const env = { ...process.env };
delete env['MEM_NO_DAEMON'];
const recall = (q) => ['--vault', root, 'recall', q, '-k', '8', '--now', now, '--json'];
await measureNode(cli, ['--vault', root, 'daemon', 'start'], { env });
const pid = JSON.parse(await readFile(join(root, '.mem', 'daemon.json'), 'utf8')).pid;
const own = [];
const asked = [];
try {
  await measureNode(cli, recall(queries[0] ?? ''), { env });
  for (let i = 1; i <= pairs; i++) {
    const q = queries[i] ?? '';
    const viaDaemon = async () => {
      const before = await procCpuMs(pid);
      const r = await measureNode(cli, recall(q), { env });
      asked.push(r.cpuMs + (await procCpuMs(pid)) - before);
    };
    const local = async () => {
      own.push((await measureNode(cli, ['--no-server', ...recall(q)], { env })).cpuMs);
    };
    for (const run of i % 2 ? [viaDaemon, local] : [local, viaDaemon]) await run();
  }
} finally {
  await measureNode(cli, ['--vault', root, 'daemon', 'stop'], { env });
}
const ratio = median(asked.map((a, i) => a / (own[i] ?? Number.NaN)));
console.log(
  JSON.stringify({
    pairs,
    opensItselfCpuMs: round(median(own)),
    daemonAnsweredCpuMs: round(median(asked)),
    pairedRatio: round(ratio, 3),
  }),
);
