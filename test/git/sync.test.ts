// `vault.sync()` between two clones of one vault and a bare remote: both add to the same day, edit
// the same profile note, move and forget notes, and sync in every order; nothing is lost or
// doubled, no note holds conflict markers, links resolve, and the two clones end equal.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault, vaultStatus } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import {
  type Clones,
  countLine,
  DAY,
  DAY_PATH,
  expectHealthy,
  notesOf,
  PROFILE,
  PROFILE_TEXT,
  twoClones,
} from './sync-helpers.js';

const open: Vault[] = [];
afterEach(async () => {
  for (const v of open.splice(0)) await v.close();
  await cleanupVaults();
});

async function vaultAt(root: string): Promise<Vault> {
  const vault = await openVault({ path: root, cache: false });
  open.push(vault);
  return vault;
}

const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);

/** Hand edit and commit, as a person in Obsidian with obsidian-git would. */
async function handEdit(root: string, path: string, edit: (text: string) => string): Promise<void> {
  const abs = join(root, path);
  await mkdir(join(abs, '..'), { recursive: true });
  await writeFile(abs, edit(await readFile(abs, 'utf8').catch(() => '')));
  await git(root, 'add', '-A');
  await git(root, 'commit', '-q', '-m', `edit ${path}`);
}

/** Syncs in `order` (a, b, a, …) and checks both clones end equal and healthy. */
async function syncAll(
  c: Clones,
  va: Vault,
  vb: Vault,
  order: Array<'a' | 'b'>,
): Promise<Map<string, string>> {
  for (const side of order) await (side === 'a' ? va : vb).sync();
  const [na, nb] = [await expectHealthy(c.a), await expectHealthy(c.b)];
  expect(nb).toEqual(na);
  expect((await git(c.a, 'rev-parse', 'HEAD')).trim()).toBe((await git(c.b, 'rev-parse', 'HEAD')).trim());
  return na;
}

const ORDERS: Array<Array<'a' | 'b'>> = [
  ['a', 'b', 'a'],
  ['b', 'a', 'b'],
];

describe('mem sync', () => {
  for (const order of ORDERS) {
    it(`merges both clones' entries of one day entry by entry (sync order ${order.join(' ')})`, async () => {
      const c = await twoClones();
      const [va, vb] = [await vaultAt(c.a), await vaultAt(c.b)];
      const mine: string[] = [];
      const citedB: string[] = [];
      for (let i = 0; i < 5; i++) {
        const ra = await va.remember({ text: `from a ${i}`, at: at(`09:0${i}`) });
        const rb = await vb.remember({ text: `from b ${i}`, at: at(`09:0${i}`), speaker: 'Aiko' });
        mine.push(`from a ${i}`, `from b ${i}`);
        citedB.push(rb.blockId);
        // The same number on both clones, each with its own device's tag: never the same id.
        expect(ra.blockId.replace(/-.*/, '')).toBe(rb.blockId.replace(/-.*/, ''));
        expect(ra.blockId).toMatch(/^e\d+-[0-9a-z]{4}$/);
        expect(rb.blockId).not.toBe(ra.blockId);
      }
      // B cites one of its own entries from another note: the link still names it after the sync.
      await handEdit(c.b, 'insights/tea.md', (t) => `${t}\nSaid at [[${DAY}#^${citedB[2]}]].\n`);
      const notes = await syncAll(c, va, vb, order);
      const day = notes.get(DAY_PATH)!;
      for (const text of [...mine, 'good morning']) expect(countLine(notes, text)).toBe(1);
      const ids = [...day.matchAll(/\^(e\d+(?:-[0-9a-z]+)?)$/gm)].map((m) => m[1]);
      expect(new Set(ids).size).toBe(11);
      const times = [...day.matchAll(/^- (\d\d:\d\d)/gm)].map((m) => m[1]);
      expect(times).toEqual([...times].sort());
      // The cited entry is still B's "from b 2", under the id it was given.
      const cited = /\[\[2026-11-29#\^(e\d+-[0-9a-z]+)\]\]/.exec(notes.get('insights/tea.md')!)![1];
      expect(cited).toBe(citedB[2]);
      expect(day).toMatch(new RegExp(`from b 2 \\^${cited}$`, 'm'));
      expect(await git(c.a, 'log', '--merges', '--format=%s')).toMatch(/^mem: sync, merge origin\/main$/m);
    });
  }

  it('merges edits of one profile note: apart ones in place, a clash as a linked conflict note', async () => {
    const c = await twoClones();
    const [va, vb] = [await vaultAt(c.a), await vaultAt(c.b)];
    await handEdit(c.a, PROFILE, (t) => t.replace('- Drinks tea.', '- Drinks green tea.'));
    await handEdit(c.b, PROFILE, (t) => t.replace('- Likes git.', '- Likes git and Obsidian.'));
    let notes = await syncAll(c, va, vb, ['a', 'b', 'a']);
    expect(notes.get(PROFILE)).toBe(
      PROFILE_TEXT.replace('- Drinks tea.', '- Drinks green tea.').replace(
        '- Likes git.',
        '- Likes git and Obsidian.',
      ),
    );
    await handEdit(c.a, PROFILE, (t) => t.replace('- Lives in Lisbon.', '- Lives in Porto.'));
    await handEdit(c.b, PROFILE, (t) => t.replace('- Lives in Lisbon.', '- Lives in Braga.'));
    const b = await vb.sync();
    expect(b.code).toBe('pushed');
    const a = await va.sync();
    expect(a.code).toBe('merged');
    expect(a.conflicts).toHaveLength(1);
    expect(a.conflicts[0]).toMatch(/^profile\/user\.conflict-[0-9a-f]{7}\.md$/);
    notes = await syncAll(c, va, vb, ['b']);
    expect(countLine(notes, '- Lives in Porto.')).toBe(1);
    expect(countLine(notes, '- Lives in Braga.')).toBe(1);
    expect(notes.get(PROFILE)).toContain('- Lives in Porto.');
    expect(notes.get(PROFILE)).toContain(`[[${a.conflicts[0]!.replace(/\.md$/, '')}]]`);
    expect(notes.get(a.conflicts[0]!)).toContain('- Lives in Braga.');
    // Listed by status and doctor until a person merges them.
    expect((await vaultStatus(c.b)).conflicts).toEqual(a.conflicts);
    expect(vb.doctor().syncConflicts).toEqual(a.conflicts);
  });

  for (const order of ORDERS)
    it(`carries a move on one side and a forget and an edit on the other (sync order ${order.join(' ')})`, async () => {
      const c = await twoClones();
      const [va, vb] = [await vaultAt(c.a), await vaultAt(c.b)];
      await va.move('profile/people/Mei.md', 'profile/people/Mei Lin.md');
      await va.remember({ text: 'Mei moved to Osaka', at: at('10:00') });
      await handEdit(c.b, 'profile/people/Mei.md', (t) => `${t}Plays the violin.\n`);
      await vb.forget('insights/coffee.md');
      // B archives a note that links to the note A moved: the link follows the move.
      await vb.forget('insights/tea.md');
      await vb.remember({ text: 'Mei called', at: at('10:01') });
      const notes = await syncAll(c, va, vb, order);
      expect(notes.has('profile/people/Mei.md')).toBe(false);
      expect(notes.get('profile/people/Mei Lin.md')).toContain('Plays the violin.');
      expect(notes.has('insights/coffee.md')).toBe(false);
      expect(notes.get('archive/insights/tea.md')).toContain('[[profile/people/Mei Lin]] likes oolong.');
      expect([...notes.keys()].filter((p) => p.endsWith('coffee.md'))).toHaveLength(1);
      for (const text of ['Mei moved to Osaka', 'Mei called', 'Plays the violin.'])
        expect(countLine(notes, text)).toBe(1);
    });

  it('commits a hand edit the merge would change as the person’s, refuses unrelated histories and a merge in progress', async () => {
    const c = await twoClones();
    const [va, vb] = [await vaultAt(c.a), await vaultAt(c.b)];
    await vb.remember({ text: 'b was here', at: at('11:00') });
    await vb.sync();
    // A hand edit (uncommitted) of the day note the merge would change: the person's commit, first.
    await va.remember({ text: 'a was here', at: at('11:01') });
    await writeFile(join(c.a, DAY_PATH), `${await readFile(join(c.a, DAY_PATH), 'utf8')}typed by hand\n`);
    const synced = await va.sync();
    expect(synced.yourEdits).toEqual({ commit: expect.any(String), paths: [DAY_PATH], added: [] });
    expect(await git(c.a, 'log', '-1', '--format=%s', synced.yourEdits!.commit)).toBe(
      `sync: your edits to ${DAY_PATH} before merging\n`,
    );
    expect(await git(c.a, 'log', '--merges', '--oneline')).not.toBe('');
    const head = await git(c.a, 'rev-parse', 'HEAD');
    expect(await readFile(join(c.a, DAY_PATH), 'utf8')).toContain('typed by hand\n');
    // A merge in progress.
    await writeFile(join(c.a, '.git', 'MERGE_HEAD'), `${head}`);
    await expect(va.sync()).rejects.toThrow(/a merge is in progress/);
    await git(c.a, 'merge', '--abort').catch(() => undefined);
    await git(c.a, 'update-ref', '-d', 'MERGE_HEAD').catch(() => undefined);
    // Unrelated history.
    const other = await twoClones({ '.gitignore': '.mem/\n', 'x.md': 'x\n' });
    await git(c.a, 'remote', 'add', 'stranger', other.bare);
    await expect(va.sync({ remote: 'stranger' })).rejects.toThrow(/unrelated histories/);
    await expect(va.sync({ remote: 'nowhere' })).rejects.toThrow(/no remote named "nowhere"/);
    const notes = await syncAll(c, va, vb, ['a', 'b']);
    for (const text of ['b was here', 'a was here', 'typed by hand']) expect(countLine(notes, text)).toBe(1);
    expect(await notesOf(c.b)).toEqual(notes);
  });
});
