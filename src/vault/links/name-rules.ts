// The one rule for when two note names are the same name, and how long a name may be: as the file
// systems vaults live on judge it, not as Linux does. APFS and HFS+ (macOS, iCloud Drive) and NTFS
// (Windows) compare names without regard to case or Unicode normalisation, so `café.md` in NFC and in
// NFD, or `dup.md` and `DUP.md`, are two files on Linux but one on a Mac: a vault synced there loses
// one of them, and on Linux mem would act on whichever spelling it found first.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The key under which names collide: NFC, then lower case (what the file systems above compare). */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase().normalize('NFC');
}

/**
 * Bytes writeAtomic adds to a file name for its temp file and the displaced copy:
 * `.` name `.` pid (≤ 7 digits) `.` 12 hex `.tmp.old`.
 */
const TEMP_NAME_BYTES = 1 + 1 + 7 + 1 + 12 + 8;

/** Longest file name (UTF-8 bytes) of a new note: 255 per component (ext4, APFS, NTFS) less the temp file's additions. */
export const MAX_NAME_BYTES = 255 - TEMP_NAME_BYTES;

/** Longest folder name (UTF-8 bytes) in a new note's path. */
export const MAX_FOLDER_BYTES = 255;

/**
 * Longest vault path (UTF-8 bytes) of a new note: the vault's own folder adds to it, Linux stops at
 * 4096 and tools that still honour Windows' old 260-character limit stop far earlier.
 */
export const MAX_PATH_BYTES = 1024;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Why a new note cannot have the vault path `rel` for its length, else undefined. */
export function nameLengthProblem(rel: string): string | undefined {
  const segments = rel.split('/');
  const name = segments.pop() ?? '';
  if (bytes(name) > MAX_NAME_BYTES)
    return `the file name is ${bytes(name)} bytes in UTF-8; a note's name may have at most ${MAX_NAME_BYTES}`;
  const folder = segments.find((s) => bytes(s) > MAX_FOLDER_BYTES);
  if (folder !== undefined)
    return `the folder name ${JSON.stringify(`${folder.slice(0, 20)}…`)} is ${bytes(folder)} bytes in UTF-8; at most ${MAX_FOLDER_BYTES}`;
  if (bytes(rel) > MAX_PATH_BYTES)
    return `the path is ${bytes(rel)} bytes in UTF-8; a note's path may have at most ${MAX_PATH_BYTES}`;
  return undefined;
}

/**
 * Entries on disk that are a twin of `rel` or of one of its folders: same key (see nameKey), other
 * spelling. The entry that is `rel` itself as stored (its NFD spelling included) is no twin, nor
 * is `except` (the note being renamed: `mv Foo.md foo.md` changes only its case). Returns vault paths.
 */
export async function twinsOnDisk(root: string, rel: string, except?: string): Promise<string[]> {
  const exceptKey = except === undefined ? undefined : except.normalize('NFC');
  const twins: string[] = [];
  let dir = root;
  let prefix = '';
  for (const segment of rel.split('/')) {
    const wanted = segment.normalize('NFC');
    const key = nameKey(segment);
    const names = await readdir(dir).catch(() => [] as string[]);
    const same = names.filter((name) => nameKey(name) === key);
    // The entry that is this segment as stored: its exact spelling first, else its NFC equal.
    const self = same.includes(segment) ? segment : same.find((name) => name.normalize('NFC') === wanted);
    for (const name of same) {
      const path = prefix + name;
      if (name !== self && path.normalize('NFC') !== exceptKey) twins.push(path);
    }
    if (self === undefined) break;
    dir = join(dir, self);
    prefix = `${prefix}${self}/`;
  }
  return twins;
}

/**
 * The names of the new notes one plan writes, claimed one at a time: a second name with the key of
 * one already claimed (`dup.md` after `DUP.md`) is refused, as the file systems above would merge them.
 */
export class PlannedNames {
  private readonly claimed = new Map<string, string>();

  /** Why `rel` cannot join the plan (a twin of a claimed path, or too long), else undefined; claims it when it can. */
  claim(rel: string): string | undefined {
    const length = nameLengthProblem(rel);
    if (length) return length;
    const key = nameKey(rel);
    const other = this.claimed.get(key);
    if (other !== undefined && other !== rel.normalize('NFC'))
      return `${rel} and ${other} differ only in case or Unicode form, and would be one file on macOS and Windows`;
    this.claimed.set(key, rel.normalize('NFC'));
    return undefined;
  }
}

/**
 * Why a new note cannot be written at `rel` for its name: too long, or a twin already on disk
 * (see twinsOnDisk); undefined when it can.
 */
export async function newNameProblem(
  root: string,
  rel: string,
  except?: string,
): Promise<string | undefined> {
  const length = nameLengthProblem(rel);
  if (length) return length;
  const twins = await twinsOnDisk(root, rel, except);
  if (twins.length > 0)
    return `${twins[0]} is already there, and differs only in case or Unicode form (one file on macOS and Windows)`;
  return undefined;
}

/**
 * Why mem cannot tell which file an existing note `rel` is: another entry on disk has its name in
 * another Unicode form (the NFC and NFD spellings of `café.md`: one vault path), and acting on one
 * could hit the other. Undefined when the name is unique.
 */
export async function twinProblem(root: string, rel: string): Promise<string | undefined> {
  // A case twin (`Foo.md` beside `foo.md`) is found by its exact name; only another Unicode form is ambiguous.
  const nfc = rel.normalize('NFC');
  const twins = (await twinsOnDisk(root, rel)).filter((twin) => {
    const form = twin.normalize('NFC');
    return nfc === form || nfc.startsWith(`${form}/`);
  });
  if (twins.length === 0) return undefined;
  return `${twins.map((t) => JSON.stringify(t)).join(', ')} on disk has the same name in another Unicode form (NFC/NFD), so mem cannot tell which file is meant; rename one of them by hand first`;
}
