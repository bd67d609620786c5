// `mem config get|set|list`: one key of `mem.config.json` by its dotted name, checked against the
// config schema (core/config/config.ts, the one home of the keys), written whole or not at all.
import { join } from 'node:path';
import * as z from 'zod/v4';
import {
  CONFIG_FILE,
  configSchema,
  type MemConfig,
  readConfigJson,
  resolveConfig,
} from '../core/config/config.js';
import { closestKey } from '../core/config/schema-issues.js';
import { MemError } from '../core/errors.js';
import { commitWrite, type WriteCommit } from '../git/commit-write.js';
import { layoutOf } from '../vault/layout.js';
import { withVaultLock } from '../vault/lock.js';
import { writeAtomic } from '../vault/write-note.js';
import { clearProposedConfig, readProposedConfig } from '../write/sync/sync-trust.js';

export interface ConfigEntry {
  /** Dotted key, e.g. `recall.weights.graph` */
  key: string;
  /** The effective value (undefined: unset, the key has no default) */
  value: unknown;
  /** Not set in mem.config.json: the schema's default is in effect */
  isDefault: boolean;
  description?: string;
}

export interface ConfigSetResult extends WriteCommit {
  key: string;
  /** The value before (effective) and after */
  previous: unknown;
  value: unknown;
  /** Whether the file changed (setting a key to the value the file already holds writes nothing) */
  changed: boolean;
}

type AnySchema = z.core.$ZodType;

/** The schema under `default`, `prefault` and `optional`. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: AnySchema };
    if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional') && def.innerType)
      current = def.innerType;
    else return current;
  }
}

function describe(schema: AnySchema): string | undefined {
  const meta = z.globalRegistry.get(schema as z.ZodType) as { description?: string } | undefined;
  return meta?.description ?? (schema as { description?: string }).description;
}

/** Every settable key, dotted, with its schema: a group's keys, never the group itself. */
function leafKeys(
  shape: Record<string, AnySchema> = configSchema.shape,
  prefix = '',
): { key: string; schema: AnySchema }[] {
  return Object.entries(shape).flatMap(([name, schema]) => {
    const inner = unwrap(schema);
    const def = inner._zod.def as { type: string; shape?: Record<string, AnySchema> };
    return def.type === 'object' && def.shape
      ? leafKeys(def.shape, `${prefix}${name}.`)
      : [{ key: `${prefix}${name}`, schema }];
  });
}

/** The dotted names of every key `mem config set` takes. */
export function configKeys(): string[] {
  return leafKeys().map((k) => k.key);
}

/**
 * The path of a dotted key in mem.config.json, or undefined when the schema has no such key. A key
 * inside a setting whose keys are the person's own (a record: `speakers.user`) is one key below
 * it, whatever it holds (`speakers.Dr. Who` names "Dr. Who").
 */
function keyPath(key: string): string[] | undefined {
  const leaves = leafKeys();
  if (leaves.some((leaf) => leaf.key === key)) return key.split('.');
  for (const { key: leaf, schema } of leaves) {
    if (!key.startsWith(`${leaf}.`) || key.length === leaf.length + 1) continue;
    if ((unwrap(schema)._zod.def as { type: string }).type === 'record')
      return [...leaf.split('.'), key.slice(leaf.length + 1)];
  }
  return undefined;
}

/** A key the schema does not have: refused, naming the key it most likely meant. */
function unknownKey(key: string): MemError {
  const keys = configKeys();
  const leaf = key.split('.').pop() ?? key;
  const suggestion = closestKey(key, keys) ?? keys.find((k) => k.split('.').pop() === leaf);
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
  return new MemError(
    'INVALID_ARGUMENT',
    `unknown config key "${key}"${hint}; \`mem config list\` shows them all`,
  );
}

const get = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>(
    (node, name) =>
      node !== null && typeof node === 'object' && !Array.isArray(node)
        ? (node as Record<string, unknown>)[name]
        : undefined,
    value,
  );

/** mem.config.json as written, `{}` when there is none. */
async function readRaw(root: string): Promise<{ raw: Record<string, unknown>; exists: boolean }> {
  const raw = await readConfigJson(root);
  if (raw === undefined) return { raw: {}, exists: false };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: expected a JSON object`);
  return { raw: raw as Record<string, unknown>, exists: true };
}

/** Removes the groups along `path` that the removal of their last key left empty, innermost first. */
function pruneEmptyGroups(raw: Record<string, unknown>, path: string[]): void {
  for (let depth = path.length; depth > 0; depth--) {
    const parent = depth === 1 ? raw : (get(raw, path.slice(0, depth - 1)) as Record<string, unknown>);
    const name = path[depth - 1] as string;
    const group = parent[name];
    if (group && typeof group === 'object' && Object.keys(group).length === 0) delete parent[name];
    else return;
  }
}

/** Every key with its effective value, in the schema's order; `isDefault` where the file sets none. */
export async function listConfig(root: string): Promise<ConfigEntry[]> {
  const { raw } = await readRaw(root);
  const config = resolveConfig(raw);
  return leafKeys().map(({ key, schema }) => {
    const path = key.split('.');
    const description = describe(schema) ?? describe(unwrap(schema));
    return {
      key,
      value: get(config, path),
      isDefault: get(raw, path) === undefined,
      ...(description ? { description } : {}),
    };
  });
}

/** One key's effective value; a group's name (`recall.weights`) gives the group. */
export async function getConfig(root: string, key: string): Promise<unknown> {
  const { raw } = await readRaw(root);
  const config = resolveConfig(raw);
  const known = configKeys();
  const path = keyPath(key);
  if (path) return get(config, path);
  if (!known.some((k) => k.startsWith(`${key}.`))) throw unknownKey(key);
  return get(config, key.split('.'));
}

/** What `mem config set` does with the text it is given: JSON when it parses, else the text itself. */
export function parseConfigValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sets one key in mem.config.json and commits it like any mem write (when the vault is in git and
 * `git.autoCommit` is on). A value the schema refuses leaves the file as it was (exit 2).
 */
export async function setConfig(root: string, key: string, value: unknown): Promise<ConfigSetResult> {
  return changeConfig(root, key, { value });
}

/** Removes one key from mem.config.json (its default applies again), committed like `setConfig`. */
export async function unsetConfig(root: string, key: string): Promise<ConfigSetResult> {
  return changeConfig(root, key, undefined);
}

export interface AcceptedConfig {
  /** The remote commit that proposed the values, or undefined when nothing waited */
  from?: string;
  /** What was applied (accept) or dropped (refuse), by key; null: unset */
  values: Record<string, unknown>;
  /** One result per key applied, in order (empty for a refusal) */
  results: ConfigSetResult[];
}

/**
 * Applies the model, embeddings and hook settings a remote proposed at `mem sync` (they were kept
 * out of the merge: see write/sync/sync-trust.ts), each committed like `setConfig`; with `refuse`, drops
 * the proposal and keeps this device's values.
 */
export async function acceptProposedConfig(
  root: string,
  options: { refuse?: boolean } = {},
): Promise<AcceptedConfig> {
  const proposed = await readProposedConfig(root);
  if (!proposed) return { values: {}, results: [] };
  const results: ConfigSetResult[] = [];
  if (!options.refuse)
    for (const [key, value] of Object.entries(proposed.values))
      results.push(value === null ? await unsetConfig(root, key) : await setConfig(root, key, value));
  await clearProposedConfig(root);
  return { from: proposed.from, values: proposed.values, results };
}

/** `to` undefined: the key is removed (and a group it leaves empty with it). */
async function changeConfig(
  root: string,
  key: string,
  to: { value: unknown } | undefined,
): Promise<ConfigSetResult> {
  const path = keyPath(key);
  if (!path) throw unknownKey(key);
  return withVaultLock(root, async (lock) => {
    const { raw, exists } = await readRaw(root);
    if (!exists)
      throw new MemError('NO_VAULT', `no ${CONFIG_FILE} in ${root}; run \`mem init\` to make it a vault`);
    const before = resolveConfig(raw);
    const next = structuredClone(raw);
    let node = next;
    for (const name of path.slice(0, -1)) {
      const child = node[name];
      if (child === null || typeof child !== 'object' || Array.isArray(child)) node[name] = {};
      node = node[name] as Record<string, unknown>;
    }
    const leaf = path[path.length - 1] as string;
    const changed = to ? JSON.stringify(node[leaf]) !== JSON.stringify(to.value) : leaf in node;
    if (to) node[leaf] = to.value;
    else {
      delete node[leaf];
      pruneEmptyGroups(next, path.slice(0, -1));
    }
    let after: MemConfig;
    try {
      after = resolveConfig(next);
      // What the schema alone cannot check: a date format that names one day, a folder per layer.
      layoutOf(after);
    } catch (error) {
      if (error instanceof MemError && error.code === 'INVALID_CONFIG')
        throw new MemError(
          'INVALID_ARGUMENT',
          `${error.message.replace(`${CONFIG_FILE}: `, '')}; ${CONFIG_FILE} is unchanged`,
        );
      throw error;
    }
    const result = { key, previous: get(before, path), value: get(after, path), changed };
    if (!changed)
      return {
        ...result,
        committed: false,
        reason: to ? 'the value was already set' : 'the key was not set',
      };
    await writeAtomic(join(root, CONFIG_FILE), `${JSON.stringify(next, null, 2)}\n`);
    // The setting in force when the command ran decides: turning git.autoCommit off is itself committed.
    const commit = await commitWrite(
      lock,
      root,
      before,
      [CONFIG_FILE],
      `mem: config ${to ? 'set' : 'unset'} ${key}`,
    );
    return { ...result, ...commit };
  });
}
