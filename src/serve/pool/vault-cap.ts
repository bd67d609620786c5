// How many vaults a pool keeps loaded at once (`mem serve --vaults --max-vaults`), and which
// ones go to make room for another.
import os from 'node:os';
import type { Vault } from '../../internal.js';

/**
 * What `mem serve --vaults` plans for each loaded vault: a vault of 1,000 notes costs some 2 MiB of
 * RSS after its first search (bench/results/pool.json), a month of daily notes about 1; larger
 * ones more, and each more as its searches fill its caches (some 7.5 MiB of heap once a
 * 1,000-note vault's searches have read every note; the decoded notes of all vaults together stay
 * within --decoded-notes-mib), hence the margin.
 */
export const MIB_PER_VAULT = 8;

/**
 * The default of `--max-vaults`: as many vaults as fit in half the memory this process may use
 * (the machine's, or less when a cgroup limits it) at MIB_PER_VAULT each, and at least 16.
 */
export function defaultMaxVaults(
  total: number = os.totalmem(),
  constrained: number = process.constrainedMemory?.() ?? 0,
): number {
  const bytes = constrained > 0 && constrained < total ? constrained : total;
  return Math.max(16, Math.floor(bytes / 2 / (MIB_PER_VAULT * 1024 * 1024)));
}

/**
 * The `count` candidates used least recently (lowest `turn` first): what a pool at its limit
 * unloads. More than one when loads went over the limit while every vault was busy.
 */
export function leastRecentlyUsed<T extends { turn: number }>(candidates: T[], count: number): T[] {
  return [...candidates].sort((a, b) => a.turn - b.turn).slice(0, Math.max(0, count));
}

/**
 * A vault reflecting now, or due to within the idle time, stays loaded: unloading would abandon
 * the run. One due later (a daily run tomorrow) is unloaded; it runs while loaded again.
 */
export function reflectsSoon(vault: Vault, now: number, idleMs: number): boolean {
  const status = vault.reflectStatus();
  const next = status.nextRun ? Date.parse(status.nextRun.at) : Number.POSITIVE_INFINITY;
  return status.running || next - now <= idleMs;
}
