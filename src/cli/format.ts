import type { CompileResult, DoctorReport, Edge, EmbeddingUse, Note, RecallHit } from '../internal.js';

/**
 * Characters a terminal would act on rather than show: C0 controls but tab and newline, DEL, C1
 * controls, BiDi embeddings, overrides and isolates, lone surrogates. A note can hold any of them
 * (an editor, a sync tool); printed raw, an ESC sequence retitles or clears the terminal, and an
 * override shows a line in another order than it is stored.
 */
const UNSAFE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` safe to print: a C0 control shows as its Control Picture (ESC as `␛`, NUL as `␀`), any
 * other unsafe character as `<U+202E>`, so what is there is seen and nothing acts on the terminal.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

function when(hit: { date?: string; time?: string; speaker?: string }): string {
  return [hit.date && hit.time ? `${hit.date} ${hit.time}` : hit.date, hit.speaker]
    .filter(Boolean)
    .join(' · ');
}

export function formatHits(hits: RecallHit[], explain: boolean): string {
  if (hits.length === 0) return 'no memories found\n';
  return terminalText(
    hits
      .map((hit, i) => {
        const head = [`${i + 1}. ${hit.link}`, hit.layer, when(hit), hit.title !== hit.link ? hit.title : '']
          .filter(Boolean)
          .join('  ·  ');
        const lines = [`${head}   ${hit.score.toFixed(3)}`, `   ${hit.snippet}`];
        if (explain) {
          const p = hit.parts;
          lines.push(
            `   score: text ${p.text} · graph ${p.graph} · recency ${p.recency} · importance ${p.importance} · layer ${p.layer}${p.semantic === undefined ? '' : ` · semantic ${p.semantic}`}`,
          );
        }
        lines.push(`   why: ${hit.reasons.join('; ')}`);
        return lines.join('\n');
      })
      .join('\n\n')
      .concat('\n'),
  );
}

/** How a read used embeddings, one line for --explain; nothing while they are off. */
export function embeddingsLine(use: EmbeddingUse | undefined): string {
  if (!use) return '';
  if (use.ranking === 'lexical') return `embeddings (${use.model}): not used, ${use.reason}\n`;
  const pending = use.unembedded ? `; ${use.unembedded} sections not embedded yet rank by their words` : '';
  return `embeddings (${use.model}): words and meaning fused (${use.fusion})${pending}\n`;
}

/** `mem compile --explain`: each item of the document, its section, score and why it is there. */
export function formatCompileExplain(result: CompileResult): string {
  const lines = ['', '--- explain ---'];
  const use = embeddingsLine(result.embeddings);
  if (use) lines.push(use.trimEnd());
  for (const section of result.sections) {
    lines.push(`${section.name}: ${section.used} of ${section.budget} tokens, ${section.items.length} items`);
    for (const item of section.items)
      lines.push(
        `  ${item.path}${item.anchor ? `#${item.anchor}` : ''}  ${item.score.toFixed(3)}  ${item.tokens} tokens${item.cut ? ' (cut)' : ''}`,
        `     why: ${item.reason}`,
      );
  }
  return terminalText(`${lines.join('\n')}\n`);
}

function edgeLine(edge: Edge, side: 'to' | 'from'): string {
  const where = side === 'to' ? (edge.to ?? 'unresolved') : edge.from;
  const section = side === 'from' && edge.section ? ` (in ${edge.section})` : '';
  return `${edge.link.raw}  ->  ${where}${section}  line ${edge.link.line}`;
}

export function formatEdges(edges: Edge[], side: 'to' | 'from'): string {
  if (edges.length === 0) return side === 'to' ? 'no links\n' : 'no backlinks\n';
  return terminalText(`${edges.map((e) => edgeLine(e, side)).join('\n')}\n`);
}

/**
 * A section as `mem show` prints it. An entry of a day keeps its time and speaker, as its line in
 * the note has them (`- 09:00 **Rain:** … ^e1`): without them a day read as a list of anonymous lines.
 */
function sectionText(section: Note['sections'][number]): string {
  if (section.kind === 'block' && (section.time !== undefined || section.speaker !== undefined)) {
    const who = section.speaker === undefined ? '' : `**${section.speaker}:** `;
    const when = section.time === undefined ? '' : `${section.time} `;
    const text = section.text.replace(/\n/g, '\n  ');
    return `- ${when}${who}${text} ${section.anchor}`;
  }
  return section.anchor ? `## ${section.anchor}\n${section.text}` : section.text;
}

export function formatNote(note: Note, links: Edge[], backlinks: Edge[]): string {
  const lines = [`# ${note.title}`, `path: ${note.path}  ·  layer: ${note.layer}`];
  if (note.aliases.length > 0) lines.push(`aliases: ${note.aliases.join(', ')}`);
  if (note.tags.length > 0) lines.push(`tags: ${note.tags.map((t) => `#${t}`).join(' ')}`);
  const keys = Object.entries(note.frontmatter).filter(([k]) => !['title', 'aliases', 'tags'].includes(k));
  for (const [key, value] of keys)
    lines.push(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  for (const warning of note.warnings) lines.push(`warning: ${warning}`);
  lines.push('', ...note.sections.map(sectionText), '');
  lines.push(`links (${links.length}):`, ...links.map((e) => `  ${edgeLine(e, 'to')}`));
  lines.push(`backlinks (${backlinks.length}):`, ...backlinks.map((e) => `  ${edgeLine(e, 'from')}`));
  return terminalText(`${lines.join('\n')}\n`);
}

export function formatDoctor(report: DoctorReport): string {
  const lines = [`${report.notes} notes`];
  const list = <T>(title: string, items: T[], line: (item: T) => string) => {
    lines.push(`${title}: ${items.length}`);
    for (const item of items) lines.push(`  ${line(item)}`);
  };
  list('unresolved links', report.unresolved, (u) => `${u.from}:${u.line}  ${u.link}`);
  list('duplicate file names', report.duplicateNames, (d) => `${d.name}: ${d.paths.join(', ')}`);
  list('invalid frontmatter', report.invalidFrontmatter, (f) => f.message);
  list(
    'duplicate block ids',
    report.duplicateBlockIds,
    (d) => `${d.path}: ^${d.id} on lines ${d.lines.join(', ')} (links reach only the first)`,
  );
  list('partly indexed (over a limit)', report.truncated, (t) => t.message);
  if (report.unreadable) list('unreadable notes', report.unreadable, (u) => `${u.path}: ${u.reason}`);
  if (report.syncConflicts.length > 0)
    list('sync conflicts (merge by hand, then delete the conflict note)', report.syncConflicts, (c) => c);
  list('orphans (no links in or out)', report.orphans, (o) => o);
  return terminalText(`${lines.join('\n')}\n`);
}
