import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { Note } from '../../src/core/types.js';
import { boundDecodedNotes, DECODED_NOTES } from '../../src/indexing/decoded-budget.js';
import type { NoteTable } from '../../src/indexing/note-table.js';
import { collectUntil } from '../helpers/collect.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

const vaults: Vault[] = [];
afterEach(async () => {
  DECODED_NOTES.bound = Number.POSITIVE_INFINITY;
  for (const vault of vaults.splice(0)) await vault.close();
  await cleanupVaults();
});

const WORDS = ['pottery', 'rain', 'violin', 'garden', 'train', 'museum', '咖啡', '散步', '火锅'];

/** `count` insights of seeded words, linking one another. */
function notes(seed: number, count: number): Record<string, string> {
  const random = seeded(seed);
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `insights/n${i}.md`,
      `# Note ${i}\n\n${Array.from({ length: 5 + Math.floor(random() * 40) }, word).join(' ')}, see [[n${(i + 1) % count}]].\n`,
    ]),
  );
}

function notesOf(vault: Vault): NoteTable {
  return (vault as unknown as { live: { index: { notes: NoteTable } } }).live.index.notes;
}

/** `count` vaults of `size` notes each, built and opened again from their caches. */
async function pool(count: number, size: number): Promise<Vault[]> {
  const opened: Vault[] = [];
  for (let v = 0; v < count; v++) {
    const root = await makeVault(notes(v + 1, size), { config: { timezone: 'UTC' } });
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    vaults.push(vault);
    opened.push(vault);
  }
  return opened;
}

/** Reads every note of every vault in turns; WeakRefs to what each read returned. */
function readAll(opened: Vault[], rounds: number): Array<WeakRef<Note>> {
  const refs: Array<WeakRef<Note>> = [];
  for (let round = 0; round < rounds; round++) {
    for (const vault of opened) {
      const table = notesOf(vault);
      for (const path of vault.paths()) refs.push(new WeakRef(table.get(path) as Note));
    }
  }
  return refs;
}

/** Empties each vault's cache of decoded notes (a bound of one byte drops them, then its own again). */
function dropDecoded(opened: Vault[]): void {
  for (const vault of opened) {
    const table = notesOf(vault);
    const own = table.decodedBytes;
    table.decodedBytes = 1;
    table.decodedBytes = own;
  }
}

/** How many notes of `refs` are alive once collected (again, for a while, until `enough` holds of it). */
async function aliveAfterCollection(
  refs: Array<WeakRef<Note>>,
  enough: (alive: number) => boolean = () => true,
): Promise<number> {
  const alive = () => new Set(refs.map((ref) => ref.deref()).filter((note) => note !== undefined)).size;
  await collectUntil(() => enough(alive()));
  return alive();
}

describe('one bound on the decoded notes of every vault of a process (mem serve --vaults)', () => {
  it('keeps every note each vault read while unbounded, and about the bound once bounded', async () => {
    const opened = await pool(4, 30);
    const expected = opened.map((vault) => vault.paths().map((path) => JSON.stringify(vault.note(path))));
    // Unbounded (as one vault is served): each vault keeps what it read, within its own bound.
    expect(await aliveAfterCollection(readAll(opened, 1))).toBe(120);
    dropDecoded(opened);

    // The size of the eight largest notes as saved: the process keeps about that many, across vaults.
    const sizes = opened.flatMap((vault) =>
      vault.paths().map((path) => JSON.stringify(notesOf(vault).get(path)).length),
    );
    dropDecoded(opened);
    DECODED_NOTES.bound = sizes
      .sort((a, b) => b - a)
      .slice(0, 8)
      .reduce((sum, size) => sum + size, 0);
    const alive = await aliveAfterCollection(readAll(opened, 3), (count) => count <= 16);
    expect(alive).toBeGreaterThan(0);
    expect(alive).toBeLessThanOrEqual(16);
    // What a vault answers does not depend on what it keeps.
    expect(opened.map((vault) => vault.paths().map((path) => JSON.stringify(vault.note(path))))).toEqual(
      expected,
    );
  });

  it('lets a closed vault go and sets the bound in MiB', async () => {
    boundDecodedNotes(2);
    expect(DECODED_NOTES.bound).toBe(2 * 1024 * 1024);
    const tables = () => (DECODED_NOTES as unknown as { tables: Set<WeakRef<NoteTable>> }).tables;
    const before = tables().size;
    const [first, second] = (await pool(2, 10)) as [Vault, Vault];
    expect(tables().size).toBe(before + 2);
    await first.close();
    expect([...tables()].map((ref) => ref.deref())).not.toContain(notesOf(first));
    expect([...tables()].map((ref) => ref.deref())).toContain(notesOf(second));
    // A turn asks the open vault only, and it still answers what it holds.
    DECODED_NOTES.bound = 1;
    expect(readAll([second], 2).length).toBe(20);
    expect(second.note('insights/n3.md')?.title).toBe('Note 3');
  });
});
