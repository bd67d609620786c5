import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { boundNote, DEFAULT_LIMITS } from '../../src/indexing/bound-note.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const limits = { maxNoteChars: 50_000, maxLineChars: 1000, maxLinksPerNote: 10 };
const LONG = `# Long\n\nstart ${'字'.repeat(100_000)} hiddenword\n`;
const LINKS = `# Links\n\n${Array.from({ length: 50 }, (_, i) => `[[Target ${i}]]`).join(' ')}\n`;

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('limits on the work one note costs the indexer', () => {
  it('a long line is indexed up to maxLineChars, too many links up to maxLinksPerNote, and doctor names the files', async () => {
    const root = await makeVault(
      { 'insights/long.md': LONG, 'insights/links.md': LINKS, 'insights/plain.md': '# Plain\n\nstart\n' },
      { config: { timezone: 'UTC', limits } },
    );
    const vault = await openVault({ path: root, cache: false });

    expect(vault.links('insights/links').length).toBe(10);
    const report = vault.doctor();
    expect(report.truncated).toEqual([
      {
        path: 'insights/links.md',
        message: 'insights/links.md: only part was indexed: 50 links (limits.maxLinksPerNote is 10)',
      },
      {
        path: 'insights/long.md',
        message:
          'insights/long.md: only part was indexed: 1 line(s) up to 100017 characters long (limits.maxLineChars is 1000)',
      },
    ]);
    expect((await vault.recall('start')).hits.map((h) => h.path).sort()).toEqual([
      'insights/long.md',
      'insights/plain.md',
    ]);
    expect((await vault.recall('hiddenword')).hits).toEqual([]);
    const out = await mem(['--vault', root, 'doctor']);
    expect(out.stdout).toContain(
      'partly indexed (over a limit): 2\n  insights/links.md: only part was indexed',
    );
  });

  it('cuts a note at maxNoteChars and leaves a note within the limits as it is', () => {
    expect(boundNote('a.md', 'x\n'.repeat(10), DEFAULT_LIMITS)).toEqual({
      text: 'x\n'.repeat(10),
      reason: undefined,
    });
    const cut = boundNote('a.md', 'x\n'.repeat(100), { ...DEFAULT_LIMITS, maxNoteChars: 50 });
    expect(cut.text.length).toBe(50);
    expect(cut.reason).toBe('a.md: only part was indexed: 200 characters (limits.maxNoteChars is 50)');
  });
});
