import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { summarize } from './stats.mjs';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
// Long enough for a 100k-note vault's first open (the scale benchmark starts one too).
const START_TIMEOUT_MS = 600_000;

/**
 * Starts `mem serve --port 0` on the vault; resolves with the child, its URL and the wall time it
 * took to listen. `cli` is the `mem` script to run (default: the built one); `extraArgs` follow
 * `serve` (`--workers 1`).
 */
export function startServer(root, cli = CLI, extraArgs = []) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, '--vault', root, 'serve', '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mem serve did not start in ${START_TIMEOUT_MS} ms: ${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /serving .* on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, startMs: performance.now() - started });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mem serve exited with ${code}: ${stderr}`));
    });
  });
}

export function stopServer(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.kill('SIGTERM');
  });
}

/** POSTs JSON as a client must (`mem serve` refuses other content types) and throws on a refusal. */
export async function post(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** `count` requests, `concurrency` at a time; latency of each, and requests per second overall. */
async function load(url, bodies, concurrency) {
  const times = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const t = performance.now();
      await post(url, body);
      times.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { ...summarize(times), perSecond: Math.round(bodies.length / seconds) };
}

/** `/compile` and `/memory/search` latency of `mem serve` over loopback. */
export async function benchHttp(root, { messages, queries, now, requests, concurrency, log }) {
  const present = await access(CLI).then(
    () => true,
    () => false,
  );
  if (!present) {
    log('  http: skipped (dist/cli/main.js is missing)');
    return { skipped: 'no CLI build' };
  }
  const startedAt = performance.now();
  const { child, url } = await startServer(root);
  const startMs = performance.now() - startedAt;
  try {
    const pick = (list, n) => Array.from({ length: n }, (_, i) => list[i % list.length].text);
    const compileBodies = pick(messages, requests).map((message) => ({ message, budget: 2000, now }));
    const searchBodies = pick(queries, requests).map((query) => ({ query, limit: 8 }));
    await load(`${url}/compile`, compileBodies.slice(0, 20), concurrency);
    await load(`${url}/memory/search`, searchBodies.slice(0, 20), concurrency);
    const compile = await load(`${url}/compile`, compileBodies, concurrency);
    const search = await load(`${url}/memory/search`, searchBodies, concurrency);
    // One at a time: the latency of a request that does not queue behind others.
    const serial = Math.min(100, requests);
    const compileSerial = await load(`${url}/compile`, compileBodies.slice(0, serial), 1);
    const searchSerial = await load(`${url}/memory/search`, searchBodies.slice(0, serial), 1);
    log(
      `  http (start ${Math.round(startMs)} ms), concurrency ${concurrency}: /compile p50 ${compile.p50} ms p95 ${compile.p95} ms; /memory/search p50 ${search.p50} ms p95 ${search.p95} ms`,
    );
    log(
      `  http, one at a time: /compile p50 ${compileSerial.p50} ms p95 ${compileSerial.p95} ms; /memory/search p50 ${searchSerial.p50} ms p95 ${searchSerial.p95} ms`,
    );
    return {
      startMs: Math.round(startMs),
      concurrency,
      compile,
      memorySearch: search,
      serial: { compile: compileSerial, memorySearch: searchSerial },
    };
  } finally {
    await stopServer(child);
  }
}
