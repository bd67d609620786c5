import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const AT = new Date('2026-11-30T09:14:00+08:00');

describe('an entry written with an importance', () => {
  it('ranks by it, and its inline field shows in no snippet, compile or hit text', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    // Each statement comes after the same two unrelated entries: an entry is indexed with the words
    // of the two before it (its context), so this keeps the contexts alike too.
    for (const importance of [undefined, 0.9, 0.1]) {
      await vault.remember({ text: 'Lunch was noodles', speaker: 'Rain', at: AT });
      await vault.remember({ text: 'The weather turned cold', speaker: 'Rain', at: AT });
      await vault.remember({ text: 'The plumber comes on Tuesday', speaker: 'Rain', at: AT, importance });
    }
    const { hits } = vault.recall('plumber Tuesday', { now: AT });
    // Same text, same time, same context: only the entry's own importance tells them apart.
    expect(hits.map((h) => [h.anchor, h.parts.importance])).toEqual([
      ['^e6', 0.9],
      ['^e3', 0.4],
      ['^e9', 0.1],
    ]);
    for (const hit of hits) {
      expect(hit.text).toBe('The plumber comes on Tuesday');
      expect(hit.snippet).not.toContain('::');
    }
    const context = vault.compile({ message: 'when does the plumber come?', now: AT }).markdown;
    expect(context).toContain('The plumber comes on Tuesday');
    expect(context).not.toContain('importance::');
    await vault.close();
  });

  it('keeps ranking by it after the index cache is saved and loaded', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root });
    await vault.remember({ text: 'The plumber comes on Tuesday', speaker: 'Rain', at: AT, importance: 0.9 });
    await vault.save();
    await vault.close();
    const again = await openVault({ path: root });
    expect(again.recall('plumber', { now: AT }).hits[0]?.parts.importance).toBe(0.9);
    await again.close();
  });

  it('a field typed in the text itself is kept as text, not read as data', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({ text: 'literally [importance:: 1] here', speaker: 'Rain', at: AT });
    const [hit] = vault.recall('literally', { now: AT }).hits;
    expect(hit?.text).toBe('literally [importance:: 1] here');
    expect(hit?.parts.importance).toBe(0.4);
    await vault.close();
  });
});
