// Block ids that carry their device (issue 32): a vault with a git remote gives out `^eN-tag`, the
// tag this clone made once and keeps in `.mem/device.json`; a vault without one keeps plain `^eN`.
// Every reader of ids takes both forms: the day's counter, the floor of ids given out, the cited
// ids of other notes, the merge, the index's anchors, redaction.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { deviceTag } from '../../src/write/device-tag.js';
import {
  blockIdNumber,
  blockIdTag,
  freshBlockIds,
  MAX_BLOCK_ID,
  nextBlockId,
} from '../../src/write/episode-entry.js';
import { redactSecrets } from '../../src/write/redact/redact.js';
import { mergeDay } from '../../src/write/sync/merge-day.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const DAY = '2026-11-29';
const DAY_PATH = `episodes/daily/${DAY}.md`;
const AT = new Date(`${DAY}T09:00:00Z`);

/** A vault in a repository with a remote (the remote need not exist: nothing here fetches). */
async function vaultWithRemote(files: Record<string, string> = {}): Promise<string> {
  const root = await makeVault(files, { config: { timezone: 'UTC' } });
  await gitInit(root);
  await git(root, 'remote', 'add', 'origin', join(root, 'nowhere.git'));
  return root;
}

describe('a block id with a device tag', () => {
  it('is read by every id rule: its number counts for the day, its tag is its own', () => {
    expect(blockIdNumber('e12-k7q2')).toBe(12);
    expect(blockIdTag('e12-k7q2')).toBe('k7q2');
    expect(blockIdNumber('e12')).toBe(12);
    expect(blockIdTag('e12')).toBe('');
    for (const other of ['e0-k7q2', 'e12-', 'e12-K7Q2', 'e12-k', 'e12-toolongtag', 'i0123456789', 'e1e5'])
      expect(blockIdNumber(other), other).toBe(0);
    const day = '- 09:00 one ^e3\n- 09:01 two ^e7-abcd\n- 09:02 three \\^e40-zzzz\n';
    expect(nextBlockId(day)).toBe('e8');
    expect(nextBlockId(day, 0, 'k7q2')).toBe('e8-k7q2');
    expect(nextBlockId(day, 20, 'k7q2')).toBe('e21-k7q2');
    expect(freshBlockIds(['e5-abcd', 'e2'], 0, 2, 'k7q2')).toEqual(['e6-k7q2', 'e7-k7q2']);
    // Near the bound the tag stays on, and each fresh id differs from every id the day holds.
    const near = freshBlockIds([`e${MAX_BLOCK_ID}-abcd`, 'e4'], 0, 2, 'k7q2');
    expect(near).toEqual(['e5-k7q2', 'e6-k7q2']);
  });

  it('is left as it is by redaction wherever the plain id is', () => {
    for (const text of [
      'my bank password ^e90',
      'PIN ^e12',
      'my password is in [[2026-11-29#^e12]]',
      'password ^e12',
    ]) {
      const tagged = text.replace(/\^e(\d+)/, '^e$1-k7q2');
      expect(redactSecrets(tagged).text, tagged).toBe(tagged);
      expect(redactSecrets(text).text, text).toBe(text);
    }
  });
});

describe("a device's tag", () => {
  it('is given only to a vault with a remote, kept by the clone, and made anew for a copy of it', async () => {
    const bare = await makeVault({}, { config: { timezone: 'UTC' } });
    expect(await deviceTag(bare)).toBeUndefined();
    const local = await makeVault({}, { config: { timezone: 'UTC' } });
    await gitInit(local);
    expect(await deviceTag(local)).toBeUndefined();

    const root = await vaultWithRemote();
    const tag = await deviceTag(root);
    expect(tag).toMatch(/^[0-9a-z]{4}$/);
    expect(await deviceTag(root)).toBe(tag);
    const record = JSON.parse(await readFile(join(root, '.mem/device.json'), 'utf8'));
    expect(record.tag).toBe(tag);
    // Not in git: `.mem/` is the clone's own.
    expect(await git(root, 'status', '--porcelain', '--ignored', '.mem')).toMatch(/^!! \.mem\/$/m);

    // A copy of the whole folder, `.mem/` with it, is another device: a tag of its own.
    const copy = join(await mkdtemp(join(tmpdir(), 'memvault-copy-')), 'vault');
    await cp(root, copy, { recursive: true });
    const copied = await deviceTag(copy);
    expect(copied).toMatch(/^[0-9a-z]{4}$/);
    expect(copied).not.toBe(tag);
    await rm(join(copy, '..'), { recursive: true, force: true });
  });

  it('is on every id remember gives out, and the link handed back names that entry', async () => {
    const root = await vaultWithRemote();
    const vault = await openVault({ path: root, cache: false });
    const first = await vault.remember({ text: 'tea with Mei', at: AT });
    const second = await vault.remember({ text: 'a walk by the river', at: AT });
    const tag = await deviceTag(root);
    expect(first.blockId).toBe(`e1-${tag}`);
    expect(second.blockId).toBe(`e2-${tag}`);
    expect(first.link).toBe(`[[${DAY}#^e1-${tag}]]`);
    const note = vault.note(DAY_PATH);
    expect(note.sections.find((s) => s.anchor === `^${second.blockId}`)?.text).toBe('a walk by the river');
    expect(vault.doctor().duplicateBlockIds).toEqual([]);
    await vault.close();
  });

  it("numbers on past another device's ids and past any id a note cites, of either form", async () => {
    const root = await makeVault(
      {
        [DAY_PATH]: `# ${DAY}\n\n- 08:00 **Rain:** from the phone ^e4-zzzz\n`,
        'insights/cited.md': `# Cited\n\nAs said in [[${DAY}#^e9-abcd]].\n`,
      },
      { config: { timezone: 'UTC' } },
    );
    const vault = await openVault({ path: root, cache: false });
    // No remote: a plain id, numbered past the cited e9 of another device.
    expect((await vault.remember({ text: 'plain', at: AT })).blockId).toBe('e10');
    await vault.close();
  });
});

describe('the merge of a day two devices wrote', () => {
  it("keeps both devices' ids: same numbers, other tags, nothing renumbered, in time order", () => {
    const base = `# ${DAY}\n\n- 08:00 **Rain:** good morning ^e1\n`;
    const ours = `${base}- 09:00 **Rain:** laptop ^e2-aaaa\n- 11:00 **Rain:** laptop again ^e3-aaaa\n`;
    const theirs = `${base}- 10:00 **Rain:** phone ^e2-bbbb\n`;
    for (const [o, t] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      const { text, renumbered } = mergeDay(base, o, t, DAY);
      expect(renumbered.size).toBe(0);
      expect(text).toBe(
        `${base}- 09:00 **Rain:** laptop ^e2-aaaa\n- 10:00 **Rain:** phone ^e2-bbbb\n- 11:00 **Rain:** laptop again ^e3-aaaa\n`,
      );
    }
  });

  it('still renumbers two plain ids that clash (older mem versions), and the links to it', () => {
    const base = `# ${DAY}\n\n`;
    const ours = `${base}- 09:00 **Rain:** tea ^e1\n`;
    const theirs = `${base}- 09:05 **Rain:** coffee ^e1\n- 09:06 **Rain:** see [[#^e1]] ^e2-bbbb\n`;
    const { text, renumbered } = mergeDay(base, ours, theirs, DAY);
    expect(renumbered).toEqual(new Map([['e1', 'e3']]));
    expect(text).toBe(
      `${base}- 09:00 **Rain:** tea ^e1\n- 09:05 **Rain:** coffee ^e3\n- 09:06 **Rain:** see [[#^e3]] ^e2-bbbb\n`,
    );
  });
});
