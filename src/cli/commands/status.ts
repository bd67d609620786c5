import type { Command } from 'commander';
import { findVault } from '../../core/find-vault.js';
import { readServeRecord, type ServeKind } from '../../core/serve-record.js';
import type { EmbeddingsStatus, ReflectStatus } from '../../internal.js';
import { httpJson } from '../ask-server.js';
import { type GlobalOptions, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';

/** What a running server's `/health` says: notes in memory and its background reflection. */
interface Health {
  notes?: number;
  reflect?: ReflectStatus;
}

/** A second at most: a server that does not answer is reported as such, status never waits on it. */
const HEALTH_TIMEOUT_MS = 1000;

async function askHealth(root: string, kind: ServeKind, io: CliIO): Promise<Health | undefined> {
  const record = await readServeRecord(root, kind);
  if (!record) return undefined;
  // The daemon's record holds its token; a `mem serve` with one is sent MEM_TOKEN, as recall does.
  const token = record.token ?? io.env['MEM_TOKEN'];
  const answer = (await httpJson(`${record.url}/health`, undefined, token, HEALTH_TIMEOUT_MS, 'GET').catch(
    () => undefined,
  )) as Health | undefined;
  return answer && typeof answer === 'object' ? answer : undefined;
}

function reflectLine(reflect: ReflectStatus | undefined): string | undefined {
  if (!reflect?.enabled) return undefined;
  const last = reflect.lastRun;
  const lastText = last
    ? `last ${last.finishedAt}${last.error ? ` failed: ${last.error}` : `, ${last.applied} applied`}`
    : 'no run yet';
  return `background reflect ${reflect.running ? 'running' : 'on'}: ${lastText}; ${reflect.newEntries} new entries${reflect.nextRun ? `; next ${reflect.nextRun.at} (${reflect.nextRun.trigger})` : ''}`;
}

/** Whether recall fuses meaning in, with what, and whether the notes' vectors are cached yet. */
function embeddingsLine(e: EmbeddingsStatus | undefined): string | undefined {
  if (!e) return undefined;
  const what = `${e.provider} ${e.model}${e.baseURL ? ` at ${e.baseURL}` : ''}`;
  const cache = e.cache
    ? `${e.cache.vectors} vectors cached (${e.cache.dims} dimensions, ${e.cache.file})`
    : 'no vectors cached yet';
  if (!e.enabled)
    return `embeddings  off: recall ranks by words${e.cache ? `; ${cache} from when they were on` : ''} (mem config set embeddings.enabled true)`;
  return `embeddings  on: ${what}; ${e.cache ? cache : `${cache} (the first recall or compile embeds the notes)`}`;
}

export function statusCommand(program: Command, io: CliIO): void {
  program
    .command('status')
    .description(
      'the vault at a glance: notes, index cache, a running server or daemon, git, reflection (never starts anything)',
    )
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const root = await findVault((command.optsWithGlobals() as GlobalOptions).vault, io.cwd, io.env);
      const { embeddingsStatus, loadConfig, vaultStatus } = await library();
      const base = await vaultStatus(root);
      const [serverHealth, daemonHealth, embeddings] = await Promise.all([
        base.server ? askHealth(root, 'serve', io) : undefined,
        base.daemon ? askHealth(root, 'daemon', io) : undefined,
        // A config mem cannot read is vaultStatus's to report; the embeddings line is then left out.
        loadConfig(root)
          .then((config) => embeddingsStatus(root, config))
          .catch(() => undefined),
      ]);
      const status = {
        ...base,
        ...(embeddings ? { embeddings } : {}),
        ...(base.server ? { server: { ...base.server, health: serverHealth ?? null } } : {}),
        ...(base.daemon ? { daemon: { ...base.daemon, health: daemonHealth ?? null } } : {}),
      };
      if (options.json) return printJson(io, status);
      const answered = (health: Health | undefined) =>
        health ? (health.notes !== undefined ? `, ${health.notes} notes in memory` : '') : ', not answering';
      const lines = [
        `vault       ${status.root}${status.configured ? '' : ' (no mem.config.json: not initialised)'}`,
        `notes       ${status.notes}`,
        `index       ${status.index.state}${status.index.notes !== undefined ? `, ${status.index.notes} notes indexed` : ''}${status.index.reason ? ` (${status.index.reason})` : ''}`,
        `server      ${status.server ? `mem serve at ${status.server.url} (pid ${status.server.pid}${answered(serverHealth)})` : 'none'}`,
        `daemon      ${status.daemon ? `running at ${status.daemon.url} (pid ${status.daemon.pid}${answered(daemonHealth)})` : 'not running'}`,
      ];
      const background = reflectLine(serverHealth?.reflect) ?? reflectLine(daemonHealth?.reflect);
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
      if (background) lines.push(`            ${background}`);
      const embeddingsText = embeddingsLine(status.embeddings);
      if (embeddingsText) lines.push(embeddingsText);
      const where = (folder: string, format: string) =>
        `${folder === '' ? 'the vault root' : `${folder}/`} as ${format}`;
      const o = status.days.obsidian;
      lines.push(
        `days        ${where(status.days.folder, status.days.format)}${o ? `; Obsidian's ${o.source === 'periodic-notes' ? 'Periodic Notes' : 'Daily notes'} put them in ${where(o.folder, o.format)} (layout.daily in mem.config.json differs)` : ''}`,
      );
      for (const c of status.conflicts)
        lines.push(`conflict    ${c} (mem sync kept the other version here; merge it by hand)`);
      if (status.lastError) lines.push(`last error  ${status.lastError}`);
      for (const aside of status.setAside) lines.push(`set aside   ${aside} (mem did not trust this record)`);
      const proposed = status.proposedConfig;
      if (proposed)
        lines.push(
          `waiting     the remote's ${proposed.from.slice(0, 7)} proposes ${Object.entries(proposed.values)
            .map(([key, value]) => `${key} = ${value === null ? '(unset)' : JSON.stringify(value)}`)
            .join(', ')}; not applied on this device until \`mem config accept\` (or --refuse)`,
        );
      io.stdout(`${lines.join('\n')}\n`);
    });
}
