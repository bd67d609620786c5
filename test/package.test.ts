import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/make-vault.js';

describe('the published package', () => {
  it('holds the built CLI, the library with its types and the templates, and nothing of src/ or test/', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      }),
    ) as [{ files: { path: string }[] }];
    const files = pack.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/cli/main.js',
        'dist/index.js',
        'dist/index.d.ts',
        'templates/vault/mem.config.json',
        'templates/page/index.html',
        'templates/page/page.mjs',
        'templates/page/page.css',
        'package.json',
        'README.md',
        'LICENSE',
      ]),
    );
    expect(files.filter((f) => /^(src|test|bench|vault-example|\.mem)\//.test(f))).toEqual([]);
  });
});
