import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { readVault, walkVault } from '../../src/vault/read-vault.js';
import { hashText } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(() => {
  vi.useRealTimers();
  return cleanupVaults();
});

/** A folder read in several batches (more notes than one read fetches), beside a small one. */
const NOTES = 40;
const noteName = (i: number) => `n${String(i).padStart(3, '0')}.md`;

let cases = 0;

/** A vault of its own for each case, below one temp folder: written synchronously, it costs little. */
async function bigFolderVault(): Promise<string> {
  const root = join(await makeVault(), `case-${cases++}`);
  mkdirSync(join(root, 'sub', 'deep'), { recursive: true });
  mkdirSync(join(root, 'big'));
  writeFileSync(join(root, 'top.md'), '# Top\n');
  writeFileSync(join(root, 'sub', 'deep', 'd.md'), '# D\n');
  for (let i = 0; i < NOTES; i++) writeFileSync(join(root, 'big', noteName(i)), `# Note ${i}\n\nversion 1\n`);
  return root;
}

/** Writes a file as mem does: a temp file renamed into place. */
function replace(abs: string, text: string): void {
  writeFileSync(`${abs}.tmp~`, text);
  renameSync(`${abs}.tmp~`, abs);
}

/**
 * Every kind of change another program makes to a folder, done to the folder being read. Each
 * returns the note it touched (its old and new vault paths): the others stayed as they were.
 */
const CHANGES: Record<string, (root: string, i: number) => string[]> = {
  'replaced by a rename': (root, i) => {
    replace(join(root, 'big', noteName(i)), `# Note ${i}\n\nversion 2\n`);
    return [`big/${noteName(i)}`];
  },
  'written in place': (root, i) => {
    writeFileSync(join(root, 'big', noteName(i)), `# Note ${i}\n\nversion 2, in place\n`);
    return [`big/${noteName(i)}`];
  },
  created: (root, i) => {
    writeFileSync(join(root, 'big', `new-${i}.md`), '# New\n');
    return [`big/new-${i}.md`];
  },
  removed: (root, i) => {
    rmSync(join(root, 'big', noteName(i)));
    return [`big/${noteName(i)}`];
  },
  'removed and made again': (root, i) => {
    rmSync(join(root, 'big', noteName(i)));
    writeFileSync(join(root, 'big', noteName(i)), `# Note ${i}\n\nversion 3\n`);
    return [`big/${noteName(i)}`];
  },
  renamed: (root, i) => {
    renameSync(join(root, 'big', noteName(i)), join(root, 'big', `moved-${i}.md`));
    return [`big/${noteName(i)}`, `big/moved-${i}.md`];
  },
};

/** The notes on disk now, by path, with their text. */
function onDisk(root: string, paths: Iterable<string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const path of paths) {
    try {
      found.set(path, readFileSync(join(root, path), 'utf8'));
    } catch {}
  }
  return found;
}

describe('walkVault', () => {
  it('visits every note once and says no path repeated when no folder changed', async () => {
    const root = await bigFolderVault();
    // The folders' last change is older than a clock tick of any file system.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    const visits: string[] = [];
    const mayRepeat = await walkVault(root, {}, (path) => visits.push(path));

    expect(mayRepeat).toBe(false);
    expect(visits.sort()).toEqual(
      ['sub/deep/d.md', 'top.md', ...Array.from({ length: NOTES }, (_, i) => `big/${noteName(i)}`)].sort(),
    );
  });

  it('visits every note once when the folders changed just before they were read', async () => {
    const root = await bigFolderVault();
    const visits: string[] = [];
    // A change during the read could share the folders' timestamps: the names read are kept instead.
    expect(await walkVault(root, {}, (path) => visits.push(path))).toBe(false);
    expect(new Set(visits).size).toBe(visits.length);
    expect(visits.length).toBe(NOTES + 2);
  });

  for (const [kind, change] of Object.entries(CHANGES)) {
    it(`visits each other note once when a note is ${kind} at any point of its folder's read`, async () => {
      for (let at = 0; at < NOTES + 3; at++) {
        const root = await bigFolderVault();
        const target = (at * 7) % NOTES;
        let seen = 0;
        let touched: string[] = [];
        const visits = new Map<string, number>();
        const mayRepeat = await walkVault(
          root,
          {
            skip: () => {
              if (seen++ === at) touched = change(root, target);
              return false;
            },
          },
          (path) => visits.set(path, (visits.get(path) ?? 0) + 1),
        );
        const before = [
          'top.md',
          'sub/deep/d.md',
          ...Array.from({ length: NOTES }, (_, i) => `big/${noteName(i)}`),
        ];
        for (const path of before.filter((p) => !touched.includes(p))) {
          expect(visits.get(path), `${path}, change at ${at}`).toBe(1);
        }
        // A path visited is one that was a note at some time during the walk.
        for (const path of visits.keys()) expect([...before, ...touched]).toContain(path);
        if ([...visits.values()].some((n) => n > 1)) expect(mayRepeat).toBe(true);
        // The listing names each path once.
        const listed = (await readVault(root)).map((file) => file.path);
        expect(new Set(listed).size).toBe(listed.length);
      }
    });

    it(`leaves the index as on disk after one more refresh when a note is ${kind} during the walk`, async () => {
      for (let at = 0; at < NOTES + 3; at += 3) {
        const root = await bigFolderVault();
        const index = new VaultIndex();
        await refreshIndex(root, index);
        const target = (at * 7) % NOTES;
        let seen = 0;
        let touched: string[] = [];
        index.skipPath = () => {
          if (seen++ === at) touched = change(root, target);
          return false;
        };
        await refreshIndex(root, index);
        index.skipPath = undefined;

        // What no change touched is indexed as it is; what one touched is indexed as it was or is.
        const everyPath = (await readVault(root)).map((file) => file.path);
        const now = onDisk(root, everyPath);
        for (const [path, text] of now) {
          if (!touched.includes(path)) expect(index.notes.get(path)?.hash, path).toBe(hashText(text));
        }
        for (const path of index.notes.keys()) expect([...now.keys(), ...touched]).toContain(path);

        await refreshIndex(root, index);
        expect([...index.notes.keys()].sort()).toEqual([...now.keys()].sort());
        for (const [path, text] of now) expect(index.notes.get(path)?.hash, path).toBe(hashText(text));
      }
    });
  }
});
