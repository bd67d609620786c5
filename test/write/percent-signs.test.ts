import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { escapeComments, withoutComments } from '../../src/vault/markdown/comments.js';
import { gitVault } from '../helpers/git.js';
import { startLlmStub } from '../helpers/llm-stub.js';
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

describe('escapeComments', () => {
  it('escapes %% outside code and leaves code as written', () => {
    expect(escapeComments('no percent')).toBe('no percent');
    expect(escapeComments('50%% off `printf("%%d")` and %%%')).toBe('50%\\% off `printf("%%d")` and %\\%\\%');
    const fenced = 'before %%\n\n```\n%% literal\n```\n';
    expect(escapeComments(fenced)).toBe('before %\\%\n\n```\n%% literal\n```\n');
    // What it returns opens no comment at all.
    for (const text of ['%%', 'a %% b %% c', '%%%%%', '`%%` %%']) {
      const escaped = escapeComments(text);
      expect(withoutComments(escaped)).toBe(escaped);
    }
  });
});

describe('what a model writes holding %%', () => {
  it('is written escaped, so the rest of the note stays visible', async () => {
    const root = await gitVault({
      'profile/user.md': '---\ntitle: Rain\n---\n# Rain\n\n## Facts\n- Likes tea.\n',
      'episodes/daily/2026-11-29.md':
        '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** Got 50% off twice, so 100%\\% happy ^e1\n',
    });
    const answer = {
      operations: [
        {
          op: 'create_insight',
          path: 'insights/patterns/likes-discounts.md',
          title: 'Rain likes discounts %%',
          body: 'She was 100%% happy with a discount ([[2026-11-29#^e1]]).\n\nShe shops on sale days.',
          sources: ['[[2026-11-29#^e1]]'],
          confidence: 0.8,
        },
        {
          op: 'update_profile_fact',
          path: 'profile/user.md',
          fact: '- Loves 50%% discounts ([[2026-11-29#^e1]]).',
          sources: ['[[2026-11-29#^e1]]'],
        },
      ],
    };
    const stub = await startLlmStub(() => JSON.stringify(answer));
    try {
      const vault = await openVault({ path: root, cache: false });
      const result = await vault.reflect({ now: NOW, llmOptions: { baseURL: stub.baseURL } });
      expect(result.rejected).toEqual([]);
      expect(result.accepted.map((o) => o.op)).toEqual(['create_insight', 'update_profile_fact']);
      const insight = await readFile(join(root, 'insights/patterns/likes-discounts.md'), 'utf8');
      expect(insight).toContain('title: Rain likes discounts %%\n');
      expect(insight).toContain('# Rain likes discounts %\\%\n');
      expect(insight).toContain('100%\\% happy');
      expect(withoutComments(insight)).toBe(insight);
      const profile = await readFile(join(root, 'profile/user.md'), 'utf8');
      expect(profile).toContain('- Loves 50%\\% discounts');
      expect(vault.recall('shops on sale days', { now: NOW }).hits.map((h) => h.path)).toContain(
        'insights/patterns/likes-discounts.md',
      );
      await vault.close();
    } finally {
      await stub.close();
    }
  });
});
