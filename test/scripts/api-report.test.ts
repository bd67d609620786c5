import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { apiReport, REPORT_FILE } from '../../scripts/api-report.mjs';

let dir: string | undefined;

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A package of its own: tsconfig.build.json and src/index.ts re-exporting `files`. */
async function project(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'mem-api-report-'));
  const tsconfig = {
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['src'],
  };
  await writeFile(join(dir, 'tsconfig.build.json'), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('the API report (api-report.md)', () => {
  it('matches the exports of src/index.ts', () => {
    const committed = readFileSync(REPORT_FILE, 'utf8');
    expect(apiReport(), 'public API changed: run `npm run api-report` and commit the diff').toBe(committed);
  });

  it('lists public members with their signatures, and leaves private ones out', async () => {
    const root = await project({
      'src/index.ts': "export { Box, openBox, type Size } from './box.js';\n",
      'src/box.ts': [
        'export type Size = number;',
        'export class Box {',
        '  readonly label: string = "";',
        '  private secret = 1;',
        '  private constructor() {}',
        '  static make(size?: Size): Box { return new Box(); }',
        '  get empty(): boolean { return true; }',
        '  put(item: string, count = 1): number { return count; }',
        '  private peek(): void {}',
        '}',
        'export function openBox(): Box { return Box.make(); }',
        '',
      ].join('\n'),
    });
    const report: string = apiReport(root);
    expect(report).toContain(
      [
        'class Box {',
        '  private constructor',
        '  static make(size?: Size): Box',
        '  readonly empty: boolean',
        '  readonly label: string',
        '  put(item: string, count?: number): number',
        '}',
        'function openBox(): Box',
        'type Size',
      ].join('\n'),
    );
    expect(report).not.toContain('secret');
    expect(report).not.toContain('peek');
  });

  it('changes when a signature does', async () => {
    const before: string = apiReport(
      await project({ 'src/index.ts': 'export function f(a: string): void {}\n' }),
    );
    await rm(dir!, { recursive: true, force: true });
    const after: string = apiReport(
      await project({ 'src/index.ts': 'export function f(a: string, b?: number): void {}\n' }),
    );
    expect(before).toContain('function f(a: string): void');
    expect(after).toContain('function f(a: string, b?: number): void');
  });
});
