import type { Command } from 'commander';
import { findVault } from '../../core/find-vault.js';
import { type GlobalOptions, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';

export function statusCommand(program: Command, io: CliIO): void {
  program
    .command('status')
    .description(
      'the vault at a glance: notes, index cache, a running server or daemon, git, reflection (never starts anything)',
    )
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const root = await findVault((command.optsWithGlobals() as GlobalOptions).vault, io.cwd, io.env);
      const { vaultStatus } = await library();
      const status = await vaultStatus(root);
      if (options.json) return printJson(io, status);
      const lines = [
        `vault       ${status.root}${status.configured ? '' : ' (no mem.config.json: not initialised)'}`,
        `notes       ${status.notes}`,
        `index       ${status.index.state}${status.index.notes !== undefined ? `, ${status.index.notes} notes indexed` : ''}${status.index.reason ? ` (${status.index.reason})` : ''}`,
        `server      ${status.server ? `mem serve at ${status.server.url} (pid ${status.server.pid})` : 'none'}`,
        `daemon      ${status.daemon ? `running at ${status.daemon.url} (pid ${status.daemon.pid})` : 'not running'}`,
      ];
      const g = status.git;
      lines.push(
        g
          ? `git         ${g.branch}, ${g.clean ? 'clean' : `${g.uncommitted} uncommitted file${g.uncommitted === 1 ? '' : 's'}`}${g.lastCommit ? `; last commit ${g.lastCommit.sha} ${g.lastCommit.date} ${g.lastCommit.subject}` : '; no commits'}`
          : 'git         not a git repository (mem does not commit)',
      );
      const r = status.reflection;
      lines.push(
        `reflection  ${r.lastRun ? `last run ${r.lastRun.date} (${r.lastRun.sha})` : 'never run'}; ${r.pendingDays} day${r.pendingDays === 1 ? '' : 's'} not reflected yet${r.oldestPending ? ` (oldest ${r.oldestPending})` : ''}`,
      );
      if (status.lastError) lines.push(`last error  ${status.lastError}`);
      io.stdout(`${lines.join('\n')}\n`);
    });
}
