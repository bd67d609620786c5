/**
 * Shared data shapes. The files are the truth; everything here is derived from them.
 * Offsets are UTF-16 code-unit offsets into the file's full text (BOM included, CRLF kept),
 * so an editor can splice at exactly that place.
 */

/** First folder of a note's path; anything outside the known layers is `other`. */
export type Layer = 'persona' | 'profile' | 'episodes' | 'insights' | 'archive' | 'other';

export const LAYERS: readonly Layer[] = ['persona', 'profile', 'episodes', 'insights', 'archive', 'other'];

export type LinkKind = 'wiki' | 'embed' | 'markdown' | 'frontmatter';

/** One link as written in a note. */
export interface LinkRef {
  kind: LinkKind;
  /** Exact source text, e.g. `[[Tokyo|home]]` or `[t](My%20Note.md)` */
  raw: string;
  /** The path part, decoded (`My Note.md`), without subpath; `''` for a same-note link such as `[[#H]]` */
  target: string;
  /** `#Heading`, `#H1#H2` or `#^block`, decoded; undefined when absent */
  subpath?: string;
  /** Display text after `|` (wiki) or the bracket text (markdown) */
  alias?: string;
  /** Offsets of `raw` in the file text: text.slice(start, end) === raw */
  start: number;
  end: number;
  /** 1-based line of `start` */
  line: number;
  /** For links inside frontmatter: the property key that holds them */
  property?: string;
}

export interface Heading {
  text: string;
  level: number;
  /** 1-based line */
  line: number;
  start: number;
  end: number;
}

export interface Block {
  /** Block id without the caret, e.g. `e7` */
  id: string;
  line: number;
  /** Span of the paragraph or list item that carries the id */
  start: number;
  end: number;
}

/**
 * The unit of search. A heading's span, the text before the first heading (`preamble`),
 * or in an episode note one entry block with its `^id`.
 */
export interface Section {
  /** `path#anchor`, unique in the vault */
  id: string;
  /** `''` for the preamble, the heading text for a heading section, `^e7` for a block */
  anchor: string;
  kind: 'preamble' | 'heading' | 'block';
  /** Heading text (heading sections) or the heading the block sits under */
  heading?: string;
  /** Plain text of the section (Markdown kept as written, frontmatter excluded, block id removed) */
  text: string;
  start: number;
  end: number;
  line: number;
  /** Episode entries: `YYYY-MM-DD` from the file name or frontmatter `date` */
  date?: string;
  /** Episode entries: `HH:MM` written at the start of the entry */
  time?: string;
  /** Episode entries: speaker written as `**Name:**` */
  speaker?: string;
  /** Episode entries: 0..1 from an inline `[importance:: x]` field (the field is not in `text`) */
  importance?: number;
}

export interface Note {
  /** Vault-relative POSIX path with extension, e.g. `profile/user.md` */
  path: string;
  layer: Layer;
  /** A copy of the parsed frontmatter (read with the yaml package; dates stay the strings written) */
  frontmatter: Record<string, unknown>;
  title: string;
  aliases: string[];
  /** Lower-cased, without `#`; nested tags kept whole (`a/b`) */
  tags: string[];
  links: LinkRef[];
  headings: Heading[];
  sections: Section[];
  blocks: Block[];
  /** Problems found while parsing (invalid YAML …); the note is still indexed */
  warnings: string[];
  /** Why only part of the note was indexed (it passed a limit in `limits`), when it was */
  truncated?: string;
  /** sha256 hex of the raw bytes */
  hash: string;
  size: number;
  mtimeMs: number;
}

/** A resolved (or unresolved) edge of the link graph. */
export interface Edge {
  from: string;
  /** Resolved target note path, or undefined when the link is unresolved */
  to?: string;
  link: LinkRef;
  /** Anchor of the section in `from` that holds the link */
  section: string;
}
