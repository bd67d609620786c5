// Where a request finds its vault: the interface both sources share (one fixed vault, or the pool
// of one vault per agent and user in vault-pool.ts), the ids that name a vault, and the health of
// the chat write path summed over the vaults loaded.
import { MemError, type Vault, type WriterHealth } from '../../internal.js';
import type { VaultMoves } from './vault-moves.js';
import { checkSettings, type VaultSettings } from './vault-template.js';

/** Whose memory a request is about; both default to `default`. */
export interface VaultIds {
  agentId: string;
  userId: string;
  /** Settings for a vault this request creates; on an existing vault they must match (else 409) */
  settings?: VaultSettings;
}

/** Where requests find their vault: one fixed vault, or one per agent and user. */
export interface VaultSource {
  /**
   * Runs `fn` with the vault for `ids`, kept loaded while `fn` runs. A vault that does not exist
   * is created first when `create` is true, else `fn` gets `undefined`.
   */
  use<T>(
    ids: VaultIds,
    create: boolean,
    fn: (vault: Vault | undefined) => Promise<T> | T,
    how?: UseOptions,
  ): Promise<T>;
  /** `single`: one vault, `user_id`/`agent_id` ignored; `per-user`: one vault per agent and user */
  readonly mode: 'single' | 'per-user';
  /**
   * Per-user: a request that files or finds memories without user_id or agent_id goes to
   * `default/default` (`mem serve --default-vault`); otherwise it is refused (400)
   */
  readonly defaultIds?: boolean;
  /** The folder every vault served lives in: replies never show it (an error names `<vault>/...`) */
  readonly root: string;
  /** The chat write path, over the vaults loaded now: adds waiting for a write or a commit */
  health(): Promise<WriterHealth & { vaults: number; sync?: SyncHealth }>;
  /** Closes every vault: stops its watcher, finishes its writes and saves its cache */
  close(): Promise<void>;
  /** Moving vaults to other servers (`--vaults` with `--remote`) */
  readonly moves?: VaultMoves;
}

export interface UseOptions {
  /** Only a vault on this server's disk: never fetched from its remote (health checks) */
  local?: boolean;
  /** Told when the request must wait for the vault to be found in its remote, cloned or opened */
  onLoad?: () => void;
}

/** Letters of any script, digits, `_` and `-`; never a dot or a dash first, at most 64 characters. */
const ID = /^[\p{L}\p{N}_][\p{L}\p{N}\p{M}_-]{0,63}$/u;

/** Names Windows reserves for devices: a folder of that name cannot be made or read there. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * An agent or user id as a folder name. `.git`, `..`, separators, control characters and device
 * names never reach the file system: an id like `.git` once made vaults inside `DIR/.git/hooks`.
 */
export function parseVaultId(value: unknown, name: string): string {
  if (value === undefined || value === null || value === '') return 'default';
  const id = typeof value === 'string' ? value.normalize('NFC') : undefined;
  if (id === undefined || !ID.test(id) || RESERVED.test(id)) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${name} must be 1 to 64 letters, digits, "_" or "-", not starting with "-" and not a reserved name, got ${JSON.stringify(value)}`,
    );
  }
  return id;
}

/** The sync state of one vault, or of many summed (the latest sync, the first error). */
export interface SyncHealth {
  vaults: number;
  lastSync?: string;
  lastError?: string;
  ahead: number;
  behind: number;
}

function sumSync(vaults: Vault[]): SyncHealth | undefined {
  const states = vaults.flatMap((vault) => vault.syncState() ?? []);
  if (states.length === 0) return undefined;
  const lastSync = states
    .map((s) => s.lastSync ?? '')
    .sort()
    .at(-1);
  const lastError = states.find((s) => s.lastError)?.lastError;
  return {
    vaults: states.length,
    ...(lastSync ? { lastSync } : {}),
    ...(lastError ? { lastError } : {}),
    ahead: states.reduce((n, s) => n + (s.ahead ?? 0), 0),
    behind: states.reduce((n, s) => n + (s.behind ?? 0), 0),
  };
}

export async function sumHealth(
  vaults: Vault[],
): Promise<WriterHealth & { vaults: number; sync?: SyncHealth }> {
  const all = await Promise.all(vaults.map((vault) => vault.writerHealth()));
  const lastError = all.find((h) => h.lastError)?.lastError;
  const sync = sumSync(vaults);
  return {
    vaults: vaults.length,
    queued: all.reduce((n, h) => n + h.queued, 0),
    uncommitted: all.reduce((n, h) => n + h.uncommitted, 0),
    ...(lastError ? { lastError } : {}),
    ...(sync ? { sync } : {}),
  };
}

/** The one vault of `mem serve` without `--vaults`; ids are not used. */
export function singleVault(vault: Vault): VaultSource {
  return {
    mode: 'single',
    root: vault.root,
    use: async (ids, _create, fn, _how) => {
      checkSettings(vault, ids.settings);
      // The index stays readable until the request ends, also when the server closes the vault meanwhile.
      const release = vault.holdIndex();
      try {
        return await fn(vault);
      } finally {
        release();
      }
    },
    health: () => sumHealth([vault]),
    close: () => vault.close(),
  };
}
