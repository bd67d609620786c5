import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-11-30T12:00:00+08:00');

describe('text holding %% is written so that it opens no Obsidian comment', () => {
  it('keeps every later entry of the day visible to recall and compile', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({
      text: '双十一 50%% off, and 100%%% sure',
      speaker: 'Rain',
      at: new Date('2026-11-30T09:00:00+08:00'),
    });
    await vault.remember({
      text: 'Booked the dentist for Friday',
      speaker: 'Rain',
      at: new Date('2026-11-30T10:00:00+08:00'),
    });

    const note = await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8');
    // Every `%` that a `%` follows is escaped (`%\%`), as Obsidian reads a backslash before punctuation.
    expect(note).toContain('50%\\% off, and 100%\\%\\% sure');
    expect(note).not.toMatch(/%%/);

    const hits = vault.recall('dentist Friday', { now: NOW }).hits;
    expect(hits.map((h) => h.text).join('\n')).toContain('Booked the dentist for Friday');
    const context = vault.compile({ message: 'what did I book?', now: NOW }).markdown;
    expect(context).toContain('Booked the dentist for Friday');
    await vault.close();
  });
});
