import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { internalsOf, MINISEARCH_VERSION } from '../../src/indexing/minisearch-internals.js';
import { REPO_ROOT } from '../helpers/make-vault.js';

const fresh = () => new MiniSearch<object>({ fields: ['text'] });

describe('MiniSearch internals guard', () => {
  it('package.json pins exactly the version the guard was written for, and that one is installed', async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(pkg.dependencies.minisearch).toBe(MINISEARCH_VERSION);
    const installed = JSON.parse(
      await readFile(join(REPO_ROOT, 'node_modules/minisearch/package.json'), 'utf8'),
    );
    expect(installed.version).toBe(MINISEARCH_VERSION);
  });

  it("accepts the installed MiniSearch's state", () => {
    const search = fresh();
    search.add({ id: 'a', text: 'tokyo' });
    expect(internalsOf(search)._documentCount).toBe(1);
  });

  it.each([
    ['_documentIds', (s: Record<string, unknown>) => delete s['_documentIds']],
    ['_idToShortId', (s: Record<string, unknown>) => (s['_idToShortId'] = {})],
    ['_fieldLength', (s: Record<string, unknown>) => delete s['_fieldLength']],
    ['_storedFields', (s: Record<string, unknown>) => (s['_storedFields'] = [])],
    ['_index._tree', (s: Record<string, unknown>) => (s['_index'] = { _prefix: '' })],
    ['_documentCount', (s: Record<string, unknown>) => (s['_documentCount'] = '1')],
    ['_nextId', (s: Record<string, unknown>) => delete s['_nextId']],
    ['_avgFieldLength', (s: Record<string, unknown>) => (s['_avgFieldLength'] = new Map())],
  ])('names the private field %s when an upgrade renamed or retyped it', (field, change) => {
    const search = fresh();
    change(search as unknown as Record<string, unknown>);
    expect(() => internalsOf(search)).toThrow(
      `the installed minisearch is not the version memvault was built for (${MINISEARCH_VERSION}): its private field ${field} is missing or of another type. Install minisearch@${MINISEARCH_VERSION}`,
    );
  });

  it('names every field that is off at once', () => {
    const search = fresh() as unknown as Record<string, unknown>;
    delete search['_nextId'];
    delete search['_documentIds'];
    expect(() => internalsOf(search as unknown as MiniSearch<object>)).toThrow(
      /private fields _documentIds, _nextId are missing/,
    );
  });
});
