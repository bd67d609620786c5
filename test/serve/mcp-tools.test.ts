import { createHash } from 'node:crypto';
import { access, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';

// The tools an agent keeps its own memory with, over the built `mem mcp` on stdio (`npm run build`
// first), as Claude Desktop, Claude Code or Cursor would call them.
const USER = '---\npinned: true\n---\n# User\nLives in [[Tokyo]]. Loves ramen.\n';
const TOKYO = '# Tokyo\nA huge city with great ramen shops.\n';
// An Obsidian comment is a note to the person editing the vault: no read may show it.
const DIARY = '---\nmood: calm\n---\n# Diary\nVisible line. %%okapi: private%%\n';

let client: Client;
let root: string;

interface Called {
  isError: boolean;
  text: string;
  texts: string[];
  data: Record<string, unknown> | undefined;
}

async function call(name: string, args: Record<string, unknown>): Promise<Called> {
  const result = (await client.callTool({ name, arguments: args })) as unknown as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
  };
  const texts = result.content.map((c) => c.text);
  return { isError: Boolean(result.isError), text: texts.join(''), texts, data: result.structuredContent };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const recalled = async (query: string) =>
  (await call('memory_recall', { query, all: false })).text.split('\n').filter((l) => l.startsWith('- '));

beforeAll(async () => {
  root = await makeVault({ 'profile/user.md': USER, 'insights/Tokyo.md': TOKYO, 'insights/diary.md': DIARY });
  await gitInit(root);
  // The server runs with only PATH and HOME: its commits need an identity of the repository's own.
  await git(root, 'config', 'user.name', 'Test');
  await git(root, 'config', 'user.email', 'test@example.com');
  client = await connectMcp(root);
});

afterAll(async () => {
  await client?.close();
  await cleanupVaults();
});

describe('mem mcp tools for an agent', () => {
  it('annotates every tool, and gives an output schema to every tool that returns data', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    for (const name of [
      'memory_recall',
      'memory_compile',
      'memory_read_note',
      'memory_recent',
      'memory_backlinks',
    ])
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    for (const name of ['memory_remember', 'memory_create_note', 'memory_set_frontmatter', 'memory_move'])
      expect(byName.get(name)?.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
    expect(byName.get('memory_forget')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('memory_set_frontmatter')?.annotations?.idempotentHint).toBe(true);
    // replace_section overwrites a section: a client should ask first.
    expect(byName.get('memory_edit_note')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(byName.get('memory_remember')?.annotations?.idempotentHint).toBe(false);
    for (const tool of tools.filter((t) => !['memory_recall', 'memory_compile'].includes(t.name)))
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    expect(byName.get('memory_remember')?.inputSchema.properties).toHaveProperty('importance');
  });

  it('tells the client when to recall, compile and remember', () => {
    const instructions = client.getInstructions() ?? '';
    for (const tool of ['memory_compile', 'memory_recall', 'memory_remember', 'memory_forget'])
      expect(instructions).toContain(tool);
  });

  it('reads a note as its Markdown, frontmatter included, with its data alongside', async () => {
    const read = await call('memory_read_note', { path: 'profile/user.md' });
    expect(read.isError).toBe(false);
    expect(read.texts[0]).toBe(USER);
    expect(read.texts[1]).toBe(
      'memvault note: profile/user.md · links to insights/Tokyo.md · linked from none',
    );
    expect(read.data).toMatchObject({
      path: 'profile/user.md',
      title: 'User',
      layer: 'profile',
      frontmatter: { pinned: true },
      markdown: USER,
    });
    const missing = await call('memory_read_note', { path: 'Osaka' });
    expect(missing).toMatchObject({ isError: true, text: 'note not found: Osaka' });
  });

  it('leaves Obsidian comments out of a note read as a tool and as a resource', async () => {
    const read = await call('memory_read_note', { path: 'insights/diary.md' });
    expect(read.texts[0]).toBe('---\nmood: calm\n---\n# Diary\nVisible line.\n');
    expect(JSON.stringify(read.data)).not.toContain('okapi');
    const resource = await client.readResource({ uri: 'memvault://note/insights/diary.md' });
    expect(JSON.stringify(resource)).not.toContain('okapi');
    expect(JSON.stringify(resource)).toContain('Visible line.');
  });

  it('refuses to set frontmatter over a hand edit made since the note was read', async () => {
    const before = await call('memory_read_note', { path: 'insights/diary.md' });
    const hash = String(before.data?.['hash']);
    const edited = `${DIARY}Written by hand.\n`;
    await writeFile(join(root, 'insights/diary.md'), edited);
    const stale = await call('memory_set_frontmatter', {
      path: 'insights/diary.md',
      set: { mood: 'sad' },
      hash,
    });
    expect(stale).toMatchObject({
      isError: true,
      text: 'insights/diary.md changed on disk since it was read; nothing was written',
    });
    expect(await readFile(join(root, 'insights/diary.md'), 'utf8')).toBe(edited);
    const current = createHash('sha256').update(edited).digest('hex');
    const fresh = await call('memory_set_frontmatter', {
      path: 'insights/diary.md',
      set: { mood: 'glad' },
      hash: current,
    });
    expect(fresh.data).toMatchObject({ changed: true });
    expect(await readFile(join(root, 'insights/diary.md'), 'utf8')).toBe(
      edited.replace('mood: calm', 'mood: glad'),
    );
    const bad = await call('memory_set_frontmatter', {
      path: 'insights/diary.md',
      set: { a: 1 },
      hash: 'abc',
    });
    expect(bad.text).toContain('"hash" must be the 64 hex digits a read of the note gave');
  });

  it('remembers with importance, tags and a time, on that day, and recall finds it', async () => {
    const written = await call('memory_remember', {
      text: 'Rain started learning the cello',
      speaker: 'Rain',
      importance: 0.9,
      tags: ['music'],
      at: '2026-11-20T09:15:00+08:00',
    });
    expect(written.isError).toBe(false);
    expect(written.data).toMatchObject({ path: 'episodes/daily/2026-11-20.md', committed: true });
    expect(written.text).toMatch(
      /^remembered \[\[2026-11-20#\^\w+\]\] in episodes\/daily\/2026-11-20\.md, committed/,
    );
    const day = await readFile(join(root, 'episodes/daily/2026-11-20.md'), 'utf8');
    expect(day).toMatch(
      /- 09:15 \*\*Rain:\*\* Rain started learning the cello.*#music.*\[importance:: 0\.9\]/,
    );
    expect(await recalled('cello')).toEqual([expect.stringContaining('[[2026-11-20#^')]);
  });

  it('refuses a bad time, importance or tag list, naming the field', async () => {
    const late = await call('memory_remember', { text: 'x', at: 'last tuesday' });
    expect(late.isError).toBe(true);
    expect(late.text).toContain('"at" must be an ISO 8601 date or time');
    const heavy = await call('memory_remember', { text: 'x', importance: 2 });
    expect(heavy.text).toContain('"importance" must be a number from 0 to 1');
    const tags = await call('memory_remember', { text: 'x', tags: 'music' });
    expect(tags.text).toContain('"tags" must be an array of strings');
  });

  it('creates a note that the next recall finds, and refuses to create it twice', async () => {
    const created = await call('memory_create_note', {
      path: 'insights/pottery',
      title: 'Pottery class',
      set: { importance: 0.7 },
    });
    expect(created.isError).toBe(false);
    expect(created.data).toMatchObject({ path: 'insights/pottery.md', changed: true, committed: true });
    expect(await readFile(join(root, 'insights/pottery.md'), 'utf8')).toMatch(
      /^---\nid: \w+\ntitle: Pottery class\n[\s\S]*importance: 0\.7\n---\n# Pottery class\n$/,
    );
    expect(await recalled('pottery')).toEqual([expect.stringContaining('[[pottery#Pottery class]]')]);
    const again = await call('memory_create_note', { path: 'insights/pottery' });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('insights/pottery.md already exists');
  });

  it('edits a note body by heading, never one inside code, and refuses a stale hash, an episode and ../', async () => {
    const body = '## Plants\nTomatoes.\n\n```\n## Tools\n```\n\n## Tools\nA spade.\n';
    const created = await call('memory_create_note', { path: 'insights/garden', title: 'Garden', body });
    expect(created.isError).toBe(false);
    const file = join(root, 'insights/garden.md');
    const start = await readFile(file, 'utf8');
    expect(start.endsWith(`# Garden\n\n${body}`)).toBe(true);

    const hash = String((await call('memory_read_note', { path: 'garden' })).data?.['hash']);
    await writeFile(file, `${start}By hand.\n`);
    const stale = await call('memory_edit_note', { path: 'garden', mode: 'append', text: 'x', hash });
    expect(stale).toMatchObject({ isError: true });
    expect(stale.text).toContain('changed on disk since it was read');
    expect(await readFile(file, 'utf8')).toBe(`${start}By hand.\n`);

    const replaced = await call('memory_edit_note', {
      path: 'garden',
      mode: 'replace_section',
      heading: 'Tools',
      text: 'A rake.',
    });
    expect(replaced.data).toMatchObject({ path: 'insights/garden.md', changed: true, committed: true });
    const under = await call('memory_edit_note', {
      path: 'garden',
      mode: 'insert_under',
      heading: '## Plants',
      text: 'Basil.',
    });
    expect(under.isError).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(
      start
        .replace('## Tools\nA spade.\n', '## Tools\n\nA rake.\n')
        .replace('```\n\n## Tools\n\n', '```\n\nBasil.\n\n## Tools\n\n'),
    );
    expect(await recalled('rake')).toEqual([expect.stringContaining('[[garden#Tools]]')]);

    const noHeading = await call('memory_edit_note', { path: 'garden', mode: 'replace_section', text: 'x' });
    expect(noHeading).toMatchObject({
      isError: true,
      text: expect.stringContaining('"heading" is required'),
    });
    await call('memory_remember', { text: 'Planted basil', at: '2026-10-01T09:00:00+08:00' });
    const episode = await call('memory_edit_note', {
      path: 'episodes/daily/2026-10-01.md',
      mode: 'append',
      text: 'x',
    });
    expect(episode).toMatchObject({ isError: true, text: expect.stringContaining('append-only') });
    const outside = await call('memory_edit_note', { path: '../garden', mode: 'append', text: 'x' });
    expect(outside.isError).toBe(true);
  });

  it('sets and unsets frontmatter keys, leaving the body as written', async () => {
    const set = await call('memory_set_frontmatter', {
      path: 'Tokyo',
      set: { visited: 2024, tags: ['city'] },
    });
    expect(set.data).toMatchObject({ path: 'insights/Tokyo.md', changed: true, committed: true });
    const read = await call('memory_read_note', { path: 'Tokyo' });
    expect(read.data?.['frontmatter']).toEqual({ visited: 2024, tags: ['city'] });
    expect(read.texts[0]?.endsWith(TOKYO)).toBe(true);
    const unset = await call('memory_set_frontmatter', { path: 'Tokyo', unset: ['visited'] });
    expect(unset.data).toMatchObject({ changed: true });
    const nothing = await call('memory_set_frontmatter', { path: 'Tokyo' });
    expect(nothing).toMatchObject({ isError: true, text: 'insights/Tokyo.md: no keys to set or unset' });
  });

  it('moves a note and rewrites the links to it, which backlinks then show', async () => {
    await call('memory_create_note', { path: 'people/mei', title: 'Mei' });
    await call('memory_remember', { text: 'Had tea with [[mei]]', at: '2026-11-21T15:00:00+08:00' });
    const moved = await call('memory_move', { path: 'people/mei', to: 'people/Mei Tanaka' });
    expect(moved.isError).toBe(false);
    expect(moved.data).toMatchObject({
      from: 'people/mei.md',
      to: 'people/Mei Tanaka.md',
      rewritten: [{ path: 'episodes/daily/2026-11-21.md', links: 1 }],
      committed: true,
    });
    expect(await exists(join(root, 'people/mei.md'))).toBe(false);
    const back = await call('memory_backlinks', { path: 'people/Mei Tanaka.md' });
    expect(back.data).toMatchObject({
      path: 'people/Mei Tanaka.md',
      backlinks: [{ from: 'episodes/daily/2026-11-21.md', link: '[[Mei Tanaka]]' }],
    });
    expect(back.text.split('\n').at(-1)).toBe('memvault backlinks: 1 to people/Mei Tanaka.md');
    const missing = await call('memory_move', { path: 'people/nobody', to: 'people/x' });
    expect(missing.isError).toBe(true);
  });

  it('forgets by archiving: the file stays in archive/, and recall no longer finds it', async () => {
    await call('memory_create_note', { path: 'insights/old-job', title: 'Works at Initech' });
    expect(await recalled('Initech')).toHaveLength(1);
    const forgot = await call('memory_forget', {
      path: 'insights/old-job',
      reason: 'superseded: changed jobs',
    });
    expect(forgot.isError).toBe(false);
    expect(forgot.data).toMatchObject({ path: 'insights/old-job.md', committed: true });
    const archived = String(forgot.data?.['archivedAt']);
    expect(archived).toMatch(/^archive\//);
    const text = await readFile(join(root, archived), 'utf8');
    expect(text).toContain('status: archived');
    expect(text).toContain('archived_reason: "superseded: changed jobs"');
    expect(await recalled('Initech')).toEqual([]);
    const schema = (await client.listTools()).tools.find((t) => t.name === 'memory_forget')?.inputSchema;
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(['path', 'reason', 'superseded_by']);
    expect(await call('memory_forget', { path: 'insights/old-job', hard: true })).toMatchObject({
      isError: true,
    });
  });

  it('forgets as supersede: the note stays, marked superseded by the new one, and recall finds only the new one', async () => {
    await call('memory_create_note', { path: 'insights/drink-old', title: 'Prefers oolong tea' });
    await call('memory_create_note', { path: 'insights/drink-new', title: 'Prefers sencha tea now' });
    const done = await call('memory_forget', {
      path: 'insights/drink-old',
      superseded_by: 'insights/drink-new',
      reason: 'taste changed',
    });
    expect(done.isError).toBe(false);
    expect(done.data).toMatchObject({
      path: 'insights/drink-old.md',
      supersededBy: '[[insights/drink-new]]',
      committed: true,
    });
    const text = await readFile(join(root, 'insights/drink-old.md'), 'utf8');
    expect(text).toContain('status: superseded\n');
    expect(text).toContain('superseded_by: "[[insights/drink-new]]"');
    expect(await recalled('prefers')).toEqual([
      expect.stringContaining('[[drink-new#Prefers sencha tea now]]'),
    ]);
    const missing = await call('memory_forget', {
      path: 'insights/drink-new',
      superseded_by: 'insights/nowhere',
    });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toContain('insights/nowhere');
    const self = await call('memory_forget', {
      path: 'insights/drink-new',
      superseded_by: 'insights/drink-new',
    });
    expect(self).toMatchObject({ isError: true, text: 'insights/drink-new.md cannot supersede itself' });
  });

  it('lists recent notes and the newest entries', async () => {
    const recent = await call('memory_recent', { limit: 2 });
    expect(recent.isError).toBe(false);
    const data = recent.data as {
      notes: { path: string }[];
      entries: { link: string; date: string; text: string }[];
    };
    expect(data.notes).toHaveLength(2);
    expect(data.entries.map((e) => e.date)).toEqual(['2026-11-21', '2026-11-20']);
    expect(data.entries[0]?.text).toContain('Had tea with [[Mei Tanaka]]');
    expect(recent.text).toContain('## Recent entries\n- [[2026-11-21#^');
    expect((await call('memory_recent', { limit: 0 })).text).toContain(
      '"limit" must be a positive whole number',
    );
  });

  it('keeps every path inside the vault: ../ and absolute paths are refused and nothing is written outside', async () => {
    const outside = join(dirname(root), 'escaped');
    const attempts: [string, Record<string, unknown>][] = [
      ['memory_read_note', { path: '../escaped' }],
      ['memory_read_note', { path: '/etc/passwd' }],
      ['memory_backlinks', { path: '../../etc/passwd' }],
      ['memory_create_note', { path: '../escaped' }],
      ['memory_create_note', { path: outside }],
      ['memory_set_frontmatter', { path: '../escaped', set: { a: 1 } }],
      ['memory_move', { path: 'Tokyo', to: '../escaped' }],
      ['memory_move', { path: 'Tokyo', to: outside }],
      ['memory_forget', { path: '/etc/passwd' }],
    ];
    for (const [name, args] of attempts) {
      const result = await call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(result.text).toMatch(/^path outside the vault: /);
      expect(result.text).not.toContain(root);
    }
    expect(await exists(`${outside}.md`)).toBe(false);
    expect(await exists(join(root, 'insights/Tokyo.md'))).toBe(true);
  });

  it('serves each note as a Markdown resource, and refuses a resource outside the vault', async () => {
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'memvault://note/profile/user.md', mimeType: 'text/markdown' }),
    );
    expect(resources).toContainEqual(
      expect.objectContaining({
        uri: 'memvault://note/people/Mei%20Tanaka.md',
        name: 'people/Mei Tanaka.md',
      }),
    );
    const read = await client.readResource({ uri: 'memvault://note/profile/user.md' });
    expect(read.contents).toEqual([
      { uri: 'memvault://note/profile/user.md', mimeType: 'text/markdown', text: USER },
    ]);
    const spaced = await client.readResource({ uri: 'memvault://note/people/Mei%20Tanaka.md' });
    expect(spaced.contents[0]).toMatchObject({ text: expect.stringContaining('# Mei') });
    // A URL parser folds a `/../` segment (`%2E%2E` too) away before it is sent, so the client asks
    // for note/escaped; a `..` joined to the next segment by an encoded slash reaches the server.
    await expect(client.readResource({ uri: 'memvault://note/../escaped' })).rejects.toThrow(
      'note not found: escaped',
    );
    await expect(client.readResource({ uri: 'memvault://note/..%2Fescaped' })).rejects.toThrow(
      'path outside the vault: ../escaped',
    );
    await expect(client.readResource({ uri: 'memvault://note/%2Fetc%2Fpasswd' })).rejects.toThrow(
      'path outside the vault: /etc/passwd',
    );
  });
});

describe('the MCP server of a vault of another layout', () => {
  it("names this vault's folders in its instructions and tool descriptions", async () => {
    const layout = {
      persona: 'memory/persona',
      profile: 'memory/profile',
      episodes: 'memory/episodes',
      insights: 'memory/insights',
      archive: 'memory/archive',
      daily: { folder: 'Journal', format: 'DD.MM.YYYY', heading: 'Memory' },
    };
    const root = await makeVault(
      { 'memory/profile/user.md': '# User\n' },
      { config: { timezone: 'UTC', layout } },
    );
    const adopted = await connectMcp(root);
    try {
      const instructions = adopted.getInstructions() ?? '';
      expect(instructions).toContain('memory/profile/user.md');
      const described = (await adopted.listTools()).tools.map((t) => t.description ?? '').join('\n');
      for (const text of [instructions, described])
        expect(text).not.toMatch(/(?<![\w/.-])(persona|profile|insights|archive|episodes)\//);
    } finally {
      await adopted.close();
    }
  });
});
