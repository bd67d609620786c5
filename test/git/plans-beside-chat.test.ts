import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIMBING_NOTES } from '../fixtures/reflect/climbing-vault.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { memProcess } from '../helpers/run-cli.js';
import { exited, startServe } from '../helpers/serve-process.js';

// Issue 31, by combination: a multi-step command runs while `mem serve` takes a chat's adds and
// group-commits them, and the command is killed at a step (MEM_TEST_CRASH_AFTER), then run again.
// After the server stops: a run that was not killed is ONE commit holding every path a clean run
// commits (a chat commit in its gaps neither splits it nor carries its paths); a killed run's part
// may be committed on its own by the next writer once its owner is dead, then the re-run's rest;
// every add the server answered is in HEAD, nothing is left uncommitted, no plan record is left.
// Needs `npm run build`.

const SLOW = Boolean(process.env['MEM_SLOW']);
const NOW = '2026-11-30T10:00:00+08:00';
const CHAT_AT = '2026-11-30T09:00:00+08:00';
const CHAT_DAY = 'episodes/daily/2026-11-30.md';
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await cleanupVaults();
});

const day = (date: string, text: string) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n- 09:00 **Rain:** ${text} ^e1\n`;

interface Scenario {
  name: string;
  files: Record<string, string>;
  config?: object;
  args: string[];
  /** The commit message the plan ends in */
  subject: RegExp;
  /** Crash points to kill at (the default tier samples them) */
  kills: number[];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'mv',
    files: CLIMBING_NOTES,
    args: ['mv', 'profile/people/Mei.md', 'profile/friends/Mei Lin.md'],
    subject: /^mem: mv profile\/people\/Mei\.md -> profile\/friends\/Mei Lin\.md$/,
    kills: SLOW ? [1, 2, 3, 4, 5, 6, 7, 8] : [2, 5],
  },
  {
    name: 'forget --stale (each move takes the lock on its own)',
    files: {
      'profile/user.md': '# Rain\n',
      'episodes/daily/2026-01-05.md': day('2026-01-05', 'Tea with [[Mei]].'),
      'episodes/daily/2026-01-07.md': day('2026-01-07', 'A walk.'),
      'episodes/weekly/2026-W02.md':
        '---\ntype: rollup\nperiod: 2026-W02\n---\n# Week 2\n\n- [[2026-01-05]], [[2026-01-07]].\n',
      'profile/people/Mei.md': '# Mei\n',
    },
    config: { timezone: 'Asia/Shanghai', forget: { staleAfterDays: 90, unrecalledDays: 30 } },
    args: ['forget', '--stale', '--now', NOW],
    subject: /^mem: forget --stale: /,
    kills: SLOW ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : [3, 7],
  },
  {
    name: 'ingest (each day takes the lock on its own)',
    files: {
      'profile/user.md': '# Rain\n',
      'chat.jsonl': [
        ['user', 'We start packing today.', '2026-11-27T09:00:00+08:00'],
        ['user', 'Half the books are packed.', '2026-11-28T20:00:00+08:00'],
        ['user', 'Mei helped with the kitchen.', '2026-11-29T18:00:00+08:00'],
      ]
        .map(([role, content, timestamp]) => JSON.stringify({ role, content, timestamp }))
        .join('\n'),
    },
    config: { timezone: 'Asia/Shanghai' },
    args: ['ingest', 'chat.jsonl'],
    subject: /^mem: ingest chat\.jsonl/,
    kills: SLOW ? [1, 2, 3, 4, 5, 6] : [2, 4],
  },
];

/** A chat client adding one entry after another until `stop` is called; the numbers answered. */
function chat(url: string): { stop: () => Promise<number[]> } {
  const answered: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const response = await fetch(`${url}/memory/add`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_text: `chat line ${n}`, commit: 'user', at: CHAT_AT }),
      }).catch(() => undefined);
      if (response?.ok) answered.push(n);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return answered;
    },
  };
}

async function vaultFor(scenario: Scenario): Promise<string> {
  const root = await makeVault(scenario.files, { config: scenario.config ?? { timezone: 'Asia/Shanghai' } });
  await gitInit(root);
  return root;
}

describe.each(SCENARIOS)('$name beside a chatting server', (scenario) => {
  it(
    `killed at steps ${scenario.kills.join(', ')} and run again: a live plan is never split, the plan's commits hold what a clean run's does, every chat add is in HEAD`,
    async () => {
      // What a clean run with nothing beside it commits.
      const clean = await vaultFor(scenario);
      const alone = await memProcess(['--vault', clean, ...scenario.args], { cwd: clean });
      expect(alone.code).toBe(0);
      const planPaths = (await git(clean, 'show', '--name-only', '--format=', 'HEAD'))
        .trim()
        .split('\n')
        .sort();

      const problems: string[] = [];
      for (const step of scenario.kills) {
        const root = await vaultFor(scenario);
        const server = await startServe(root);
        children.push(server.child);
        const client = chat(server.url);
        const killed = await memProcess(['--vault', root, ...scenario.args], {
          cwd: root,
          env: { MEM_TEST_CRASH_AFTER: String(step) },
        });
        const again = await memProcess(['--vault', root, ...scenario.args], { cwd: root });
        if (again.code !== 0) problems.push(`step ${step}: the re-run failed: ${again.stderr}`);
        const answered = await client.stop();
        server.child.kill('SIGTERM');
        expect(await exited(server.child)).toBe(0);

        // A run that was not killed is one commit. A killed run's record has no live owner: the next
        // writer (here, likely the chat's group commit) commits its part on its own, and the re-run
        // the rest; so at most two plan commits, together holding what a clean run commits. No
        // other commit (a chat's) holds a path of the plan, however they interleave.
        const log = (await git(root, 'log', '--format=%H %s'))
          .trim()
          .split('\n')
          .map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }));
        const planCommits = log.filter((c) => scenario.subject.test(c.subject));
        const ranThrough = killed.code === 0;
        if (planCommits.length < 1 || planCommits.length > (ranThrough ? 1 : 2))
          problems.push(
            `step ${step} (${ranThrough ? 'ran through' : 'killed'}): ${planCommits.length} plan commits`,
          );
        const pathsOf = async (sha: string) =>
          (await git(root, 'show', '--name-only', '--format=', sha)).trim().split('\n').filter(Boolean);
        const inPlan = new Set<string>();
        for (const c of planCommits) for (const p of await pathsOf(c.sha)) inPlan.add(p);
        if (JSON.stringify([...inPlan].sort()) !== JSON.stringify(planPaths))
          problems.push(
            `step ${step}: the plan's commits hold ${[...inPlan].sort().join(', ')}; a clean run's ${planPaths.join(', ')}`,
          );
        for (const c of log.filter((c) => !scenario.subject.test(c.subject) && c.subject !== 'init')) {
          const foreign = (await pathsOf(c.sha)).filter((p) => planPaths.includes(p));
          if (foreign.length > 0)
            problems.push(`step ${step}: "${c.subject}" holds the plan's ${foreign.join(', ')}`);
        }
        const head = await git(root, 'show', `HEAD:${CHAT_DAY}`).catch(() => '');
        const missing = answered.filter((n) => !head.includes(`chat line ${n} `));
        if (missing.length > 0)
          problems.push(`step ${step}: ${missing.length} of ${answered.length} chat adds not in HEAD`);
        const status = await git(root, 'status', '--porcelain');
        if (status) problems.push(`step ${step}: left uncommitted: ${status.trim()}`);
        const records = await readdir(join(root, '.mem/plans')).catch(() => []);
        if (records.length > 0) problems.push(`step ${step}: plan records left: ${records.join(', ')}`);
      }
      await reportReliability({
        class: 'multi-step command killed beside a chatting server, run again',
        command: scenario.args[0] === 'forget' ? 'forget --stale' : scenario.args[0]!,
        kills: scenario.kills.length,
        problems: problems.length,
      });
      expect(problems).toEqual([]);
    },
    SLOW ? 1_200_000 : 300_000,
  );
});
