import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { openFromCli, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { type OptionRule, parseNow, refuseConflicts } from '../parse-options.js';
import { reportCommit } from './note.js';

interface ForgetCliOptions {
  reason?: string;
  hard?: boolean;
  stale?: boolean;
  dryRun?: boolean;
  now?: string;
  json?: boolean;
}

/** `mem forget --stale`: what moved to archive/ and which insights were lowered. */
async function forgetStale(options: ForgetCliOptions, command: Command, io: CliIO): Promise<void> {
  const vault = await openFromCli(command, io);
  const result = await vault.forgetStale({ dryRun: options.dryRun, now: parseNow(options.now) });
  if (options.json) {
    printJson(io, result);
    return;
  }
  const would = result.dryRun ? 'would move ' : '';
  for (const a of result.archived) io.stdout(`${would}${a.path} -> ${a.to} (covered by ${a.coveredBy})\n`);
  for (const l of result.lowered)
    io.stdout(`${result.dryRun ? 'would lower' : 'lowered'} ${l.path}: importance ${l.from} -> ${l.to}\n`);
  if (result.archived.length === 0 && result.lowered.length === 0) io.stdout('nothing stale\n');
  if (result.dryRun) io.stdout('dry run: nothing was written\n');
  else if (result.paths.length > 0) reportCommit(io, result);
}

/** Which options each mode of `mem forget` takes: any other given is refused, never ignored. */
const FORGET_RULES: OptionRule[] = [
  {
    flag: '--reason',
    conflicts: ['--hard', '--stale'],
    because: 'only archiving writes a reason; a hard delete and --stale write none',
  },
  { flag: '--hard', conflicts: ['--stale'], because: '--stale archives; it never deletes' },
  { flag: '--stale', conflicts: ['[note]'], because: '--stale finds the notes itself; it takes no note' },
  {
    flag: '--dry-run',
    needs: ['--stale'],
    because: 'only --stale can list what it would do; forget <note> and --hard would act at once',
  },
  { flag: '--now', needs: ['--stale'], because: "it sets --stale's moment" },
];

/** `mem forget`: archive a note (or delete it with --hard), or archive what went stale. */
export function forgetCommand(program: Command, io: CliIO): void {
  const command = program
    .command('forget')
    .description('move a note to archive/ with status: archived (links follow it; recall leaves it out)')
    .argument('[note]', 'vault path (with or without .md) or link text')
    .option('--reason <text>', 'why, written as archived_reason')
    .option('--hard', 'delete the file instead (needs git with auto-commit; mem undo brings it back)')
    .option(
      '--stale',
      'archive daily episodes older than forget.staleAfterDays that a rollup covers and nothing links to, and lower insights whose sources all were archived (one commit; mem undo reverts it)',
    )
    .option('--dry-run', 'with --stale: list what would move; write nothing (refused without --stale)')
    .option('--now <iso>', "with --stale: the run's moment (default: now)")
    .option('--json', 'machine-readable output')
    .action(async (ref: string | undefined, options: ForgetCliOptions, command: Command) => {
      if (options.stale) {
        await forgetStale(options, command, io);
        return;
      }
      if (ref === undefined) throw new MemError('USAGE', 'name a note to forget, or use --stale');
      const vault = await openFromCli(command, io);
      const result = await vault.forget(ref, { reason: options.reason, hard: options.hard });
      if (options.json) printJson(io, result);
      else if (result.archivedAt) io.stdout(`${result.path} -> ${result.archivedAt}\n`);
      else io.stdout(`deleted ${result.path}; mem undo brings it back\n`);
      reportCommit(io, result);
    });
  refuseConflicts(command, FORGET_RULES);
}
