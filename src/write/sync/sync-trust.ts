// The trust boundary of `mem sync`: what a remote brings is data, never mem's own state or this
// device's choices. A remote may not bring anything under `.mem/` (plans, the journal, caches: mem
// never commits them, so a tracked one was planted), nor a symlink or a submodule (mem would write
// through a link into whatever it names). And the settings that send the vault's text elsewhere or
// run code (model and embeddings endpoints and keys, git hooks) stay as this device has them: a
// remote's change to them is kept out of the merge and waits in `.mem/config-proposed.json` until
// the person accepts it here (`mem config accept`).
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIR, cacheDir, ensureCacheDir } from '../../core/cache-dir.js';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { CONFIG_FILE } from '../../core/vault-files.js';
import { git } from '../../git/run-git.js';
import { blobText, commitMerge } from '../../git/sync-git.js';
import { toVaultPath, type VaultRepo } from '../../git/vault-git.js';
import { writeAtomic } from '../../vault/write-note.js';

/** Config keys whose value sends data somewhere or runs code: a remote does not set them here. */
export const OUTBOUND_KEYS = [
  'llm.baseURL',
  'llm.apiKeyEnv',
  'embeddings.enabled',
  'embeddings.provider',
  'embeddings.baseURL',
  'embeddings.apiKeyEnv',
  'embeddings.model',
  'embeddings.cacheDir',
  'git.runHooks',
] as const;

const PROPOSED = 'config-proposed.json';

/**
 * Refuses the remote's commit `theirs` when, since `from`, it adds or changes anything under the
 * vault's `.mem/`, a symlink or a submodule. Nothing is changed before the refusal.
 */
export async function checkIncoming(repo: VaultRepo, from: string, theirs: string): Promise<void> {
  const out = await git(repo.repo, ['diff-tree', '-r', '-z', '--no-renames', from, theirs]);
  const fields = out.split('\0');
  const refused: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i]!.replace(/^:/, '').split(' ');
    const path = fields[i + 1]!;
    const mode = meta[1] ?? '';
    const status = meta[4] ?? '';
    if (status === 'D') continue;
    const vaultPath = toVaultPath(repo, path);
    if (vaultPath === undefined) continue;
    if (vaultPath.split('/')[0]?.toLowerCase() === CACHE_DIR)
      refused.push(`${vaultPath} (mem's own state on each device, never taken from a remote)`);
    else if (mode === '120000') refused.push(`${vaultPath} (a symlink)`);
    else if (mode === '160000') refused.push(`${vaultPath} (a submodule)`);
  }
  if (refused.length > 0)
    throw new MemError(
      'CONFLICT',
      `the remote's ${theirs.slice(0, 7)} brings what mem takes from no remote: ${refused.slice(0, 10).join('; ')}${refused.length > 10 ? ` and ${refused.length - 10} more` : ''}. Remove them there (git rm --cached), then sync again. Nothing was changed`,
    );
}

function getKey(config: unknown, key: string): unknown {
  let node = config;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function setKey(config: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = config;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      if (value === undefined) return;
      node[part] = {};
    }
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

const parse = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

export interface ProposedConfig {
  /** The remote commit that proposed the values */
  from: string;
  /** Key to the remote's value (null: the remote unset it) */
  values: Record<string, unknown>;
}

/**
 * When `target` (what the sync would make HEAD) changes an outbound key of the config against
 * `head`, the commit to take instead: a merge of `head` and `theirs` with `target`'s tree, but the
 * config's outbound keys as `head` has them; the remote's values are proposed. Returns `target`
 * unchanged otherwise.
 */
export async function keepOutbound(
  root: string,
  repo: VaultRepo,
  head: string,
  theirs: string,
  target: string,
  message: string,
): Promise<string> {
  const path = repo.prefix ? `${repo.prefix}/${CONFIG_FILE}` : CONFIG_FILE;
  const [oursText, targetText] = await Promise.all([
    blobText(repo.repo, head, path),
    blobText(repo.repo, target, path),
  ]);
  if (oursText === targetText) return target;
  const ours = parse(oursText);
  const next = parse(targetText);
  // A config that is not JSON on either side is the config check's to report, not a value to hold.
  if (!ours || !next || targetText === undefined) return target;
  const values: Record<string, unknown> = {};
  for (const key of OUTBOUND_KEYS) {
    const mine = getKey(ours, key);
    const theirsValue = getKey(next, key);
    if (JSON.stringify(mine) === JSON.stringify(theirsValue)) continue;
    values[key] = theirsValue ?? null;
    setKey(next, key, mine);
  }
  if (Object.keys(values).length === 0) return target;
  await ensureCacheDir(root);
  const proposed: ProposedConfig = { from: theirs, values };
  await writeAtomic(join(cacheDir(root), PROPOSED), `${JSON.stringify(proposed, null, 2)}\n`, {
    label: `.mem/${PROPOSED}`,
  });
  const kept = `${JSON.stringify(next, null, 2)}\n`;
  return commitMerge(repo.repo, target, new Map([[path, kept]]), [head, theirs], message);
}

/** The remote's outbound settings waiting for the person's word on this device, if any. */
export async function readProposedConfig(root: string): Promise<ProposedConfig | undefined> {
  const text = await readRegularText(join(cacheDir(root), PROPOSED)).catch(() => undefined);
  const parsed = parse(text);
  if (!parsed || typeof parsed['from'] !== 'string' || typeof parsed['values'] !== 'object') return undefined;
  const values: Record<string, unknown> = {};
  for (const key of OUTBOUND_KEYS) {
    const all = parsed['values'] as Record<string, unknown>;
    if (Object.hasOwn(all, key)) values[key] = all[key];
  }
  return Object.keys(values).length > 0 ? { from: parsed['from'], values } : undefined;
}

/** Drops the proposal (accepted or refused). */
export async function clearProposedConfig(root: string): Promise<void> {
  await unlink(join(cacheDir(root), PROPOSED)).catch(() => undefined);
}
