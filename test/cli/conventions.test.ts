// Small conventions a newcomer meets in the first hour (issue 32, item 5): `mem search` is recall,
// compile says what the document cost on stderr, `show` of a day keeps its times and speakers.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const DAY = [
  '---\ndate: 2026-11-20\n---\n# 2026-11-20\n',
  '- 09:00 **Rain:** Dentist appointment moved to Thursday at 4 ^e1',
  '- 09:01 **小满:** Noted, the dentist on Thursday. ^e2',
  '- 12:30 **Rain:** I want new trail shoes before the race,',
  '  the old ones are worn through ^e3',
  '',
].join('\n');
const NOW = '2026-11-21T10:00:00+08:00';

const vault = () => makeVault({ 'episodes/daily/2026-11-20.md': DAY, 'insights/tea.md': '# Tea\nOolong.\n' });

describe('newcomer conventions', () => {
  it('mem search is recall: the same options, the same answer, and its own --help', async () => {
    const root = await vault();
    const args = ['trail shoes', '--now', NOW, '-k', '3', '--json'];
    const search = await mem(['--vault', root, '--no-server', 'search', ...args]);
    const recall = await mem(['--vault', root, '--no-server', 'recall', ...args]);
    expect(search.code).toBe(0);
    expect(search.stdout).toBe(recall.stdout);
    expect(JSON.parse(search.stdout).hits[0]).toMatchObject({ anchor: '^e3' });
    const help = await mem(['search', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mem recall|search [options] [query]');
    expect(help.stdout).toContain('--from <date>');
  });

  it('mem compile prints used/budget tokens on stderr, and the document alone on stdout', async () => {
    const root = await vault();
    const args = ['--vault', root, '--no-server', 'compile', 'dentist', '--now', NOW, '--budget', '900'];
    const plain = await mem(args);
    const json = JSON.parse((await mem([...args, '--json'])).stdout) as { markdown: string; used: number };
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(json.markdown.endsWith('\n') ? json.markdown : `${json.markdown}\n`);
    expect(plain.stderr).toBe(`mem: ${json.used}/900 tokens (o200k_base)\n`);
  });

  it('mem serve --default-vault is for a server of one vault per user', async () => {
    const root = await vault();
    const out = await mem(['--vault', root, 'serve', '--default-vault', '--port', '0']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--default-vault is for --vaults/);
  });

  it('mem show of a day keeps each entry’s time and speaker', async () => {
    const root = await vault();
    const show = await mem(['--vault', root, 'show', 'episodes/daily/2026-11-20.md']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      [
        '- 09:00 **Rain:** Dentist appointment moved to Thursday at 4 ^e1',
        '- 09:01 **小满:** Noted, the dentist on Thursday. ^e2',
        '- 12:30 **Rain:** I want new trail shoes before the race,\n  the old ones are worn through ^e3',
      ].join('\n'),
    );
    // A note that is no day shows as before.
    expect((await mem(['--vault', root, 'show', 'insights/tea.md'])).stdout).toContain('Oolong.');
  });
});
