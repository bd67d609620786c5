import { join } from 'node:path';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readRegularText } from '../../core/regular-file.js';
import { type Layer, MemError, type Note, type Vault, withoutComments } from '../../internal.js';
import { readNoteArgs } from '../request-bodies.js';
import { notePathOf } from '../routes.js';
import { answerWith, edgeData } from './mcp-result.js';
import { backlinksArgs, backlinksOutput, noteOutput, recentArgs, recentOutput } from './mcp-schemas.js';

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** The URI of a note's resource; each path segment encoded, so spaces and `#` survive. */
export function noteUri(path: string): string {
  return `memvault://note/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * A note's Markdown as written, frontmatter included, Obsidian comments left out (they are notes to
 * the person editing the vault; nothing inside one leaves it). The path is one the index found in
 * the vault, so nothing outside it is read.
 */
async function noteMarkdown(vault: Vault, note: Note): Promise<string> {
  return withoutComments(await readRegularText(join(vault.root, note.path)));
}

/** A note found by path or link text; a path leading out of the vault is refused before any lookup. */
function findNote(vault: Vault, ref: string): Note {
  const checked = notePathOf(ref);
  try {
    return vault.note(checked);
  } catch (error) {
    if (error instanceof MemError && error.code === 'NOT_FOUND')
      throw new MemError('NOT_FOUND', `note not found: ${ref}`);
    throw error;
  }
}

async function readNote(vault: Vault, ref: string) {
  const note = findNote(vault, ref);
  const markdown = await noteMarkdown(vault, note);
  const links = vault.links(note.path).map(edgeData);
  const backlinks = vault.backlinks(note.path).map(edgeData);
  return {
    note,
    markdown,
    data: {
      path: note.path,
      title: note.title,
      layer: note.layer,
      frontmatter: note.frontmatter,
      hash: note.hash,
      markdown,
      links,
      backlinks,
    },
  };
}

/** The newest notes by modification time, and the newest episode entries by their date and time. */
function recent(vault: Vault, limit: number, layers: readonly Layer[] | undefined) {
  const notes = vault.paths().map((path) => vault.note(path));
  const shown = notes
    .filter((note) => (layers ? layers.includes(note.layer) : note.layer !== 'archive'))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path))
    .slice(0, limit)
    .map((note) => ({
      path: note.path,
      title: note.title,
      layer: note.layer,
      modified: new Date(note.mtimeMs).toISOString(),
    }));
  const entries = notes
    .filter((note) => note.layer === 'episodes')
    .flatMap((note) =>
      note.sections
        .filter((s) => s.kind === 'block' && s.date !== undefined)
        .map((s) => ({
          link: `[[${vault.linkText(note.path)}#${s.anchor}]]`,
          date: s.date as string,
          ...(s.time ? { time: s.time } : {}),
          ...(s.speaker ? { speaker: s.speaker } : {}),
          text: s.text.trim(),
        })),
    )
    .sort((a, b) => `${b.date} ${b.time ?? ''}`.localeCompare(`${a.date} ${a.time ?? ''}`))
    .slice(0, limit);
  return { notes: shown, entries };
}

function recentText(value: ReturnType<typeof recent>): string {
  const notes = value.notes.map((n) => `- ${n.path} (${n.layer}, modified ${n.modified}) ${n.title}`);
  const entries = value.entries.map(
    (e) =>
      `- ${e.link} (${[e.date, e.time].filter(Boolean).join(' ')}${e.speaker ? `, ${e.speaker}` : ''}) ${e.text}`,
  );
  return `## Recent notes\n${notes.join('\n') || '(none)'}\n\n## Recent entries\n${entries.join('\n') || '(none)'}\n`;
}

/** The tools and resources that read notes: read one, list recent ones, list what links to one. */
export function registerNoteTools(server: McpServer, vault: Vault, whenIdle: () => Promise<unknown>): void {
  server.registerTool(
    'memory_read_note',
    {
      title: 'Read a note',
      description:
        'One note by vault path (e.g. profile/user.md) or link text, as its Markdown with frontmatter; then a line naming its links and backlinks.',
      inputSchema: readNoteArgs,
      outputSchema: noteOutput,
      annotations: READ,
    },
    ({ path }) =>
      answerWith(vault, async () => {
        await whenIdle();
        const { markdown, data } = await readNote(vault, path);
        const linked = (edges: { from: string; to?: string }[], end: 'from' | 'to') =>
          [...new Set(edges.map((e) => e[end]).filter(Boolean))].join(', ') || 'none';
        const meta = `memvault note: ${data.path} · links to ${linked(data.links, 'to')} · linked from ${linked(data.backlinks, 'from')}`;
        return { text: [markdown, meta], data };
      }),
  );

  server.registerTool(
    'memory_recent',
    {
      title: 'Recent notes and entries',
      description:
        'The notes changed most recently (newest first, archive left out unless asked) and the newest episode entries with their [[citations]].',
      inputSchema: recentArgs,
      outputSchema: recentOutput,
      annotations: READ,
    },
    ({ limit, layers }) =>
      answerWith(vault, async () => {
        await whenIdle();
        const value = recent(vault, limit ?? 10, layers);
        return { text: recentText(value), data: value };
      }),
  );

  server.registerTool(
    'memory_backlinks',
    {
      title: 'Backlinks',
      description: 'The notes that link to one note, with the link as written and its line.',
      inputSchema: backlinksArgs,
      outputSchema: backlinksOutput,
      annotations: READ,
    },
    ({ path }) =>
      answerWith(vault, async () => {
        await whenIdle();
        const note = findNote(vault, path);
        const backlinks = vault.backlinks(note.path).map(edgeData);
        const lines = backlinks.map((e) => `- ${e.from}:${e.line} ${e.link}`);
        return {
          text: `${lines.join('\n')}${lines.length ? '\n\n' : ''}memvault backlinks: ${backlinks.length} to ${note.path}`,
          data: { path: note.path, backlinks },
        };
      }),
  );

  server.registerResource(
    'note',
    new ResourceTemplate('memvault://note/{+path}', {
      list: async () => ({
        resources: vault.paths().map((path) => ({
          uri: noteUri(path),
          name: path,
          title: vault.note(path).title,
          mimeType: 'text/markdown',
        })),
      }),
    }),
    {
      title: 'Vault note',
      description: 'A note of the vault as Markdown, frontmatter included',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const raw = Array.isArray(variables['path']) ? variables['path'].join('/') : String(variables['path']);
      const { data } = await readNote(vault, decodeURIComponent(raw));
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: data.markdown }] };
    },
  );
}
