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
