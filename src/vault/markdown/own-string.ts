/**
 * A copy of `text` that does not keep the string it was cut from alive. V8 makes a slice (or a
 * `split` part) of 13 characters or more a view of its parent, so a link's `raw` or a frontmatter
 * value held in the index for the life of the process kept the text of its whole file with it:
 * 2 KB per note, 15 % of a cold index's notes. The copy holds one character more than `text`.
 */
export function ownString(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}
