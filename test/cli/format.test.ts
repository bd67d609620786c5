import { afterAll, describe, expect, it } from 'vitest';
import { terminalText } from '../../src/cli/format.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

/** What a terminal would act on: C0 but tab/newline, DEL, C1, BiDi controls, lone surrogates. */
const ACTS =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('terminal output', () => {
  it('shows every control, BiDi and lone-surrogate character visibly, and keeps all other text', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      const shown = terminalText(`a${c}b`);
      expect(ACTS.test(shown)).toBe(false);
      if (!ACTS.test(`a${c}b`)) expect(shown).toBe(`a${c}b`);
    }
    expect(terminalText('\x1b]0;pwned\x07 \u202eevil\n\tok 😀')).toBe('␛]0;pwned␇ <U+202E>evil\n\tok 😀');
  });

  it('recall and notes show print no ESC from a note a person or a tool wrote', async () => {
    const root = await makeVault({
      'insights/tea.md': '# Tea \x1b[2J\n\nRain likes oolong \x1b]0;pwned\x07 tea \u202eevil\n',
    });
    const recall = await mem(['recall', 'oolong'], { cwd: root });
    expect(recall.code).toBe(0);
    expect(recall.stdout).toContain('Rain likes oolong ␛]0;pwned␇ tea <U+202E>evil');
    const show = await mem(['show', 'insights/tea'], { cwd: root });
    for (const out of [recall.stdout, show.stdout]) expect(ACTS.test(out)).toBe(false);
  });
});
