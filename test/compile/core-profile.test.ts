// The profile notes compile puts first (profile/user.md, then pinned or important ones): the same
// notes whatever the layout and however the index was made, and a process that opens the vault
// from its cache finds them without decoding every note (it scanned the vault at its first compile).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { coreProfileNotes } from '../../src/compile/select-notes.js';
import type { Note } from '../../src/core/types.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { liveIndexOf } from '../helpers/notes-read.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const PROFILE_FOLDERS = ['profile', 'About/People', '人物'];

/** What compile took as core before: the layout's user note, pinned or important profile notes, none retired. */
function expected(index: VaultIndex, profile: string): string[] {
  const userPath = `${profile}/user.md`;
  const order = (n: Note, key: string, fallback: number) => {
    const v = n.frontmatter[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  };
  const core = [...index.notes.values()].filter(
    (n) =>
      n.layer === 'profile' &&
      !['superseded', 'archived'].includes(String(n.frontmatter['status'] ?? 'active')) &&
      (n.path === userPath || n.frontmatter['pinned'] === true || Number(n.frontmatter['importance']) >= 0.9),
  );
  return core
    .sort(
      (a, b) =>
        (a.path === userPath ? -1 : b.path === userPath ? 1 : 0) ||
        order(a, 'order', Number.MAX_SAFE_INTEGER) - order(b, 'order', Number.MAX_SAFE_INTEGER) ||
        order(b, 'importance', 0) - order(a, 'importance', 0) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    )
    .map((n) => n.path);
}

/** A profile note of random kind: pinned or not, of some importance, retired or not, in or below the folder. */
function profileNote(rng: () => number, i: number): { name: string; text: string } {
  const pick = <T>(xs: T[]) => xs[Math.floor(rng() * xs.length)] as T;
  const front = [
    pick(['', 'pinned: true', 'pinned: false', 'pinned: "true"']),
    pick([
      '',
      'importance: 0.95',
      'importance: 0.9',
      'importance: 0.5',
      'importance: "0.92"',
      'importance: high',
    ]),
    pick(['', '', 'status: superseded', 'status: archived', 'status: active']),
    pick(['', 'order: 1', 'order: 3']),
  ].filter(Boolean);
  const name = pick([`p${i}.md`, `sub/p${i}.md`, 'sub/user.md', `deep/x/p${i}.md`]);
  return { name, text: `---\n${front.join('\n')}\n---\n# P${i}\n\nabout ${i}\n` };
}

async function randomVault(seed: number): Promise<{ root: string; profile: string }> {
  const rng = seeded(seed);
  const profile = PROFILE_FOLDERS[seed % PROFILE_FOLDERS.length] as string;
  const files: Record<string, string> = {
    'persona/me.md': '# Me\n',
    'insights/user.md': '---\npinned: true\n---\n# Not a profile note\n',
  };
  if (rng() < 0.8)
    files[`${profile}/user.md`] = `---\nimportance: ${rng() < 0.5 ? 0.2 : 0.95}\n---\n# User\n`;
  for (let i = 0; i < 12; i++) {
    const { name, text } = profileNote(rng, i);
    files[`${profile}/${name}`] = text;
  }
  for (let d = 1; d <= 28; d++)
    files[`episodes/daily/2026-11-${String(d).padStart(2, '0')}.md`] =
      `# Day ${d}\n\n- 10:00 **A:** day ${d} ^e${d}\n`;
  const root = await makeVault(files, {
    config: { timezone: 'Asia/Shanghai', layout: { profile }, git: { autoCommit: false } },
  });
  return { root, profile };
}

describe('the core profile notes', () => {
  it('are the same from a fresh index, from the cache, and after edits, whatever the layout', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { root, profile } = await randomVault(seed);
      const fresh = await openVault({ path: root });
      const want = expected(liveIndexOf(fresh), profile);
      expect(
        coreProfileNotes(liveIndexOf(fresh)).map((n) => n.path),
        `seed ${seed}`,
      ).toEqual(want);
      await fresh.close();

      const cached = await openVault({ path: root });
      expect(
        coreProfileNotes(liveIndexOf(cached)).map((n) => n.path),
        `seed ${seed}, cached`,
      ).toEqual(want);
      // Edits that move a note into and out of the core, watched as the vault changes.
      await writeFile(join(root, profile, 'user.md'), '---\nstatus: superseded\n---\n# User\n');
      await writeFile(join(root, profile, 'new.md'), '---\npinned: true\n---\n# New\n');
      await writeFile(join(root, profile, 'sub', 'user.md'), '---\nimportance: 0.99\n---\n# Sub user\n');
      await cached.refresh();
      const index = liveIndexOf(cached);
      expect(
        coreProfileNotes(index).map((n) => n.path),
        `seed ${seed}, edited`,
      ).toEqual(expected(index, profile));
      await cached.close();
    }
  });

  it('are found from the cache without decoding the other notes', async () => {
    const { root, profile } = await randomVault(5);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const table = liveIndexOf(vault).notes;
    const decode = vi.spyOn(table as unknown as { decode(slot: number): Note }, 'decode');
    const core = coreProfileNotes(liveIndexOf(vault));
    const decoded = decode.mock.calls.length;
    decode.mockRestore();
    expect(core.map((n) => n.path)).toEqual(expected(liveIndexOf(vault), profile));
    // The candidates of the saved facet at most (profile notes), never the 30 days or the others.
    expect(decoded).toBeLessThanOrEqual(14);
    expect(decoded).toBeGreaterThanOrEqual(core.length);
    await vault.close();
  });
});
