/**
 * Link resolution exactly as Obsidian does it (reverse-engineered from its `getLinkpathDest`),
 * so a vault means the same thing in memvault and in Obsidian. See OBSIDIAN.md, "Links".
 */

/** How paths are compared: case-insensitive like Obsidian, and NFC so NFD (macOS) and NFC names match. */
export function foldPath(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

export function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The folder part of a vault path ('' at the top). */
export function dirnameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** Every file of the vault that a link can point to, by folded file name (extension included). */
export class PathIndex {
  /**
   * Folded file name → its one path, or its paths in the order added when there are more: most
   * names are one file's, and an array for each was a third of what the index held (at 100,000
   * notes, 14 MiB a process kept after its first new note).
   */
  private readonly byName = new Map<string, string | string[]>();
  private readonly all = new Set<string>();

  /** Adds a vault path; returns false when it was already there. */
  add(path: string): boolean {
    if (this.all.has(path)) return false;
    this.all.add(path);
    const name = foldPath(basenameOf(path));
    const known = this.byName.get(name);
    if (known === undefined) this.byName.set(name, path);
    else if (typeof known === 'string') this.byName.set(name, [known, path]);
    else known.push(path);
    return true;
  }

  /** Removes a vault path; returns false when it was not there. */
  remove(path: string): boolean {
    if (!this.all.delete(path)) return false;
    const name = foldPath(basenameOf(path));
    const rest = this.candidates(name).filter((p) => p !== path);
    if (rest.length > 1) this.byName.set(name, rest);
    else if (rest.length === 1) this.byName.set(name, rest[0] as string);
    else this.byName.delete(name);
    return true;
  }

  has(path: string): boolean {
    return this.all.has(path);
  }

  /** Paths whose folded file name is `nameFolded` (e.g. `note.md`), in insertion order. */
  candidates(nameFolded: string): readonly string[] {
    const known = this.byName.get(nameFolded);
    if (known === undefined) return [];
    return typeof known === 'string' ? [known] : known;
  }

  /** All paths, sorted. */
  paths(): string[] {
    return [...this.all].sort(compareStrings);
  }

  get size(): number {
    return this.all.size;
  }
}

/**
 * The vault path a link target points to from the note at `fromPath`, or undefined when unresolved.
 * `target` is the path part of the link, decoded and without `#subpath` (`LinkRef.target`).
 * As in Obsidian, the target is tried as written first (`img.png`, `Note.md`), then with `.md`.
 */
export function resolveLink(target: string, fromPath: string, index: PathIndex): string | undefined {
  // `[[#Heading]]` points into the linking note itself.
  if (target === '') return index.has(fromPath) ? fromPath : undefined;
  const link = target.normalize('NFC');
  return resolveExactName(link, fromPath, index) ?? resolveExactName(link + '.md', fromPath, index);
}

/**
 * One attempt of Obsidian's resolver: `link` must name a file by its full name, extension included.
 * Files spelled exactly as the link (`foo.md` for `[[foo]]`) are tried first, by Obsidian's rules
 * among themselves, and only then every spelling (`Foo.md`): Obsidian folds case, so of `Foo.md` and
 * `sub/foo.md` it would take the shorter, though the user wrote `foo`.
 */
function resolveExactName(link: string, fromPath: string, index: PathIndex): string | undefined {
  const candidates = index.candidates(basenameOf(link).toLowerCase());
  if (candidates.length === 0) return undefined;
  const spelled = basenameOf(link);
  const exact = candidates.filter((candidate) => basenameOf(candidate).normalize('NFC') === spelled);
  if (exact.length > 0 && exact.length < candidates.length) {
    const found = resolveAmong(link, fromPath, exact);
    if (found) return found;
  }
  return resolveAmong(link, fromPath, candidates);
}

/** Obsidian's choice among `candidates`, the files whose name folds to the link's name. */
function resolveAmong(link: string, fromPath: string, candidates: readonly string[]): string | undefined {
  const name = basenameOf(link).toLowerCase();
  // A bare name with a single file of that name: nothing to choose.
  if (name === link.toLowerCase() && candidates.length === 1) return candidates[0];

  // Case is kept here and folded only when comparing, so `exactMatch` can prefer the exact spelling.
  let folder = dirnameOf(fromPath.normalize('NFC'));
  let path = link;
  if (path.startsWith('./') || path.startsWith('../')) {
    // Relative links resolve against the linking note's folder; the folder they land in
    // then also decides which duplicates count as "near" below (as in Obsidian).
    if (path.startsWith('./../')) path = path.slice(2);
    if (path.startsWith('./')) {
      path = path.slice(2);
    } else {
      while (path.startsWith('../')) {
        path = path.slice(3);
        folder = dirnameOf(folder);
      }
    }
    path = folder === '' ? path : `${folder}/${path}`;
    const exact = exactMatch(path, candidates);
    if (exact) return exact;
  }
  if (path.startsWith('/')) path = path.slice(1);
  const exact = exactMatch(path, candidates);
  if (exact) return exact;
  // A leading `/` asks for that exact vault path and nothing else.
  if (link.startsWith('/')) return undefined;

  // Every file whose path ends with the link path at a folder boundary (`b/Note` does not match
  // `ab/Note.md`); those in the linking note's folder (or below) first, then the shortest path.
  const tail = '/' + path.toLowerCase();
  const nearPrefix = folder.toLowerCase() + '/';
  const near: string[] = [];
  const far: string[] = [];
  for (const candidate of candidates) {
    const folded = foldPath(candidate);
    if (!folded.endsWith(tail)) continue;
    if (folder === '' || folded.startsWith(nearPrefix)) near.push(candidate);
    else far.push(candidate);
  }
  near.sort(shortestFirst);
  far.sort(shortestFirst);
  return near[0] ?? far[0];
}

/**
 * The candidate whose whole path is `path`, case-insensitively. When several differ only in case
 * (`Note.md` and `note.md`), the one written exactly like the link wins, else the first in code-unit
 * order, so the choice never depends on the order files were seen.
 */
function exactMatch(path: string, candidates: readonly string[]): string | undefined {
  const wanted = path.toLowerCase();
  let best: string | undefined;
  for (const candidate of candidates) {
    if (foldPath(candidate) !== wanted) continue;
    if (candidate.normalize('NFC') === path) return candidate;
    if (best === undefined || compareStrings(candidate, best) < 0) best = candidate;
  }
  return best;
}

function shortestFirst(a: string, b: string): number {
  return a.length - b.length || compareStrings(a, b);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
