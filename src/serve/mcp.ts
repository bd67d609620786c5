import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';
import { type CompileResult, MemError, type RecallResult, type Vault } from '../index.js';
import { notePathOf } from './routes.js';
import type { LiveVault } from './vault-pool.js';

export interface McpOptions {
  /** How long a read waits for a running refresh before answering with `"partial": true` (default: 1000 ms) */
  deadlineMs?: number;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

function parseNow(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time))
    throw new MemError('INVALID_INPUT', `now must be an ISO 8601 date or time, got "${value}"`);
  return new Date(time);
}

/** Runs a tool body and turns its value, or its error, into text content holding JSON. */
async function answer(body: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await body(), null, 2) }] };
  } catch (error) {
    return { content: [{ type: 'text', text: (error as Error).message ?? String(error) }], isError: true };
  }
}

/** Tokens kept back from a compile budget for the metadata line under the document. */
const META_TOKENS = 40;

/** Runs a tool body whose value is already the text the model reads. */
async function answerText(body: () => Promise<string>): Promise<ToolResult> {
  try {
    return { content: [{ type: 'text', text: await body() }] };
  } catch (error) {
    return { content: [{ type: 'text', text: (error as Error).message ?? String(error) }], isError: true };
  }
}

function rangeNote(range: RecallResult['range']): string {
  return range ? ` · ${range.from} to ${range.to}${range.expression ? ` ("${range.expression}")` : ''}` : '';
}

/**
 * Recall as the model reads it: one line per hit (citation, when, who, a snippet), then one line
 * of metadata. The JSON with every score and reason is for `mem recall --json`, not for a prompt.
 */
function recallText(result: RecallResult, partial: boolean): string {
  const lines = result.hits.map((hit) => {
    const when = [hit.date, hit.time].filter(Boolean).join(' ');
    const meta = [when, hit.speaker].filter(Boolean).join(', ');
    return `- ${hit.link}${meta ? ` (${meta})` : ''} ${hit.snippet}`;
  });
  const meta = `memvault recall: ${result.hits.length} hits${rangeNote(result.range)}${partial ? ' · partial: the index was still refreshing' : ''}`;
  return `${lines.join('\n')}${lines.length > 0 ? '\n\n' : ''}${meta}`;
}

/** The compiled document, then one line of metadata; together within the budget asked for. */
function compileText(result: CompileResult, budget: number, partial: boolean): string {
  const meta = `memvault compile: ${result.used} tokens of a ${budget} budget${rangeNote(result.range)}${partial ? ' · partial: the index was still refreshing' : ''}`;
  return `${result.markdown}${result.markdown.endsWith('\n') || result.markdown === '' ? '' : '\n'}\n${meta}`;
}

/** The memvault tools over one live vault: recall, compile, read a note, remember. */
export function createMcpServer(live: LiveVault, options: McpOptions = {}): McpServer {
  const deadlineMs = options.deadlineMs ?? 1000;
  const server = new McpServer({ name: 'memvault', version: VERSION });
  const read = async <T extends object>(fn: (vault: Vault) => T): Promise<T | (T & { partial: true })> => {
    const idle = await live.watcher.whenIdle(deadlineMs);
    const value = fn(live.vault);
    return idle ? value : { ...value, partial: true as const };
  };
  const readText = async <T>(fn: (vault: Vault) => T, render: (value: T, partial: boolean) => string) => {
    const idle = await live.watcher.whenIdle(deadlineMs);
    return render(fn(live.vault), !idle);
  };

  server.registerTool(
    'memory_recall',
    {
      title: 'Recall memories',
      description:
        'Ranked memories (note sections) for a query, best first: one Markdown line each with its [[citation]], date, speaker and a snippet, then a line of metadata. Time words such as "last weekend" narrow episode entries to that range.',
      inputSchema: {
        query: z.string().describe('what to look for'),
        k: z.number().int().positive().optional().describe('how many results (default: 8)'),
        now: z
          .string()
          .optional()
          .describe('ISO 8601 moment recency and time words are measured from (default: now)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, k, now }) =>
      answerText(() => readText((vault) => vault.recall(query, { k, now: parseNow(now) }), recallText)),
  );

  server.registerTool(
    'memory_compile',
    {
      title: 'Compile context',
      description:
        "The context document for one turn (persona, the user's profile, this message's memories, recent entries) as Markdown for the prompt, then a line of metadata; all of it within the token budget.",
      inputSchema: {
        message: z.string().describe("this turn's user message"),
        budget: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('token budget (default: the vault config, 2000)'),
        now: z.string().optional().describe('ISO 8601 moment of the turn (default: now)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ message, budget, now }) =>
      answerText(() =>
        readText(
          (vault) => {
            const total = budget ?? vault.config.compile.budget;
            const result = vault.compile({
              message,
              budget: Math.max(0, total - META_TOKENS),
              now: parseNow(now),
            });
            return { result, total };
          },
          ({ result, total }, partial) => compileText(result, total, partial),
        ),
      ),
  );

  server.registerTool(
    'memory_read_note',
    {
      title: 'Read a note',
      description:
        'One note by vault path (e.g. profile/user.md) or link text, with its links and backlinks.',
      inputSchema: { path: z.string().describe('vault path, with or without .md, or link text') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path }) =>
      answer(() => {
        const ref = notePathOf(path);
        return read((vault) => {
          const note = vault.note(ref);
          return { note, links: vault.links(note.path), backlinks: vault.backlinks(note.path) };
        });
      }),
  );

  server.registerTool(
    'memory_remember',
    {
      title: 'Remember',
      description: "Appends an entry to today's episode note (git-committed) and indexes it at once.",
      inputSchema: {
        text: z.string().min(1).describe('what happened or was said'),
        speaker: z.string().optional().describe("who said it, e.g. the user's name"),
        kind: z.enum(['chat', 'event', 'note']).optional().describe('chat (default), event or note'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ text, speaker, kind }) =>
      answer(() => live.watcher.exclusive(() => live.vault.remember({ text, speaker, kind }))),
  );

  return server;
}

/**
 * Serves the tools over stdin/stdout until stdin ends (the client went away) or `close()`.
 * `closed` resolves then; the caller closes the vault's watcher.
 */
export async function serveMcp(
  live: LiveVault,
  options: McpOptions = {},
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const server = createMcpServer(live, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  // The SDK's stdio transport does not notice the end of stdin; a client that exits must end us.
  const end = () => void server.close();
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  await server.connect(transport);
  return {
    closed,
    close: async () => {
      process.stdin.off('end', end);
      process.stdin.off('close', end);
      await server.close();
    },
  };
}
