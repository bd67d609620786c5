import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';
import { VERSION } from '../core/version.js';
import { MemError, type Vault } from '../index.js';
import { notePathOf } from './routes.js';

export interface McpOptions {
  /** How long a read waits for a running refresh before answering with `"partial": true` (default: 1000 ms) */
  deadlineMs?: number;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

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

/** The memvault tools over one watched vault: recall, compile, read a note, remember. */
export function createMcpServer(vault: Vault, options: McpOptions = {}): McpServer {
  const deadlineMs = options.deadlineMs ?? 1000;
  const server = new McpServer({ name: 'memvault', version: VERSION });
  const read = async <T extends object>(fn: (vault: Vault) => T): Promise<T | (T & { partial: true })> => {
    const idle = await vault.whenIdle(deadlineMs);
    const value = fn(vault);
    return idle ? value : { ...value, partial: true as const };
  };

  server.registerTool(
    'memory_recall',
    {
      title: 'Recall memories',
      description:
        'Ranked memories (note sections) for a query, each with its [[citation]], score and reasons. Time words such as "last weekend" narrow episode entries to that range.',
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
    ({ query, k, now }) => answer(() => read((vault) => vault.recall(query, { k, now: parseNow(now) }))),
  );

  server.registerTool(
    'memory_compile',
    {
      title: 'Compile context',
      description:
        "The context document for one turn (persona, the user's profile, this message's memories, recent entries) within a token budget; its markdown goes into the prompt.",
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
      answer(() => read((vault) => vault.compile({ message, budget, now: parseNow(now) }))),
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
    ({ text, speaker, kind }) => answer(() => vault.remember({ text, speaker, kind })),
  );

  return server;
}

/**
 * Serves the tools over stdin/stdout until stdin ends (the client went away) or `close()`.
 * `closed` resolves then; the caller closes the vault.
 */
export async function serveMcp(
  vault: Vault,
  options: McpOptions = {},
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const server = createMcpServer(vault, options);
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
