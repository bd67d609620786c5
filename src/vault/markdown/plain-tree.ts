// The tree of a plain note (frontmatter, ATX headings, paragraphs, one-line `- ` items) without remark.
import type { Heading, List, ListItem, Paragraph, Root, RootContent, Text, Yaml } from 'mdast';

type Point = NonNullable<Root['position']>['start'];

// Anything that could open a block other than a paragraph, or make a line part of one: quotes,
// lists other than `- `, code fences, HTML, thematic breaks, setext underlines, tables, link
// reference definitions, indentation. A line starting with one of these goes to remark.
// (`#tag` and `**bold**` open paragraphs, and `[[link]]` is no definition: those stay.)
const BLOCK_START = /^(?:#(?=[#\s]|$)|\*(?![*][^\s*])|[>+=_~`<|-]|\d+[.)]|\[(?!\[))/;
// Characters that make inline code (which codeSpans must find), escapes or odd line ends, and
// characters micromark replaces or reads as space: the note goes to remark.
const UNSAFE = /[`\\\r\t\0\ufeff\u000b\u000c]/;
const HEADING = /^(#{1,6}) (?=\S)/;
const ITEM = /^- (?=\S)/;

/**
 * The remark tree of `text` as far as mem reads it (block nodes, their positions, a heading's
 * content span), for a note made only of frontmatter, ATX headings, paragraphs and one-line
 * `- ` list items; undefined for anything else. Inline content is one `text` node holding the
 * raw characters: this is no Markdown parser, only a shortcut past one for the plainest notes
 * (a daily note of `- HH:MM **Speaker:** text ^id` entries, an insight of a few paragraphs).
 * A property test holds it to remark over the hostile corpus, the example vault and generated notes.
 */
export function plainTree(text: string): Root | undefined {
  if (UNSAFE.test(text)) return undefined;
  const children: RootContent[] = [];
  let line = 1;
  let offset = 0;
  const at = (column: number): Point => ({ line, column, offset: offset + column - 1 });
  if (text.startsWith('---')) {
    const yaml = frontmatter(text);
    if (!yaml) return undefined;
    children.push(yaml);
    line = yaml.position!.end.line;
    offset = yaml.position!.end.offset!;
    if (offset === text.length) return root(children, text, yaml.position!.end);
    // The closing fence's line break.
    line++;
    offset++;
  }
  let paragraph: Paragraph | undefined;
  let list: List | undefined;
  let blankSinceItem = false;
  while (offset <= text.length) {
    const next = text.indexOf('\n', offset);
    const end = next === -1 ? text.length : next;
    const content = text.slice(offset, end);
    if (/^ *$/.test(content)) {
      paragraph = undefined;
      if (list) blankSinceItem = true;
    } else {
      // Leading or trailing white space (of any kind) changes where remark puts a block's edges.
      if (/^\s|\s$/u.test(content)) return undefined;
      const heading = HEADING.exec(content);
      const item = heading ? null : ITEM.exec(content);
      const body = heading ? content.slice(heading[0].length) : item ? content.slice(2) : content;
      if ((heading || item) && (BLOCK_START.test(body) || /^\s/u.test(body))) return undefined;
      if (heading) {
        // A closing `#` sequence is not heading text; leave such headings to remark. So too a
        // heading of many brackets: past about a hundred `[[links]]` micromark ends the heading's
        // text two characters short.
        if (body.endsWith('#') || manyBrackets(body)) return undefined;
        const start = heading[0].length + 1;
        const node: Heading = {
          type: 'heading',
          depth: heading[1]!.length as Heading['depth'],
          children: [textNode(body, at(start), at(content.length + 1))],
          position: { start: at(1), end: at(content.length + 1) },
        };
        children.push(node);
        paragraph = undefined;
        list = undefined;
      } else if (item) {
        // After a paragraph line the item would be a lazy continuation only if it could not
        // interrupt; `- text` always interrupts a paragraph, so the paragraph simply ends.
        const para: Paragraph = {
          type: 'paragraph',
          children: [textNode(body, at(3), at(content.length + 1))],
          position: { start: at(3), end: at(content.length + 1) },
        };
        const listItem: ListItem = {
          type: 'listItem',
          spread: false,
          checked: null,
          children: [para],
          position: { start: at(1), end: at(content.length + 1) },
        };
        if (!list) {
          list = {
            type: 'list',
            ordered: false,
            start: null,
            spread: false,
            children: [],
            position: { start: at(1), end: at(1) },
          };
          children.push(list);
        } else if (blankSinceItem) list.spread = true;
        list.children.push(listItem);
        list.position!.end = at(content.length + 1);
        blankSinceItem = false;
        paragraph = undefined;
      } else {
        if (BLOCK_START.test(content)) return undefined;
        // A line right after an item (no blank line between) continues the item's paragraph.
        if (list && !blankSinceItem) return undefined;
        list = undefined;
        if (paragraph) {
          paragraph.position!.end = at(content.length + 1);
          const only = paragraph.children[0] as Text;
          only.value = text.slice(paragraph.position!.start.offset, end);
          only.position!.end = at(content.length + 1);
        } else {
          paragraph = {
            type: 'paragraph',
            children: [textNode(content, at(1), at(content.length + 1))],
            position: { start: at(1), end: at(content.length + 1) },
          };
          children.push(paragraph);
        }
      }
    }
    if (next === -1) return root(children, text, at(content.length + 1));
    line++;
    offset = next + 1;
  }
  return root(children, text, at(1));
}

/** The `---` block opening the file, closed by the first line that is `---`, as remark-frontmatter finds it. */
function frontmatter(text: string): Yaml | undefined {
  if (!text.startsWith('---\n')) return undefined;
  let from = 4;
  let line = 2;
  for (;;) {
    const next = text.indexOf('\n', from);
    const end = next === -1 ? text.length : next;
    const content = text.slice(from, end);
    if (content === '---') {
      return {
        type: 'yaml',
        value: from === 4 ? '' : text.slice(4, from - 1),
        position: {
          start: { line: 1, column: 1, offset: 0 },
          end: { line, column: 4, offset: end },
        },
      };
    }
    // A fence with trailing blanks closes the block for remark too; leave that to remark.
    if (/^---[ \t]/.test(content) || next === -1) return undefined;
    from = next + 1;
    line++;
  }
}

function manyBrackets(text: string): boolean {
  let count = 0;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > 32) return true;
  return false;
}

function textNode(value: string, start: Point, end: Point): Text {
  return { type: 'text', value, position: { start, end } };
}

function root(children: RootContent[], text: string, end: Point): Root {
  return {
    type: 'root',
    children,
    position: { start: { line: 1, column: 1, offset: 0 }, end: { ...end, offset: text.length } },
  };
}
