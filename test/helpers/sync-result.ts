import type { SyncResult } from '../../src/write/sync/sync-vault.js';

/** A sync that pushed and changed nothing else: what a scheduler test's stand-in sync returns. */
export const PUSHED: SyncResult = {
  remote: 'origin',
  branch: 'main',
  code: 'pushed',
  days: [],
  renumbered: [],
  conflicts: [],
  resumed: false,
  paths: [],
};
