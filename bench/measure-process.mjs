// Runs one command as its own process and measures it: wall time, CPU time (user + system) and,
// for Node programs, peak RSS. Node programs are measured from inside by bench/usage-hook.mjs;
// a native program (rg) by bash's `times`, which gives its children's CPU time to the millisecond.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const HOOK = new URL('./usage-hook.mjs', import.meta.url).href;

/**
 * @typedef {{ wallMs: number, cpuMs: number, peakRssBytes: number | null, code: number | null, stdout: string }} Measured
 */

function collect(child, okCodes) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (okCodes.includes(code)) resolve({ code, stdout });
      else reject(new Error(`${child.spawnargs.join(' ')} exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/**
 * `node <script> ...args` in a fresh process.
 * @param {string} script
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, okCodes?: (number | null)[] }} [options]
 * @returns {Promise<Measured>}
 */
export async function measureNode(script, args, options = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'mem-usage-'));
  const file = join(dir, 'usage.json');
  try {
    const start = performance.now();
    const child = spawn(process.execPath, ['--import', HOOK, script, ...args], {
      env: { ...(options.env ?? process.env), MEM_BENCH_USAGE: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { code, stdout } = await collect(child, options.okCodes ?? [0]);
    const wallMs = performance.now() - start;
    const usage = JSON.parse(await readFile(file, 'utf8'));
    return { wallMs, cpuMs: usage.cpuMs, peakRssBytes: usage.peakRssBytes, code, stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Parses bash's `times`: the second line is the children's user and system time. */
export function parseTimes(text) {
  const line = text.trim().split('\n').at(-1) ?? '';
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(line);
  if (!m) throw new Error(`cannot read bash times output: ${JSON.stringify(text)}`);
  const seconds = Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
  return seconds * 1000;
}

/**
 * A native program; its output is thrown away (only its cost is wanted).
 * @param {string} command
 * @param {string[]} args
 * @param {{ okCodes?: (number | null)[] }} [options]
 * @returns {Promise<Measured>}
 */
export async function measureNative(command, args, options = {}) {
  const script = '"$0" "$@" >/dev/null; code=$?; times; exit $code';
  const start = performance.now();
  const child = spawn('bash', ['-c', script, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { code, stdout } = await collect(child, options.okCodes ?? [0]);
  const wallMs = performance.now() - start;
  return { wallMs, cpuMs: parseTimes(stdout), peakRssBytes: null, code, stdout: '' };
}

let clockTicks = 0;
/** CPU time (ms) a running process has used so far, from /proc (Linux). */
export async function procCpuMs(pid) {
  if (!clockTicks) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** Resident and peak memory (bytes) of a running process, from /proc (Linux). */
export async function procRss(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rssBytes: kib('VmRSS') * 1024, peakRssBytes: kib('VmHWM') * 1024 };
}
