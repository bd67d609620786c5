import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import { commitWrite } from '../git/commit-write.js';
import { isoWithOffset } from '../time/zoned-date.js';
import { layoutOf } from '../vault/layout.js';
import { withVaultLock } from '../vault/lock.js';
import { setFrontmatterKeys } from '../vault/markdown/edit-frontmatter.js';
import { resolveInVault } from '../vault/paths.js';
import { readForWrite, writeAtomic } from '../vault/write-note.js';
import { type Author, checkWrite } from '../vault/write-policy.js';
import { checkNewNotePath, checkNoTwin } from './move-note.js';
import { cleanNoteText } from './note-text.js';
import { type NoteWriteResult, rewriteNote } from './rewrite-note.js';

export interface CreateNoteInput {
  /** Vault path, e.g. `insights/tea` (`.md` is added) */
  path: string;
  /** Written as `title` and as the first heading (default: the file name) */
  title?: string;
  /** Markdown written under the title heading (sanitized as any text mem keeps) */
  body?: string;
  /** More frontmatter keys, written after `id`, `title`, `created`, `updated` (and overriding them) */
  set?: Record<string, unknown>;
  /** Creation time (default: now) */
  now?: Date;
  /** Who writes (default: the person); a model's tool may not create persona or episode notes (write-policy.ts) */
  author?: Author;
}

export interface UpdateNoteInput {
  /** Keys to set, with their new values */
  set?: Record<string, unknown>;
  /** Keys to delete */
  unset?: string[];
  /** sha256 the note must still have, when the caller read it earlier (default: the hash read here) */
  expectedHash?: string;
  /** Who writes (default: the person); see write-policy.ts */
  author?: Author;
}

export type { NoteWriteResult } from './rewrite-note.js';

/** Eight characters from a-z and 0-9, starting with a letter so YAML never reads it as a number. */
export function newNoteId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(8);
  return [...bytes].map((byte, i) => alphabet[byte % (i === 0 ? 26 : 36)]).join('');
}

/** A property name that YAML reads as written: not empty, no `:` `=` or line break, no leading marker. */
const KEY = /^[^\s#\-[\]{}:=,&*!|>'"%@`?][^:=\r\n]*$/u;

export function checkKey(key: string): string {
  if (!KEY.test(key) || key !== key.trim()) {
    throw new MemError('INVALID_ARGUMENT', `${JSON.stringify(key)} is not a property name mem can write`);
  }
  return key;
}

/**
 * Reads `key=value` as a property: the value is a YAML scalar or flow collection (`0.8` is a number,
 * `true` a boolean, `[a, b]` a list, `"007"` a string); an unquoted `[[Note]]` stays a link string.
 */
export function parseAssignment(text: string): [string, unknown] {
  const eq = text.indexOf('=');
  if (eq === -1) throw new MemError('INVALID_ARGUMENT', `${JSON.stringify(text)}: expected key=value`);
  const key = checkKey(text.slice(0, eq).trim());
  const raw = text.slice(eq + 1).trim();
  if (raw === '') {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${key}= has no value; use --unset ${key} to delete it, or ${key}='""' for ""`,
    );
  }
  if (/^!?\[\[[^[\]]*\]\]$/.test(raw)) return [key, raw];
  try {
    return [key, parse(raw, { logLevel: 'error' }) as unknown];
  } catch (error) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${key}: the value is not valid YAML (${(error as Error).message.split('\n')[0]})`,
    );
  }
}

/** Creates a note with `id`, `title`, `created`, `updated` and the given keys; refuses an existing note. */
export async function createNote(
  root: string,
  config: MemConfig,
  input: CreateNoteInput & { now: Date },
): Promise<NoteWriteResult> {
  const { abs, rel } = await checkNewNotePath(root, input.path);
  checkWrite({ author: input.author ?? 'person', action: 'create', path: rel, layout: layoutOf(config) });
  for (const key of Object.keys(input.set ?? {})) checkKey(key);
  const name = rel.slice(rel.lastIndexOf('/') + 1, -3);
  const title = input.title?.trim() || name;
  if (/[\r\n]/.test(title)) throw new MemError('INVALID_ARGUMENT', `${rel}: the title must be one line`);
  const time = isoWithOffset(input.now, config.timezone);
  const id = newNoteId();
  const keys = { id, title, created: time, updated: time, ...input.set };
  const body = input.body === undefined ? '' : cleanNoteText(input.body, rel, true);
  const text = setFrontmatterKeys(`# ${title}\n${body.trim() ? `\n${body}\n` : ''}`, keys, { label: rel });
  return withVaultLock(root, async (lock) => {
    if ((await readForWrite(abs)) !== undefined) {
      throw new MemError('EXISTS', `${rel} already exists; use mem note set to change it`);
    }
    await writeAtomic(abs, text, { expectedHash: null, label: rel });
    const commit = await commitWrite(lock, root, config, [rel], `mem: note new ${rel}`);
    return { path: rel, changed: true, id: String(keys.id), ...commit };
  });
}

/**
 * Sets and deletes frontmatter keys of one note, changing only those keys' lines: the body and
 * every other byte stay as they were. A hand edit since the read stops it with CONFLICT.
 */
export async function updateNote(
  root: string,
  config: MemConfig,
  path: string,
  input: UpdateNoteInput,
): Promise<NoteWriteResult> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.set ?? {})) changes[checkKey(key)] = value;
  for (const key of input.unset ?? []) {
    if (key in changes) throw new MemError('INVALID_ARGUMENT', `${key}: both set and unset`);
    changes[checkKey(key)] = undefined;
  }
  const names = Object.keys(changes);
  if (names.length === 0) throw new MemError('INVALID_ARGUMENT', `${path}: no keys to set or unset`);
  const { abs, rel } = await resolveInVault(root, path, { mustExist: true });
  checkWrite({
    author: input.author ?? 'person',
    action: 'frontmatter',
    path: rel,
    layout: layoutOf(config),
  });
  await checkNoTwin(root, rel);
  const message = `mem: note set ${rel} ${names.join(', ')}`;
  return rewriteNote(root, config, {
    abs,
    rel,
    message,
    expectedHash: input.expectedHash,
    change: (text) => setFrontmatterKeys(text, changes, { label: rel }),
  });
}
