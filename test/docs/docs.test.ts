import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { between, HEADLINE, renderHeadline } from '../../bench/scale-report.mjs';
import { REPO_ROOT } from '../helpers/make-vault.js';

/** The README is what a newcomer reads in ten minutes; reference and history live in docs/. */
const README_MAX_WORDS = 2000;

const pages = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const read = (page: string) => readFileSync(join(REPO_ROOT, page), 'utf8');

/** Words as `wc -w` counts them: runs of characters that are not white space. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The page without fenced code blocks and inline code, where `[a](b)` is text, not a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(page: string): Set<string> {
  const found = new Set<string>();
  // Headings outside fenced code; code in a heading keeps its text in the anchor, as on GitHub.
  const text = read(page).replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) found.add(slug(m[1] ?? ''));
  return found;
}

/** Every relative link of a page: [text](target), ![alt](target) and <img src>, outside code. */
function links(page: string): string[] {
  const text = prose(read(page));
  const targets = [...text.matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1] ?? '',
  );
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('the README', () => {
  it(`stays under ${README_MAX_WORDS} words`, () => {
    expect(words(read('README.md'))).toBeLessThan(README_MAX_WORDS);
  });

  it('keeps the two commands of the quick start', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts['demo']).toContain('scripts/demo.mjs');
    expect(scripts['test']).toContain('vitest run');
  });
});

describe('install commands', () => {
  // Every Markdown page of the repository (examples' READMEs too) and every message in src/.
  const files = (dir: string, ends: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith(ends) && !f.split(/[\\/]/).includes('node_modules'))
      .map((f) => join(dir, f));
  const texts = [...pages, ...files('examples', '.md'), ...files('src', '.ts')];
  const pkg = JSON.parse(read('package.json'));
  const known = new Set(
    [pkg.dependencies, pkg.devDependencies, pkg.peerDependencies, pkg.optionalDependencies].flatMap((deps) =>
      Object.keys(deps ?? {}),
    ),
  );

  /** What `npm install -g X`, `npm i X`, `npx X` and `npm exec X` name, across every text. */
  function installs(): { where: string; what: string }[] {
    const found: { where: string; what: string }[] = [];
    const command =
      /\bnpm (?:install|i|add|exec)\b((?: +-{1,2}[\w-]+(?:=\S+)?)*) +([^\s`'"),;]+)|\bnpx(?: +-{1,2}[\w-]+)* +([^\s`'"),;]+)/g;
    for (const where of texts)
      for (const m of read(where).matchAll(command)) found.push({ where, what: (m[2] ?? m[3])! });
    return found;
  }

  it('name only this clone, a packed file of it, or a package the registry has (one this package depends on)', () => {
    const unknown = installs().filter(({ what }) => {
      if (what === '.' || what.startsWith('./') || what.startsWith('/') || what.endsWith('.tgz'))
        return false;
      if (what === 'mem') return false; // `npx mem` inside the clone runs its own bin
      return !known.has(what.replace(/(?<=.)@[^@/]*$/, ''));
    });
    expect(unknown).toEqual([]);
  });

  it('finds the commands it checks', () => {
    expect(installs().map((i) => i.what)).toEqual(expect.arrayContaining(['.', '@huggingface/transformers']));
  });
});

describe('links in README.md, CHANGELOG.md and docs/', () => {
  it.each(pages)('%s: every relative link points at a file that exists, and at a heading it has', (page) => {
    const broken: string[] = [];
    for (const target of links(page)) {
      const [path = '', fragment] = target.split('#');
      const file = path === '' ? join(REPO_ROOT, page) : join(REPO_ROOT, dirname(page), decodeURI(path));
      if (!existsSync(file)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      const name = relative(REPO_ROOT, file);
      if (fragment && statSync(file).isFile() && name.endsWith('.md') && !anchors(name).has(fragment))
        broken.push(`${target}: ${name} has no heading #${fragment}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (a README without any would pass for the wrong reason)', () => {
    expect(links('README.md')).toEqual(
      expect.arrayContaining(['docs/cli.md', 'bench/results/scale-query.svg']),
    );
    expect(links('docs/cli.md').length).toBeGreaterThan(3);
  });
});

describe('generated sections', () => {
  const scale = JSON.parse(read('bench/results/scale.json'));
  it.each([
    ['README.md', 'docs/'],
    ['docs/benchmarks.md', ''],
  ])(
    '%s holds the headline table of bench/results/scale.json (node bench/scale-report.mjs)',
    (page, docs) => {
      expect(between(read(page), HEADLINE)).toBe(renderHeadline(scale, docs));
    },
  );

  it('docs/reliability.md holds the markers scripts/reliability.mjs --write fills', () => {
    const page = read('docs/reliability.md');
    expect(page).toContain('<!-- reliability:start -->');
    expect(page.indexOf('<!-- reliability:end -->')).toBeGreaterThan(
      page.indexOf('<!-- reliability:start -->'),
    );
  });
});
