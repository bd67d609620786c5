// The git processes one chat add costs a vault that syncs after each group commit, as `mem serve
// --vaults --remote` runs it (issue 35: on the cluster benchmark's servers, git's processes took as
// much CPU as the requests): per round, one `addExchange`, its group commit, and a sync that pushes
// it to a bare remote on disk. git runs through a shim first on PATH that logs each subcommand.
//   node bench/git-per-add.mjs [<dist> …]   (default: this tree's dist/; several builds side by side)
// Prints JSON: per build, the median git processes of a round's add, commit and sync, and which
// subcommands a round ran.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gitCountingShim } from './cluster-harness.mjs';

const ROUNDS = 5;

/** One build: a vault pushed to a bare remote, then ROUNDS of add, commit, sync, counted. */
async function measure(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'memvault-git-per-add-'));
  try {
    const remote = join(dir, 'remote.git');
    const root = join(dir, 'vault');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const cli = resolve(dist, 'cli/main.js');
    execFileSync(process.execPath, [cli, 'init', root], { stdio: 'ignore' });
    execFileSync('git', ['remote', 'add', 'origin', remote], { cwd: root });
    execFileSync(process.execPath, [cli, 'sync'], { cwd: root, stdio: 'ignore' });
    const log = join(dir, 'git.log');
    writeFileSync(log, '');
    const path = process.env['PATH'];
    process.env['PATH'] = `${await gitCountingShim(dir, log, 'MEM_BENCH_PHASE')}:${path}`;
    const { openVault } = await import(resolve(dist, 'index.js'));
    const vault = await openVault({ path: root });
    const writer = await vault.startExchanges();
    const phase = (name) => {
      process.env['MEM_BENCH_PHASE'] = name;
    };
    for (let round = 0; round < ROUNDS; round++) {
      phase(`add${round}`);
      await vault.addExchange({ user: `a question ${round}`, assistant: `an answer ${round}` });
      phase(`commit${round}`);
      await writer.commitNow();
      phase(`sync${round}`);
      await vault.sync({});
    }
    phase('close');
    await vault.close();
    process.env['PATH'] = path;
    return summarize(readFileSync(log, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median processes per phase over the rounds (the first round, which sets things up, left out). */
function summarize(text) {
  const lines = text.split('\n').filter(Boolean);
  const count = (prefix, round) => lines.filter((line) => line.startsWith(`${prefix}${round} `)).length;
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rounds = Array.from({ length: ROUNDS - 1 }, (_, i) => i + 1);
  const per = (prefix) => median(rounds.map((round) => count(prefix, round)));
  const of = (prefix) =>
    lines.filter((line) => line.startsWith(`${prefix}${ROUNDS - 1} `)).map((line) => line.split(' ')[1]);
  return {
    add: per('add'),
    commit: per('commit'),
    sync: per('sync'),
    perRound: per('add') + per('commit') + per('sync'),
    lastCommit: of('commit'),
    lastSync: of('sync'),
  };
}

const dists = process.argv.slice(2);
const results = {};
for (const dist of dists.length > 0 ? dists : ['dist']) results[dist] = await measure(dist);
process.stdout.write(`${JSON.stringify({ rounds: ROUNDS, results }, null, 2)}\n`);
