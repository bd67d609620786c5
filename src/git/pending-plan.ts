// The record of a write plan whose commit has not been made yet: which vault paths it writes and the
// commit that should hold them. Written before the plan's first write and removed once its commit is
// made, so a process killed in between leaves it behind, and the next run (the same command run
// again, or any mem write) commits every path of the plan, not only the ones it writes itself.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularText } from '../core/regular-file.js';
import { writeAtomic } from '../vault/write-note.js';

export interface PendingPlan {
  /** What the plan is, so a re-run of the same command knows it as its own: `mv a.md -> b.md` */
  key: string;
  /** The commit message the plan's commit gets when another run finishes it */
  message: string;
  /** Vault paths the plan writes or deletes */
  paths: string[];
}

const FILE = 'pending-commit.json';

const planFile = (root: string) => join(cacheDir(root), FILE);

/**
 * The plan a killed run left uncommitted, or undefined (an unreadable record counts as none). Read
 * as every `.mem/` file is, so a FIFO there cannot hold up the commit that every write makes.
 */
export async function readPendingPlan(root: string): Promise<PendingPlan | undefined> {
  let text: string;
  try {
    text = await readRegularText(planFile(root));
  } catch {
    return undefined;
  }
  try {
    const plan = JSON.parse(text) as Partial<PendingPlan>;
    if (typeof plan.key !== 'string' || typeof plan.message !== 'string' || !Array.isArray(plan.paths))
      return undefined;
    return { key: plan.key, message: plan.message, paths: plan.paths.filter((p) => typeof p === 'string') };
  } catch {
    return undefined;
  }
}

/** Records the plan (atomically: a kill leaves the old record or the new one). */
export async function writePendingPlan(root: string, plan: PendingPlan): Promise<void> {
  await ensureCacheDir(root);
  await writeAtomic(planFile(root), `${JSON.stringify(plan)}\n`, { label: `.mem/${FILE}` });
}

export async function clearPendingPlan(root: string): Promise<void> {
  await unlink(planFile(root)).catch(() => undefined);
}
