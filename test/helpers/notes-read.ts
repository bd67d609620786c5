import { vi } from 'vitest';
import type { Vault } from '../../src/api/open-vault.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';

/** The vault's index (its live one). */
export function liveIndexOf(vault: Vault): VaultIndex {
  return (vault as unknown as { live: { index: VaultIndex } }).live.index;
}

/** What `run` returns, and the paths of the notes it took from the vault's note table (a decode each, when not held). */
export function notesReadBy<T>(vault: Vault, run: () => T): { result: T; read: Set<string> } {
  const table = liveIndexOf(vault).notes;
  const read = new Set<string>();
  const get = table.get.bind(table);
  const spy = vi.spyOn(table, 'get').mockImplementation((path: string) => {
    read.add(path);
    return get(path);
  });
  try {
    return { result: run(), read };
  } finally {
    spy.mockRestore();
  }
}
