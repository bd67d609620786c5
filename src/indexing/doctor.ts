import { lstatSync } from 'node:fs';
import { isConflictNote } from '../core/conflict-note.js';
import { invalidUtf8Reason } from '../core/decode-utf8.js';
import { fileKind, readRegularFile } from '../core/regular-file.js';
import { basenameOf, foldPath } from '../vault/links/resolve-link.js';
import { walkVault } from '../vault/read-vault.js';
import type { VaultIndex } from './vault-index.js';

export interface DoctorReport {
  notes: number;
  unresolved: Array<{ from: string; line: number; link: string }>;
  duplicateNames: Array<{ name: string; paths: string[] }>;
  invalidFrontmatter: Array<{ path: string; message: string }>;
  /** Block ids used more than once in one note: links reach only the first (the others get `^id (2)` …) */
  duplicateBlockIds: Array<{ path: string; id: string; lines: number[] }>;
  /** Notes only partly indexed because they passed a limit (config `limits`) */
  truncated: Array<{ path: string; message: string }>;
  /** The other side's versions of notes both sides changed, left by `mem sync` for a person to merge */
  syncConflicts: string[];
  /** Notes with no links in or out */
  orphans: string[];
  /** Notes that are not readable UTF-8 text (only when the files were checked: `Vault.checkNoteFiles()`) */
  unreadable?: UnreadableNote[];
}

/** What would confuse a person or Obsidian: broken links, ambiguous names, unreadable frontmatter, islands. */
export function diagnose(index: VaultIndex): DoctorReport {
  const unresolved = index.graph
    .unresolved()
    .map((edge) => ({ from: edge.from, line: edge.link.line, link: edge.link.raw }))
    .sort((a, b) => (a.from === b.from ? a.line - b.line : a.from < b.from ? -1 : 1));
  const byName = new Map<string, string[]>();
  for (const path of index.notes.keys()) {
    // Names compare as link resolution compares them, so a duplicate here is one a bare link must choose between.
    const name = foldPath(basenameOf(path));
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const duplicateNames = [...byName.entries()]
    .filter(([, paths]) => paths.length > 1)
    .map(([name, paths]) => ({ name, paths: paths.sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const invalidFrontmatter = [...index.notes.values()]
    .flatMap((note) => note.warnings.map((message) => ({ path: note.path, message })))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const duplicateBlockIds = [...index.notes.values()]
    .flatMap((note) => {
      const lines = new Map<string, number[]>();
      for (const block of note.blocks) lines.set(block.id, [...(lines.get(block.id) ?? []), block.line]);
      return [...lines]
        .filter(([, at]) => at.length > 1)
        .map(([id, at]) => ({ path: note.path, id, lines: at }));
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const truncated = [...index.notes.values()]
    .flatMap((note) => (note.truncated ? [{ path: note.path, message: note.truncated }] : []))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const orphans = [...index.notes.keys()]
    .filter(
      (path) => index.graph.outEdges(path).every((e) => !e.to) && index.graph.backlinks(path).length === 0,
    )
    .sort();
  return {
    notes: index.notes.size,
    unresolved,
    duplicateNames,
    invalidFrontmatter,
    duplicateBlockIds,
    truncated,
    syncConflicts: [...index.notes.keys()].filter(isConflictNote).sort(),
    orphans,
  };
}

export function isHealthy(report: DoctorReport): boolean {
  return (
    report.unresolved.length === 0 &&
    report.invalidFrontmatter.length === 0 &&
    report.syncConflicts.length === 0 &&
    (report.unreadable?.length ?? 0) === 0
  );
}

/** A note mem cannot read as text, and why: it is not indexed as it is, and no command rewrites it. */
export interface UnreadableNote {
  path: string;
  reason: string;
}

/**
 * Reads every note of the vault from disk (diagnose() sees only the index) and lists those that
 * are not readable UTF-8 text: bytes in another encoding (indexed with U+FFFD in their place and
 * refused by every rewrite), notes mem may not read (permission denied), and FIFOs, sockets or
 * devices with a note's name (left out of the vault).
 */
export async function findUnreadableNotes(
  root: string,
  options: { followSymlinks?: boolean } = {},
): Promise<UnreadableNote[]> {
  const found: UnreadableNote[] = [];
  const notes: Array<{ path: string; abs: string }> = [];
  await walkVault(
    root,
    {
      followSymlinks: options.followSymlinks,
      onNotAFile: (path, abs) => {
        const info = lstatSync(abs, { throwIfNoEntry: false });
        if (info)
          found.push({ path, reason: `${fileKind(info)}, not a regular file; left out of the vault` });
      },
    },
    (path, abs) => notes.push({ path, abs }),
  );
  // A file the walk returned twice is read once; two files of one path (an NFC and an NFD name) both are.
  const read = new Set<string>();
  for (const { path, abs } of notes) {
    if (read.has(abs)) continue;
    read.add(abs);
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(abs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue; // removed since the walk
      const reason =
        code === 'EACCES' || code === 'EPERM'
          ? 'permission denied; not indexed'
          : error instanceof Error
            ? error.message
            : String(error);
      found.push({ path, reason });
      continue;
    }
    const invalid = invalidUtf8Reason(bytes);
    if (invalid)
      found.push({
        path,
        reason: `${invalid}; indexed with U+FFFD in its place, and mem will not rewrite it`,
      });
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
