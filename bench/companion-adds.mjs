import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { post, startServer, stopServer } from './http-latency.mjs';
import { round, summarize } from './stats.mjs';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** @param {string} url @param {string} path @param {object} body */
async function postTo(url, path, body) {
  return /** @type {Record<string, unknown>} */ (await post(`${url}${path}`, body));
}

/**
 * The companion write path of a real `mem serve` on a git vault: how long from sending
 * `/memory/add` until `/memory/search` finds the entry (read-your-writes: the add answers once
 * the entry is written and indexed), and how long a burst of adds then a SIGTERM take to end
 * with every entry written and committed.
 * @param {{ adds?: number, burst?: number, log: (line: string) => void }} options
 */
export async function benchCompanionAdds({ adds = 50, burst = 200, log }) {
  const root = await mkdtemp(join(tmpdir(), 'memvault-bench-adds-'));
  try {
    await writeFile(join(root, 'mem.config.json'), `${JSON.stringify({ timezone: 'UTC' })}\n`);
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '-A'], { cwd: root });
    execFileSync('git', ['commit', '-qm', 'init'], { cwd: root, env: GIT_ENV });
    process.env['GIT_AUTHOR_NAME'] ??= 'bench';
    process.env['GIT_AUTHOR_EMAIL'] ??= 'bench@example.com';
    process.env['GIT_COMMITTER_NAME'] ??= 'bench';
    process.env['GIT_COMMITTER_EMAIL'] ??= 'bench@example.com';
    let { child, url } = await startServer(root);
    const times = [];
    let missed = 0;
    for (let i = 0; i < adds; i++) {
      const word = `quokka${i}x`;
      const start = performance.now();
      await postTo(url, '/memory/add', { user_text: `the ${word} came by today`, commit: 'user' });
      const found = await postTo(url, '/memory/search', { query: word, limit: 1 });
      const ms = performance.now() - start;
      const results = /** @type {Array<{ memory: string }>} */ (found['results'] ?? []);
      if (results[0]?.memory.includes(word)) times.push(ms);
      else missed++;
    }
    const searchable = summarize(times);
    await stopServer(child);
    ({ child, url } = await startServer(root));
    const sent = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < burst) {
        const n = next++;
        await postTo(url, '/memory/add', { user_text: `burst ${n}`, assistant_text: `noted ${n}` });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const answered = performance.now() - sent;
    const stopping = performance.now();
    await stopServer(child);
    const drain = performance.now() - stopping;
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
    const clean = status === '';
    if (!clean) log(`  companion: git status after the stop:\n${status}`);
    const commits = Number(
      execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: root, encoding: 'utf8' }),
    );
    log(
      `  companion: add → searchable p50 ${searchable.p50} ms, p95 ${searchable.p95} ms (${missed} missed); ${burst} adds answered in ${round(answered)} ms, SIGTERM → exit ${round(drain)} ms, ${commits - 1} commits, ${clean ? 'clean' : 'NOT clean'}`,
    );
    return {
      addToSearchable: { ...searchable, missed },
      burst: {
        adds: burst,
        concurrency: 8,
        answeredMs: round(answered),
        drainMs: round(drain),
        commits: commits - 1,
        clean,
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
