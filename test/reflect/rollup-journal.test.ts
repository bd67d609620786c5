import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const TEMPLATE = '# {{title}}\n\n## Plan\n- [ ] stretch for ten minutes\n\n## Notes\n';
const config = {
  timezone: 'Europe/Berlin',
  layout: {
    daily: { folder: 'Journal', format: 'DD.MM.YYYY', heading: 'Memory', template: 'Templates/Daily' },
  },
};

describe("a weekly rollup of the person's own journal", () => {
  it("quotes what they wrote on their days, never the daily template's unchanged text", async () => {
    const root = await makeVault(
      {
        'Templates/Daily.md': TEMPLATE,
        // Made from the template and left as it was: nothing of that day.
        'Journal/30.11.2026.md': TEMPLATE.replace('{{title}}', '30.11.2026'),
        'Journal/01.12.2026.md': `${TEMPLATE.replace('{{title}}', '01.12.2026')}Fixed the bike chain and rode to the lake.\n`,
        'Journal/03.12.2026.md': '# Thursday\n\n- 07:30 swam a kilometre\n- lunch with Ana at the harbour\n',
      },
      { config },
    );
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.rollup({
      level: 'week',
      now: new Date('2026-12-08T09:00:00+01:00'),
      dryRun: true,
    });
    const text = result.written.find((w) => w.period === '2026-W49')?.text ?? '';
    expect(text).toContain('Fixed the bike chain and rode to the lake.');
    expect(text).toContain('[[01.12.2026#Notes]]');
    expect(text).toContain('swam a kilometre');
    expect(text).not.toContain('stretch for ten minutes');
    expect(text).toContain('2 entries over 2 days');
    await vault.close();
  });
});
