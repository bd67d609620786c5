import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/compile/count-tokens.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';

// Runs the built CLI (`npm run build` first), as Claude Desktop or Claude Code would.
let client: Client;
let root: string;

beforeAll(async () => {
  root = await makeVault({
    'profile/user.md': '# User\nLives in [[Tokyo]]. Loves ramen.\n',
    'insights/Tokyo.md': '# Tokyo\nA huge city with great ramen shops.\n',
  });
  client = await connectMcp(root);
});

afterAll(async () => {
  await client?.close();
  await cleanupVaults();
});

async function tool(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
  };
  return { isError: Boolean(result.isError), text: result.content.map((c) => c.text).join('') };
}

describe('mem mcp', () => {
  it('lists the memory tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'memory_backlinks',
      'memory_compile',
      'memory_create_note',
      'memory_edit_note',
      'memory_forget',
      'memory_move',
      'memory_read_note',
      'memory_recall',
      'memory_recent',
      'memory_remember',
      'memory_set_frontmatter',
    ]);
    const recall = tools.find((t) => t.name === 'memory_recall');
    expect(recall?.inputSchema.required).toEqual(['query']);
  });

  it('recalls memories as one cited line each, then a line of metadata', async () => {
    const result = await tool('memory_recall', { query: 'ramen', k: 2, now: '2026-12-01T10:00:00+08:00' });
    expect(result.isError).toBe(false);
    const lines = result.text.split('\n');
    expect(
      lines
        .filter((l) => l.startsWith('- '))
        .map((l) => /^- (\[\[[^\]]+\]\])/.exec(l)?.[1])
        .sort(),
    ).toEqual(['[[Tokyo#Tokyo]]', '[[user#User]]']);
    expect(lines.at(-1)).toBe('memvault recall: 2 hits');
  });

  it('compiles a context whose whole tool result stays within the budget', async () => {
    const result = await tool('memory_compile', { message: 'where should we eat ramen?', budget: 200 });
    expect(result.text).toContain('ramen');
    expect(result.text).not.toContain('"markdown"');
    expect(countTokens(result.text)).toBeLessThanOrEqual(200);
    expect(result.text.split('\n').at(-1)).toMatch(/^memvault compile: \d+ tokens of a 200 budget$/);
  });

  it('refuses a budget too small for the document and its metadata line, naming the minimum asked for', async () => {
    for (const budget of [10, 100, 103]) {
      const result = await tool('memory_compile', { message: 'ramen', budget });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        `compile: a budget of ${budget} tokens is too small to hold anything; the minimum here is 104 (64 for the document, 40 for the line under it)`,
      );
    }
    const smallest = await tool('memory_compile', { message: 'ramen', budget: 104 });
    expect(smallest.isError).toBe(false);
    expect(smallest.text.split('\n').at(-1)).toMatch(/^memvault compile: \d+ tokens of a 104 budget$/);
  });

  it("keeps a long vault's compile and recall results short (the JSON repeated every item)", async () => {
    const entries = Array.from(
      { length: 60 },
      (_, i) =>
        `- 10:${String(i).padStart(2, '0')} **Rain:** ramen shop number ${i} had a long queue, rich broth and thick noodles, worth the wait again ^e${i + 1}`,
    );
    const long = await makeVault({
      'episodes/daily/2026-11-20.md': `# 2026-11-20\n\n${entries.join('\n')}\n`,
    });
    const other = await connectMcp(long);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        ((await other.callTool({ name, arguments: args })) as { content: { text: string }[] }).content
          .map((c) => c.text)
          .join('');
      expect(
        countTokens(await call('memory_compile', { message: 'ramen broth', budget: 1000 })),
      ).toBeLessThanOrEqual(1000);
      const recalled = await call('memory_recall', { query: 'ramen broth', k: 8 });
      expect(recalled.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(8);
      expect(countTokens(recalled)).toBeLessThan(600);
    } finally {
      await other.close();
    }
  });

  it('reads a note with its backlinks, and refuses a path outside the vault', async () => {
    const read = (await client.callTool({
      name: 'memory_read_note',
      arguments: { path: 'Tokyo' },
    })) as unknown as {
      content: { text: string }[];
      structuredContent: { path: string; backlinks: { from: string }[] };
    };
    expect(read.content[0]?.text).toBe('# Tokyo\nA huge city with great ramen shops.\n');
    const note = read.structuredContent;
    expect(note.path).toBe('insights/Tokyo.md');
    expect(note.backlinks.map((e) => e.from)).toEqual(['profile/user.md']);
    expect(await tool('memory_read_note', { path: '../../etc/passwd' })).toEqual({
      isError: true,
      text: 'path outside the vault: ../../etc/passwd',
    });
    expect(await tool('memory_read_note', { path: 'Osaka' })).toEqual({
      isError: true,
      text: 'note not found: Osaka',
    });
  });

  it('remembers an entry that recall finds straight after', async () => {
    const written = (
      (await client.callTool({
        name: 'memory_remember',
        arguments: { text: 'Adopted a hedgehog', speaker: 'user' },
      })) as unknown as { structuredContent: { path: string; link: string } }
    ).structuredContent;
    expect(written.path).toMatch(/^episodes\/daily\/\d{4}-\d{2}-\d{2}\.md$/);
    const recalled = (await tool('memory_recall', { query: 'hedgehog' })).text;
    expect(recalled.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      expect.stringMatching(/^- \[\[\d{4}-\d{2}-\d{2}#\^\w+\]\] \(.*\) Adopted a hedgehog$/),
    ]);
  });

  it('refuses input that does not match the schema', async () => {
    const result = await tool('memory_recall', { query: 42 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Input validation error');
    expect(result.text).toContain('"query" must be a string');
  });

  it('refuses a missing field, an unknown field and a bad time, naming each', async () => {
    const missing = await tool('memory_remember', { speaker: 'Rain' });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toContain('"text" is required and must be a string');
    const unknown = await tool('memory_remember', { text: 'hi', mood: 'happy' });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toContain(
      'unknown field "mood"; expected text, speaker, kind, importance, tags, at',
    );
    const late = await tool('memory_compile', { message: 'hi', now: 'yesterday-ish' });
    expect(late).toMatchObject({ isError: true });
    expect(late.text).toContain('"now" must be an ISO 8601 date or time');
  });

  it('shows each tool the schema it enforces', async () => {
    const { tools } = await client.listTools();
    const remember = tools.find((t) => t.name === 'memory_remember')?.inputSchema;
    expect(remember).toMatchObject({
      type: 'object',
      required: ['text'],
      additionalProperties: false,
      properties: {
        text: { type: 'string', description: 'what happened or was said' },
        kind: { enum: ['chat', 'event', 'note'] },
      },
    });
    const compile = tools.find((t) => t.name === 'memory_compile')?.inputSchema;
    expect(compile?.properties?.['now']).toMatchObject({ type: 'string' });
  });
});
