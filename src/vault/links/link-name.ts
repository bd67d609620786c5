// The one rule for the characters a wiki link cannot hold: in the name of a note it names, and in
// the heading it points to.

/** End or split the path of a wiki link: `[[`/`]]` bound it, `|` starts the alias, `#` and `^` the subpath, `%%` a comment. */
const LINK_SYNTAX = /[[\]#^|]|%%/;

/** Refused in a new note's name: link syntax, and `\` and `:`, which Obsidian refuses in file names. */
const NOT_IN_NAME = /[[\]#^|\\:]|%%/;

/** Whether a wiki link can spell `target` (a vault path or file name) as its path. */
export function canLinkTo(target: string): boolean {
  return !LINK_SYNTAX.test(target);
}

/** Why a new note cannot be called `name` (file name, with or without `.md`), else undefined. */
export function noteNameProblem(name: string): string | undefined {
  return NOT_IN_NAME.test(name)
    ? 'a note name cannot hold [ ] # ^ | \\ : or %% (links could not name it)'
    : undefined;
}

/**
 * The text Obsidian accepts after `#` for a heading: it cannot hold `[[ ]]`, `|`, `#`, `^` or `:`,
 * so like Obsidian's own heading links those become spaces. Block anchors (`^e7`) stay as they are.
 */
export function linkableAnchor(anchor: string): string {
  if (anchor.startsWith('^')) return anchor;
  return anchor
    .replace(/\[\[|\]\]/g, '')
    .replace(/[#|^:\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
