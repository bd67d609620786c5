// Every public Vault method, given arguments of the wrong type by a JavaScript caller (no compiler
// in the way), refuses them with INVALID_ARGUMENT naming what it expected, and writes nothing: never
// a TypeError from deep inside, never half a write. The verbs are read from Vault's prototype, so a
// verb added later fails here until its parameters are declared below.
import { afterEach, describe, expect, it } from 'vitest';
import { openVault, Vault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { cleanupVaults, makeVault, snapshotVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

/**
 * What a parameter takes. `input` is an object with a required field (compile's `message`,
 * remember's `text`, createNote's `path`), which no value below has.
 */
type Kind =
  | 'string'
  | 'string?'
  | 'object'
  | 'object?'
  | 'input'
  | 'number'
  | 'function'
  | 'function?'
  | 'paths';

const PARAMETERS: Record<string, Kind[]> = {
  refreshPaths: ['paths'],
  onIndexChange: ['function'],
  watch: ['object?'],
  whenIdle: ['number'],
  note: ['string'],
  noteToWrite: ['string'],
  inLayout: ['string'],
  linkText: ['string'],
  links: ['string'],
  backlinks: ['string'],
  recall: ['string', 'object?'],
  recallAsync: ['string', 'object?'],
  embed: ['function?'],
  compile: ['input'],
  compileAsync: ['input'],
  remember: ['input'],
  createNote: ['input'],
  updateNote: ['string', 'object'],
  editNote: ['string', 'object', 'object?'],
  move: ['string', 'string', 'object?'],
  forget: ['string', 'object?'],
  forgetStale: ['object?'],
  ingest: ['string', 'object'],
  importHistory: ['string', 'object'],
  startExchanges: ['object?'],
  addExchange: ['object'],
  reflect: ['object?'],
  rollup: ['object?'],
  startAutoReflect: ['object?'],
  sync: ['object?'],
  startSync: ['function?'],
  history: ['string'],
  undo: ['object?'],
  diff: ['string?'],
};

/** Methods that take no argument: called with the same values all the same, which they must ignore. */
const NO_ARGUMENTS = [
  'paths',
  'refresh',
  'save',
  'saveIfStale',
  'embeddingsHealth',
  'writerHealth',
  'reflectStatus',
  'syncState',
  'doctor',
  'checkNoteFiles',
];

/** On the prototype but not called here, with the reason. */
const NOT_CALLED: Record<string, string> = {
  constructor: 'private: a Vault is made by openVault()',
  close: 'takes no argument, and ends the vault: each verb below closes its vault itself afterwards',
  instants: 'private (TypeScript): the moments helper the verbs call',
  withNow: 'private (TypeScript): the moments helper the verbs call',
};

/** A note of the vault: a ref that resolves, so a refused second argument is refused before a write. */
const MEI = 'people/Mei';

const FIRST: unknown[] = [undefined, null, 5, [], {}, { now: 'not a time' }, 'x', MEI];
const SECOND: unknown[] = [undefined, 5, 'x', {}];

/** A few more of the wrong kinds, drawn from a seed so a failure runs again the same. */
function extraValues(seed: number): unknown[] {
  const next = seeded(seed);
  return [next() < 0.5, Math.floor(next() * 1000) - 500, Symbol(`s${seed}`), [String(next())], Number.NaN];
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'object':
      return isObject(value);
    case 'object?':
      return value === undefined || isObject(value);
    case 'input':
      return false;
    case 'number':
      return typeof value === 'number' && !Number.isNaN(value);
    case 'function':
      return typeof value === 'function';
    case 'function?':
      return value === undefined || typeof value === 'function';
    case 'paths':
      return Array.isArray(value) && value.every((path) => typeof path === 'string');
  }
}

function show(value: unknown): string {
  if (typeof value === 'symbol') return value.toString();
  if (Number.isNaN(value)) return 'NaN';
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

const verbs = Object.getOwnPropertyNames(Vault.prototype).filter(
  (name) => typeof Object.getOwnPropertyDescriptor(Vault.prototype, name)?.value === 'function',
);

afterEach(cleanupVaults);

describe('Vault methods given arguments of the wrong type', () => {
  it('knows every method of Vault (a new verb must declare its parameters here)', () => {
    const known = [...Object.keys(PARAMETERS), ...NO_ARGUMENTS, ...Object.keys(NOT_CALLED)];
    expect(verbs.filter((name) => !known.includes(name))).toEqual([]);
    expect(known.filter((name) => !verbs.includes(name))).toEqual([]);
  });

  const called = verbs.filter((name) => !(name in NOT_CALLED));
  it.each(called)('%s refuses them with INVALID_ARGUMENT and writes nothing', async (verb) => {
    const kinds = PARAMETERS[verb] ?? [];
    const root = await makeVault({
      'people/Mei.md': '---\ntitle: Mei\n---\n# Mei\n\nLikes [[Tokyo]].\n',
      'places/Tokyo.md': '# Tokyo\n\nA city. See [[Mei]].\n',
    });
    const vault = await openVault({ path: root, onNotice: () => {} });
    const method = Reflect.get(vault, verb) as (...args: unknown[]) => unknown;
    const seed = [...verb].reduce((sum, c) => sum * 31 + c.charCodeAt(0), 7) >>> 0;
    const firsts = [...FIRST, ...extraValues(seed)];
    const problems: string[] = [];
    try {
      for (const a of firsts)
        for (const b of SECOND) {
          const args = [a, b];
          const refused = kinds.some((kind, i) => !fits(kind, args[i]));
          const call = `${verb}(${show(a)}, ${show(b)})`;
          const before = refused ? await snapshotVault(root) : undefined;
          let outcome: unknown;
          try {
            await method.apply(vault, args);
            outcome = 'ok';
          } catch (error) {
            outcome = error;
          }
          if (outcome !== 'ok' && !(outcome instanceof MemError)) {
            problems.push(`${call} threw ${String(outcome)}`);
          } else if (refused) {
            if (!(outcome instanceof MemError) || outcome.code !== 'INVALID_ARGUMENT')
              problems.push(
                `${call} was not refused: ${outcome instanceof MemError ? outcome.code : outcome}`,
              );
            else if (!/must (be|fall)/.test(outcome.message))
              problems.push(`${call}: "${outcome.message}" does not say what was expected`);
            if (JSON.stringify(await snapshotVault(root)) !== JSON.stringify(before))
              problems.push(`${call} changed the vault's files`);
          }
        }
    } finally {
      await vault.close();
    }
    expect(problems).toEqual([]);
  });
});
