import type { Dir, Dirent } from 'node:fs';
import { readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { readVault } from '../../src/vault/read-vault.js';
import { hashText } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

/**
 * A folder read while entries come and go may return an entry renamed into place a second time
 * (POSIX leaves it unspecified; some file systems do). This machine's do not, so the folder reader
 * here does: an entry the test names is returned again at the end of its folder.
 */
const again: string[] = [];
const returned = new Map<string, Dirent>();

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const opendirSync = (...args: Parameters<typeof fs.opendirSync>): Dir => {
    const dir = fs.opendirSync(...args);
    const readSync = dir.readSync.bind(dir);
    return Object.assign(dir, {
      readSync: (): Dirent | null => {
        const entry = readSync();
        if (entry !== null) {
          returned.set(entry.name, entry);
          return entry;
        }
        const name = again.shift();
        return name === undefined ? null : (returned.get(name) ?? null);
      },
    });
  };
  return { ...fs, default: { ...fs, opendirSync }, opendirSync };
});

afterEach(() => {
  vi.useRealTimers();
  again.length = 0;
  returned.clear();
  return cleanupVaults();
});

const NOTES = 40;
const noteName = (i: number) => `n${String(i).padStart(3, '0')}.md`;

async function vault(): Promise<string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < NOTES; i++) files[`big/${noteName(i)}`] = `# Note ${i}\n`;
  return makeVault(files);
}

describe('a walk that returns an entry twice', () => {
  /**
   * `settled`: the folder's last change is old (its clock moved on a minute), so a change during
   * the read shows in its timestamps, and the walk says a path may repeat. Else the walk keeps the
   * names it read, and a repeat is passed over: the note replaced after its visit is read by the
   * next refresh.
   */
  for (const settled of [true, false]) {
    it(`reads each note once and finds a note removed meanwhile, at every point of the read (${settled ? 'an older folder' : 'a folder just changed'})`, async () => {
      for (let at = 1; at < NOTES; at++) {
        vi.useRealTimers();
        const root = await vault();
        const index = new VaultIndex();
        await refreshIndex(root, index);
        if (settled) {
          const hourAgo = new Date(Date.now() - 3600_000);
          utimesSync(join(root, 'big'), hourAgo, hourAgo);
          vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
        }
        returned.clear();
        let seen = 0;
        let replaced: string[] = [];
        let removed = '';
        const replace = (name: string) => {
          const abs = join(root, 'big', name);
          writeFileSync(`${abs}.tmp~`, `# Replaced ${name}\n`);
          renameSync(`${abs}.tmp~`, abs);
          again.push(name);
        };
        index.skipPath = (path) => {
          if (path.startsWith('big/') && seen++ === at) {
            // A note already read and one not yet read are replaced by a rename (each returned again
            // at the end), and one not yet read goes.
            const ahead = Array.from({ length: NOTES }, (_, i) => noteName(i)).filter(
              (name) => !returned.has(name),
            );
            removed = ahead[0] ?? '';
            replaced = [
              [...returned.keys()].find((name) => name.endsWith('.md')) as string,
              ...ahead.slice(1, 2),
            ];
            replaced.forEach(replace);
            if (removed) rmSync(join(root, 'big', removed));
          }
          return false;
        };
        const stats = await refreshIndex(root, index);
        index.skipPath = undefined;

        const gone = removed ? 1 : 0;
        // A note replaced after its visit is read at its repeat, or (names kept) by the next refresh.
        const read = settled ? replaced : replaced.slice(1);
        expect(stats, `change at ${at}`).toEqual({
          added: 0,
          changed: read.length,
          removed: gone,
          unchanged: NOTES - read.length - gone,
          touched: 0,
        });
        for (const name of read)
          expect(index.notes.get(`big/${name}`)?.hash).toBe(hashText(`# Replaced ${name}\n`));
        if (removed) expect(index.notes.has(`big/${removed}`)).toBe(false);
        expect(index.notes.size).toBe(NOTES - gone);
        vi.useRealTimers();
        await refreshIndex(root, index);
        for (const name of replaced)
          expect(index.notes.get(`big/${name}`)?.hash).toBe(hashText(`# Replaced ${name}\n`));
      }
    });
  }

  it('lists the path once', async () => {
    const root = await vault();
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(join(root, 'big'), hourAgo, hourAgo);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    again.push(noteName(3), noteName(7));
    const listed = (await readVault(root)).map((file) => file.path);
    expect(listed).toEqual(Array.from({ length: NOTES }, (_, i) => `big/${noteName(i)}`));
    expect(readFileSync(join(root, 'big', noteName(3)), 'utf8')).toBe('# Note 3\n');
  });
});
