// Notes to hold a parser's fast path to its full path: the hostile corpus, the example vault and
// the parser fixtures, each as [path, text] the way the indexer reads them (UTF-8 decoded).
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
// @ts-expect-error: a plain ES module shared with scripts/reliability.mjs
import { hostileCases } from '../fixtures/hostile/cases.mjs';

type Case = { files?: Record<string, string | Uint8Array> };

const ROOT = join(import.meta.dirname, '..', '..');

async function markdownUnder(dir: string): Promise<[string, string][]> {
  const found: [string, string][] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const abs = join(entry.parentPath, entry.name);
    found.push([relative(dir, abs), await readFile(abs, 'utf8')]);
  }
  return found;
}

export async function parseCorpus(): Promise<[string, string][]> {
  const hostile: [string, string][] = [];
  for (const c of (hostileCases as (scale: number) => Case[])(1)) {
    for (const [path, content] of Object.entries(c.files ?? {})) {
      if (!path.toLowerCase().endsWith('.md')) continue;
      hostile.push([path, typeof content === 'string' ? content : Buffer.from(content).toString('utf8')]);
    }
  }
  return [
    ...hostile,
    ...(await markdownUnder(join(ROOT, 'vault-example'))),
    ...(await markdownUnder(join(ROOT, 'test', 'fixtures', 'parse'))),
  ];
}
