import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { GIT_ENV } from './git.js';
import { REPO_ROOT } from './make-vault.js';

/**
 * Starts the built `mem serve` on a free loopback port; resolves once its start line names the URL.
 * `args` replace `--vault root` (e.g. `['--vaults', dir]`).
 */
export async function startServe(
  root: string,
  args: string[] = ['--vault', root],
  /** More environment for the server (e.g. MEM_TEST_CRASH_AFTER) */
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/cli/main.js'), 'serve', '--port', '0', ...args],
    {
      env: { ...GIT_ENV, ...env },
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = / on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`mem serve exited ${code}: ${out}`)));
  });
  return { child, url, output: () => out };
}

/** Resolves with the exit code once the process has exited (null when a signal ended it). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}
