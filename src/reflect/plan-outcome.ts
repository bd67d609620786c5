// What a reflect run (model or offline) reports of its write plan: a dry run's preview, or what was
// written and committed, with the operations a file's failed write skipped counted as rejected.
import type { WriteCommit } from '../git/commit-write.js';
import type { WritePlanResult } from '../write/write-plan.js';
import type { PlannedFile } from './apply-operations.js';
import type { Rejected } from './validate-operations.js';

type ReflectPlanRun = WritePlanResult<
  { files: PlannedFile[]; skipped: Rejected[] },
  { written: string[]; skipped: Rejected[] }
>;

export interface PlanOutcome extends WriteCommit {
  applied: number;
  rejected: Rejected[];
  files: string[];
  preview?: PlannedFile[];
}

export function planOutcome(run: ReflectPlanRun, accepted: number, rejected: Rejected[]): PlanOutcome {
  if (run.dryRun) {
    const { files, skipped } = run.preview;
    return {
      applied: accepted - skipped.length,
      rejected: [...rejected, ...skipped],
      files: files.map((f) => f.path),
      preview: files,
      committed: false,
      code: 'dry-run',
      reason: 'dry run',
    };
  }
  const { written, skipped } = run.applied;
  return {
    applied: accepted - skipped.length,
    rejected: [...rejected, ...skipped],
    files: written,
    ...run.commit,
  };
}
