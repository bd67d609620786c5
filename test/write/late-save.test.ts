import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/core/config/config.js';
import { remember } from '../../src/write/remember.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const DAY = 'episodes/daily/2026-11-30.md';
const at = new Date('2026-11-30T12:00:00+08:00');

describe('an editor that saves its older copy after an append was confirmed', () => {
  it.each(['in place', 'by rename'])(
    'saved %s: the next append puts the dropped entry back, once',
    async (how) => {
      const root = await makeVault(
        { [DAY]: '# 2026-11-30\n\n' },
        { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } },
      );
      const config = await loadConfig(root);
      const file = join(root, DAY);
      // The editor reads the note, then stalls past the append's confirming looks (under load).
      const stale = await readFile(file, 'utf8');
      const first = await remember(root, config, { text: 'first', speaker: 'A', at });
      if (how === 'in place') await writeFile(file, `${stale}hand edit\n`);
      else {
        await writeFile(`${file}.swp`, `${stale}hand edit\n`);
        const { rename } = await import('node:fs/promises');
        await rename(`${file}.swp`, file);
      }
      const second = await remember(root, config, { text: 'second', speaker: 'A', at });

      const lines = (await readFile(file, 'utf8')).split('\n');
      expect(lines.filter((l) => l.includes('**A:** first'))).toEqual(first.lines);
      expect(lines.filter((l) => l.includes('**A:** second'))).toEqual(second.lines);
      expect(lines).toContain('hand edit');
    },
  );

  it('a line deleted by hand more than 10 s after it was written stays deleted', async () => {
    const root = await makeVault(
      { [DAY]: '# 2026-11-30\n\n' },
      { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } },
    );
    const config = await loadConfig(root);
    const file = join(root, DAY);
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-30T04:00:00Z') });
    try {
      await remember(root, config, { text: 'regretted', speaker: 'A', at });
      vi.setSystemTime(new Date('2026-11-30T04:00:11Z'));
      await writeFile(file, '# 2026-11-30\n\n');
      const next = await remember(root, config, { text: 'next', speaker: 'A', at });
      expect(await readFile(file, 'utf8')).toBe(`# 2026-11-30\n\n${next.lines[0]}\n`);
    } finally {
      vi.useRealTimers();
    }
  });
});
