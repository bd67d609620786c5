// `npm run bench -- --only cluster`: three mem serve --vaults behind HAProxy, a git daemon with
// every vault's remote, all on loopback (cluster-harness.mjs; installs nothing), and the scenario
// of cluster-scenario.mjs at full size: at least 100 users and 2,000 adds. Writes
// bench/results/cluster.json (cluster.json.tmp with --quick).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { haproxyVersion, startCluster } from './cluster-harness.mjs';
import { runClusterScenario } from './cluster-scenario.mjs';
import { formatJson } from './format-json.mjs';

const RESULTS = new URL('./results/', import.meta.url);

/** @param {{ quick?: boolean, log?: (line: string) => void }} options */
export async function benchCluster({ quick = false, log = () => undefined } = {}) {
  const version = await haproxyVersion();
  if (!version)
    throw new Error('the cluster benchmark needs HAProxy on PATH (Debian: apt-get install -y haproxy)');
  const git = (await promisify(execFile)('git', ['--version'])).stdout.trim();
  const dir = await mkdtemp(join(tmpdir(), 'mem-cluster-'));
  const size = quick
    ? { users: 12, turns: 4, concurrency: 4, moves: 2, ackUsers: 2 }
    : { users: 120, turns: 18, concurrency: 8, moves: 8, ackUsers: 12 };
  try {
    log(`cluster: HAProxy ${version}, 3 servers, ${size.users} users × ${size.turns} turns`);
    const cluster = await startCluster({ dir, servers: 3 });
    let result;
    try {
      result = await runClusterScenario(cluster, { ...size, log });
    } catch (error) {
      log(cluster.output());
      await cluster.stop();
      throw error;
    }
    const out = {
      ranAt: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
      router: { name: 'HAProxy', version, config: 'deploy/haproxy.cfg.template' },
      gitServer: `git daemon (${git})`,
      servers: cluster.servers.length,
      ...result,
    };
    const file = new URL(quick ? 'cluster.json.tmp' : 'cluster.json', RESULTS);
    await writeFile(file, `${formatJson(out)}\n`);
    log(`written: ${fileURLToPath(file)}`);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
