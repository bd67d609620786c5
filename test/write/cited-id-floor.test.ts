import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

// An entry's id is above every id another note cites in its day, however the citations came: the
// highest cited id is kept between adds (finding it decodes every note linking to the day), so
// each way a citation can appear between two adds must be seen by the next one.

const AT = new Date('2026-12-02T09:00:00Z');
const DAY = 'episodes/daily/2026-12-02.md';

type Step =
  | { kind: 'add'; cite: number | null }
  | { kind: 'cite'; n: number; id: number; how: 'file' | 'api' | 'edit' }
  | { kind: 'uncite'; n: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), cite: fc.option(fc.integer({ min: 1, max: 60 })) }),
  fc.record({
    kind: fc.constant('cite' as const),
    n: fc.integer({ min: 0, max: 2 }),
    id: fc.integer({ min: 1, max: 60 }),
    how: fc.constantFrom('file' as const, 'api' as const, 'edit' as const),
  }),
  fc.record({ kind: fc.constant('uncite' as const), n: fc.integer({ min: 0, max: 2 }) }),
);

/** The highest id any other note of the vault cites in the day, read from the files. */
async function citedOnDisk(root: string): Promise<number> {
  let top = 0;
  for (const name of await readdir(join(root, 'insights')).catch(() => [])) {
    const text = await readFile(join(root, 'insights', name), 'utf8');
    for (const [, n] of text.matchAll(/\[\[2026-12-02#\^e(\d+)\]\]/g)) top = Math.max(top, Number(n));
  }
  return top;
}

describe('an entry of a day', () => {
  it('takes an id above every id other notes cite in the day, whether cited by a file, a write or an edit since the last add', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const root = await makeVault({}, { config: { timezone: 'UTC' } });
        await mkdir(join(root, 'insights'));
        const vault = await openVault({ path: root, cache: false });
        try {
          let n = 0;
          for (const s of [...steps, { kind: 'add', cite: null } as const]) {
            const path = join(root, `insights/cites-${'n' in s ? s.n : 0}.md`);
            if (s.kind === 'add') {
              const floor = await citedOnDisk(root);
              const text = `entry ${n++}${s.cite === null ? '' : ` after [[#^e${s.cite}]]`}`;
              const { blockId } = await vault.remember({ text, at: AT, commit: false });
              expect(
                Number(/^e(\d+)$/.exec(blockId)?.[1]),
                `${blockId} after citations up to e${floor}`,
              ).toBeGreaterThan(floor);
            } else if (s.kind === 'uncite') {
              await rm(path, { force: true });
              await vault.refresh();
            } else {
              const line = `Said on [[2026-12-02#^e${s.id}]].`;
              const before = await readFile(path, 'utf8').catch(() => undefined);
              if (s.how === 'api' && before === undefined)
                await vault.createNote({ path: `insights/cites-${s.n}`, body: line });
              else if (s.how === 'edit' && before !== undefined) {
                // A person's edit that changes a citation in place: the note keeps as many links.
                await writeFile(path, before.replace(/\^e\d+/, `^e${s.id}`));
                await vault.refresh();
              } else {
                await writeFile(path, `${before ?? '# Cites\n'}\n${line}\n`);
                await vault.refresh();
              }
            }
          }
          // Every entry made it into the day.
          expect((await readFile(join(root, DAY), 'utf8')).match(/^- \d\d:\d\d entry /gm)).toHaveLength(n);
        } finally {
          await vault.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 180_000);
});
