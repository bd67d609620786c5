import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { decodeUtf8, invalidUtf8At } from '../../src/core/decode-utf8.js';
import { MemError } from '../../src/core/errors.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const NOW = new Date('2026-11-29T10:00:00+08:00');

/**
 * Bytes that are not UTF-8: Markdown around at least one bad sequence (Latin-1, a lone continuation,
 * overlong, a surrogate, a cut sequence …), set between line breaks so random neighbours cannot complete it.
 */
const notUtf8 = fc
  .tuple(
    fc.uint8Array({ maxLength: 40 }),
    fc.constantFrom(
      [0xe9],
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf5],
      [0xff],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    fc.uint8Array({ maxLength: 40 }),
  )
  .map(([before, bad, after]) =>
    Buffer.concat([
      Buffer.from('# Café\n\nJ’ai mangé '),
      Buffer.from(before),
      Buffer.from([0x0a, ...bad, 0x0a]),
      Buffer.from(after),
    ]),
  );

describe('a note that is not valid UTF-8', () => {
  it('invalidUtf8At agrees with the WHATWG decoder on any bytes', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        let valid = true;
        try {
          fatal.decode(bytes);
        } catch {
          valid = false;
        }
        expect(invalidUtf8At(bytes) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the first bad byte and its offset', () => {
    const bytes = Buffer.from('caf\xe9 ok', 'latin1');
    expect(() => decodeUtf8(bytes, 'insights/x.md')).toThrow(
      new MemError(
        'INVALID_ARGUMENT',
        'insights/x.md is not valid UTF-8 text (byte 0xE9 at offset 3); mem will not rewrite it',
      ),
    );
    expect(decodeUtf8(Buffer.from('\ufeffcafé'), 'x')).toBe('\ufeffcafé');
  });

  it('is refused by every command that rewrites it, and its bytes stay as they were', async () => {
    const commands: Array<[string, (vault: Awaited<ReturnType<typeof openVault>>) => Promise<unknown>]> = [
      ['note set', (vault) => vault.updateNote('insights/latin.md', { set: { importance: 0.9 } })],
      ['mv', (vault) => vault.move('insights/latin.md', 'insights/moved.md')],
      ['forget', (vault) => vault.forget('insights/latin.md')],
      ['remember', (vault) => vault.remember({ text: 'hello', at: NOW })],
    ];
    await fc.assert(
      fc.asyncProperty(notUtf8, fc.constantFrom(...commands), async (bytes, [name, run]) => {
        const path = name === 'remember' ? 'episodes/daily/2026-11-29.md' : 'insights/latin.md';
        const root = await makeVault({ 'insights/other.md': '# Other\n\nsee [[latin]]\n' });
        await mkdir(join(root, 'episodes/daily'), { recursive: true });
        await writeFile(join(root, 'insights/latin.md'), bytes);
        await writeFile(join(root, 'episodes/daily/2026-11-29.md'), bytes);
        const vault = await openVault({ path: root, cache: false });
        try {
          await expect(run(vault)).rejects.toThrow(
            /is not valid UTF-8 text \(byte 0x[0-9A-F]{2} at offset \d+\); mem will not rewrite it/,
          );
        } finally {
          await vault.close();
        }
        expect(await readFile(join(root, path))).toEqual(bytes);
      }),
      { numRuns: 24 },
    );
  });
});
