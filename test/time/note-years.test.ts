import { readdir } from 'node:fs/promises';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { toInstant } from '../../src/time/parse-instant.js';
import { dayOf, zonedDate } from '../../src/time/zoned-date.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

const ZONES = ['UTC', 'Asia/Tokyo', 'America/Los_Angeles', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'];
/** Every instant a Date can hold: from year -271821 to +275760. */
const anyInstant = fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true });

describe('the years a daily note can be named by', () => {
  it('dayOf names a day YYYY-MM-DD for any instant in the years 0000–9999 and refuses every other', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyInstant,
          fc.date({
            min: new Date('-000001-12-25T00:00:00Z'),
            max: new Date('+010000-01-05T00:00:00Z'),
            noInvalidDate: true,
          }),
        ),
        fc.constantFrom(...ZONES),
        (at, zone) => {
          const year = zonedDate(at, zone).year;
          if (year >= 0 && year <= 9999) expect(dayOf(at, zone)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          else expect(() => dayOf(at, zone)).toThrow(MemError);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['+275760-09-13T00:00:00Z', 'UTC'],
    ['-000001-06-01T00:00:00Z', 'UTC'],
    ['+010000-01-01T00:00:00Z', 'UTC'],
    ['9999-12-31T20:00:00Z', 'Asia/Tokyo'], // already 10000-01-01 there
  ])('a moment given as %s (%s) is refused where it is given', (text, zone) => {
    expect(() => toInstant(text, zone, 'at')).toThrow(
      new MemError(
        'INVALID_ARGUMENT',
        `at must fall in the years 0–9999 (a daily note is named YYYY-MM-DD), got "${text}"`,
      ),
    );
    expect(() => toInstant(new Date(text), zone, 'at')).toThrow(/at must fall in the years 0–9999/);
  });

  it('the first and last days are fine', () => {
    expect(dayOf(toInstant('0000-01-01T00:00:00Z', 'UTC', 'at')!, 'UTC')).toBe('0000-01-01');
    expect(dayOf(toInstant('9999-12-31T23:59:59Z', 'UTC', 'at')!, 'UTC')).toBe('9999-12-31');
  });

  it('remember with such a moment writes nothing, through the CLI and the library', async () => {
    const root = await makeVault({}, { config: { timezone: 'UTC', git: { autoCommit: false } } });
    const run = await mem(['--vault', root, 'remember', 'hi', '--at', '+275760-09-13T00:00:00Z']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('must fall in the years 0–9999');
    const vault = await openVault({ path: root });
    // Thrown as the call reads its options (before any promise), so caught either way.
    await expect(
      Promise.resolve().then(() => vault.remember({ text: 'hi', at: new Date(8.64e15) })),
    ).rejects.toThrow(/years 0–9999/);
    await expect(
      Promise.resolve().then(() => vault.ingest('hello there', { name: 'note.txt', at: new Date(-8.64e15) })),
    ).rejects.toThrow(/years 0–9999/);
    await vault.close();
    expect(await readdir(root)).not.toContain('episodes');
  });
});
