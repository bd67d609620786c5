// What opening a vault builds: its folder and config, and the subsystems the Vault facade delegates
// to, wired to one write queue and one live index. The first walk is the opener's to start.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_FILE, loadConfig, type MemConfig } from '../core/config/config.js';
import { findVault } from '../core/find-vault.js';
import { LiveIndex, loadIndex } from '../live/live-index.js';
import { NoteWrites } from '../live/note-writes.js';
import { Reflection } from '../live/reflection.js';
import { SemanticRecall } from '../live/semantic-recall.js';
import { notAVault, WriteQueue } from '../live/write-queue.js';
import type { OpenVaultOptions } from './open-options.js';

export interface VaultParts {
  root: string;
  config: MemConfig;
  initialized: boolean;
  queue: WriteQueue;
  live: LiveIndex;
  writes: NoteWrites;
  recaller: SemanticRecall;
  reflection: Reflection;
  /** The index came from the cache (so a first walk may run in the background) */
  loaded: boolean;
}

const noop = () => undefined;

export async function openParts(options: OpenVaultOptions): Promise<VaultParts> {
  const root = await findVault(options.path, options.cwd, options.env);
  const config = await loadConfig(root, options.onNotice);
  const initialized = await stat(join(root, CONFIG_FILE)).then(
    () => true,
    () => false,
  );
  if (!initialized && options.requireConfig) throw notAVault(root);
  // Said before the walk: in a big folder (`--vault /usr`) reading every note takes a while, and
  // nothing else would tell the user why, or that the folder is not the vault they meant.
  if (!initialized) options.onNotice?.(readingNotAVault(root));
  const useCache = (options.cache ?? true) && initialized;
  const saveCache = useCache && options.saveCache !== false;
  const { index, loaded } = await loadIndex(root, config, useCache && !options.rebuild, options.onNotice);
  const onNotice = options.onNotice ?? noop;
  const env = options.env ?? process.env;
  const queue = new WriteQueue(root, initialized);
  const live = new LiveIndex({ root, config, initialized, index, saveCache, queue, onNotice });
  const reflection = new Reflection({ root, config, initialized, live, env, onNotice });
  const onEntries = (count: number) => reflection.noteEntries(count);
  const writes = new NoteWrites({ root, config, initialized, live, queue, onEntries });
  // Every write first sets the merge driver up and repairs days git union-merged (once a vault).
  queue.prepareFirstWrite(async () => {
    const { prepareVaultWrites } = await import('../write/sync/repair-union.js');
    // Neither step may keep the write itself from happening: a failure is told, not thrown.
    const repaired = await prepareVaultWrites(root, config).catch((error: Error) => {
      onNotice(`mem: could not set up the merge driver or repair merged days: ${error.message}`);
      return [];
    });
    if (repaired.length > 0) await live.refreshPathsNow(repaired);
  });
  const embed = options.embed;
  const embedSections = options.embedSections;
  const recaller = new SemanticRecall({
    root,
    config,
    index,
    queue,
    saveCache,
    onNotice,
    env,
    embed,
    embedSections,
  });
  // Top-k vectors become sections through a map the index's changes keep (see SectionsByText).
  if (config.embeddings.enabled) live.onIndexChange((paths) => recaller.sectionsChanged(paths));
  if (embedSections === 'background') {
    // Sections are embedded as they are written (and what the cache lacks at open), never on a read's path.
    live.onIndexChange(() => recaller.scheduleFill());
    recaller.scheduleFill();
  }
  if (options.track) live.startTracking(options.track === true ? {} : options.track);
  return { root, config, initialized, queue, live, writes, recaller, reflection, loaded };
}

function readingNotAVault(root: string): string {
  return `mem: ${root} is not a vault (no ${CONFIG_FILE}); reading every note in it as it is, with no index saved. Run \`mem init ${root}\` to make it one`;
}
