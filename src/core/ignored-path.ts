// The one rule for which files and folders are not part of the notes: mem never reads them, and
// refuses to write a note there (it would never be indexed).

/**
 * A name mem never reads: every dot-name (`.git/`, `.obsidian/`, which may be renamed but always
 * starts with a dot, `.trash/`, `.mem/`, and mem's own dot-prefixed temp files) and `node_modules/`.
 */
export function isIgnoredName(name: string): boolean {
  return name.startsWith('.') || name.toLowerCase() === 'node_modules';
}

/** A vault path that lies in, or names, something mem never reads. */
export function isIgnoredPath(relPath: string): boolean {
  return relPath.split('/').some(isIgnoredName);
}

/** Why a write to this name is refused, in words for an error message. */
export function ignoredReason(name: string): string {
  return name.startsWith('.')
    ? `${name} starts with a dot; mem never reads hidden files and folders, so a note there would never be indexed`
    : `${name}/ is never read by mem, so a note there would never be indexed`;
}
