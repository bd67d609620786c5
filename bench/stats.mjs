import { performance } from 'node:perf_hooks';

/** Nearest-rank percentile of `values` (p in 0..100); NaN for an empty list. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => percentile(values, 50);

/** p50, p95 and max of a list of milliseconds, rounded to 0.01 ms. */
export function summarize(values) {
  return {
    n: values.length,
    p50: round(percentile(values, 50)),
    p95: round(percentile(values, 95)),
    max: round(Math.max(...values)),
  };
}

export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Milliseconds `fn` took (awaited), and what it returned. */
export async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Runs `fn` `times` times and returns every duration in ms. */
export async function repeat(times, fn) {
  const out = [];
  for (let i = 0; i < times; i++) out.push((await timed(() => fn(i))).ms);
  return out;
}

export const mib = (bytes) => round(bytes / 1024 / 1024, 1);
