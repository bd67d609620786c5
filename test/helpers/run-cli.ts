import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CliIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { REPO_ROOT } from './make-vault.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process (fast) with its own output buffers. */
export async function mem(
  args: string[],
  options: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv; isTTY?: boolean } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    isTTY: options.isTTY ?? false,
    readStdin: async () => options.stdin ?? '',
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** Runs the built `mem` binary as a real process (needs `npm run build`). */
export function memProcess(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
