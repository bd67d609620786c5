import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { apiReport, forgottenExports, REPORT_FILE } from '../../scripts/api-report.mjs';

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
        'type Size = number;',
      ].join('\n'),
    );
    expect(report).not.toContain('secret');
    expect(report).not.toContain('peek');
  });

  it("shows an interface's and a type's fields with their types, so a field change changes the report", async () => {
    const source = (field: string) =>
      ["export { type Options, type Result, type Level } from './types.js';", ''].join('\n') + field;
    const types = (k: string) =>
      [
        'const LEVELS = ["week", "month"] as const;',
        'export type Level = (typeof LEVELS)[number];',
        `export interface Options { ${k}; layers: string[]; level?: Level }`,
        'export type Result = { hits: { path: string; score: number }[] };',
        '',
      ].join('\n');
    const before: string = apiReport(
      await project({ 'src/index.ts': source(''), 'src/types.ts': types('k?: number') }),
    );
    await rm(dir!, { recursive: true, force: true });
    const after: string = apiReport(
      await project({ 'src/index.ts': source(''), 'src/types.ts': types('k?: string') }),
    );
    expect(before).toContain(
      ['interface Options {', '  k?: number;', '  layers: string[];', '  level?: Level;', '}'].join('\n'),
    );
    expect(before).toContain('type Level = "month" | "week";');
    expect(before).toContain('type Result = {\n  hits: {\n    path: string;\n    score: number;\n  }[];\n};');
    expect(after).toContain('  k?: string;');
    expect(after).not.toBe(before);
  });

  it('names a type a public signature uses that the package does not export', async () => {
    const report: string = apiReport(
      await project({
        'src/index.ts': [
          'interface Hidden { a: number }',
          'export interface Shown { b: string }',
          'export function f(x: Hidden, y: Shown): Promise<Map<string, Shown>> { return null!; }',
          '',
        ].join('\n'),
      }),
    );
    expect(forgottenExports(report)).toEqual(['Hidden']);
  });

  it("names no type of the package's that it does not export", () => {
    expect(forgottenExports(readFileSync(REPORT_FILE, 'utf8'))).toEqual([]);
  });

  it('exports at most 25 runtime values, each named in docs/library.md', () => {
    const report = readFileSync(REPORT_FILE, 'utf8');
    const values = [...report.matchAll(/^(?:class|function|const) ([\w$]+)/gm)].map((m) => m[1]!);
    const library = readFileSync(join(dirname(REPORT_FILE), 'docs', 'library.md'), 'utf8');
    const undocumented = values.filter((name) => !new RegExp(`\\b${name}\\b`).test(library));
    expect(undocumented, 'document them in docs/library.md, or export them from src/internal.ts').toEqual([]);
    expect(values.length).toBeLessThanOrEqual(25);
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
