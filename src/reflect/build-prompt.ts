import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularText } from '../core/regular-file.js';
import { TEMPLATES_DIR } from '../core/templates-dir.js';
import type { Note } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { citation } from '../recall/recall.js';
import { commitmentsPath, inLayout, userNotePath } from '../vault/layout.js';
import { withoutComments } from '../vault/markdown/comments.js';
import { findOnDisk } from '../vault/paths.js';
import { isDayEntry } from '../vault/section-facts.js';
import { operationsJsonSchema } from './operations.js';

/** Characters of touched notes shown to the model; the episodes themselves are never cut. */
const NOTES_CHARS = 24_000;

export interface ReflectInput {
  episodes: Note[];
  /** Notes the episodes touch, most relevant first */
  notes: Note[];
  /** Citations the model may use */
  sources: Set<string>;
}

/** The notes a run's episodes touch: the core profile, what the entries link to, and the notes they link to. */
export function touchedNotes(index: VaultIndex, episodes: Note[]): Note[] {
  // The commitments too, so a later entry can mark one done.
  const paths: string[] = [userNotePath(index.layout), commitmentsPath(index.layout)];
  for (const episode of episodes) {
    for (const edge of index.graph.outEdges(episode.path))
      if (edge.to && edge.to !== episode.path) paths.push(edge.to);
  }
  // Insights that already cite these days are where repeats and contradictions show up.
  for (const episode of episodes) {
    for (const edge of index.graph.backlinks(episode.path))
      if (index.notes.get(edge.from)?.layer === 'insights') paths.push(edge.from);
  }
  return [...new Set(paths)]
    .map((p) => index.notes.get(p))
    .filter((n): n is Note => n !== undefined && n.layer !== 'episodes');
}

export function episodeSources(index: VaultIndex, episodes: Note[]): Set<string> {
  const sources = new Set<string>();
  for (const note of episodes) {
    for (const section of note.sections)
      if (isDayEntry(note, section)) sources.add(citation(index, note.path, section.anchor));
  }
  return sources;
}

function renderEpisodes(index: VaultIndex, episodes: Note[]): string {
  return episodes
    .map((note) => {
      const lines = note.sections
        // mem's entries and the person's own journal sections (cited by heading, no speaker)
        .filter((s) => isDayEntry(note, s))
        .map((s) => {
          const who = s.speaker ? ` **${s.speaker}:**` : '';
          return `- ${citation(index, note.path, s.anchor)} ${s.time ?? ''}${who} ${s.text.replace(/\s*\n\s*/g, ' ')}`;
        });
      return `## ${note.path}\n\n${lines.join('\n')}`;
    })
    .join('\n\n');
}

async function renderNotes(root: string, notes: Note[]): Promise<string> {
  const parts: string[] = [];
  let used = 0;
  for (const note of notes) {
    const raw = await readRegularText(await findOnDisk(root, note.path)).catch(() => undefined);
    if (raw === undefined) continue;
    // Comments are for the person editing the vault; they never go to the model.
    const text = withoutComments(raw);
    // A fence longer than any backtick run in the note, so the note cannot close it and speak as
    // instructions: notes are data to the model.
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = '`'.repeat(longest + 1);
    const block = `## ${note.path}\n\n${fence}markdown\n${text.trimEnd()}\n${fence}`;
    if (used + block.length > NOTES_CHARS && parts.length > 0) {
      parts.push(
        `(… ${notes.length - parts.length} more notes not shown: ${notes
          .slice(parts.length)
          .map((n) => n.path)
          .join(', ')})`,
      );
      break;
    }
    parts.push(block);
    used += block.length;
  }
  const index = notes.map((n) => `- ${n.path}${n.title ? ` — ${n.title}` : ''}`).join('\n');
  return `${parts.join('\n\n')}\n\nExisting notes you may link to:\n${index}`;
}

export async function buildPrompt(root: string, index: VaultIndex, input: ReflectInput): Promise<string> {
  const template = await readFile(join(TEMPLATES_DIR, 'prompts', 'reflect.md'), 'utf8');
  const allNotes = [...index.notes.values()].filter((n) => n.layer === 'profile' || n.layer === 'insights');
  const notes = await renderNotes(
    root,
    [...input.notes, ...allNotes.filter((n) => !input.notes.includes(n))].slice(0, 400),
  );
  // The schema compact: it states every limit the validator enforces, and indented it costs 700
  // more tokens.
  // The folders as this vault has them, before any note text goes in (notes are quoted as written).
  return inLayout(template.replace('{{schema}}', JSON.stringify(operationsJsonSchema())), index.layout)
    .replace('{{notes}}', () => notes)
    .replace('{{episodes}}', () => renderEpisodes(index, input.episodes));
}
