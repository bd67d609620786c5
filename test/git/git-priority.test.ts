import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, lowerGitPriority } from '../../src/git/run-git.js';

const ownNiceness = Number(execFileSync('nice', { encoding: 'utf8' }).trim());

describe('the priority of mem git processes', () => {
  const path = process.env['PATH'];
  afterAll(() => {
    process.env['PATH'] = path;
  });

  it.skipIf(process.platform === 'win32')(
    'runs git, and what git starts, the asked steps below the process that runs it',
    async () => {
      // A `git` first on PATH that prints the niceness it runs at, as a git subprocess would inherit.
      const bin = await mkdtemp(join(tmpdir(), 'mem-git-nice-'));
      await writeFile(join(bin, 'git'), '#!/bin/sh\nnice\n');
      await chmod(join(bin, 'git'), 0o755);
      process.env['PATH'] = `${bin}:${path}`;
      expect(Number((await git(bin, ['status'])).trim())).toBe(ownNiceness);
      expect(lowerGitPriority(7)).toBe(true);
      expect(Number((await git(bin, ['status'])).trim())).toBe(Math.min(19, ownNiceness + 7));
    },
  );
});
