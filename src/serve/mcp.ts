import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { VERSION } from '../core/version.js';
import type { Vault } from '../index.js';
import { compileArgs, readNoteArgs, recallArgs, rememberArgs } from './request-bodies.js';
import { notePathOf } from './routes.js';

export interface McpOptions {
  /** How long a read waits for a running refresh before answering with `"partial": true` (default: 1000 ms) */
  deadlineMs?: number;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

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
      inputSchema: recallArgs,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, k, now }) => answer(() => read((vault) => vault.recall(query, { k, now }))),
  );

  server.registerTool(
    'memory_compile',
    {
      title: 'Compile context',
      description:
        "The context document for one turn (persona, the user's profile, this message's memories, recent entries) within a token budget; its markdown goes into the prompt.",
      inputSchema: compileArgs,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ message, budget, now }) => answer(() => read((vault) => vault.compile({ message, budget, now }))),
  );

  server.registerTool(
    'memory_read_note',
    {
      title: 'Read a note',
      description:
        'One note by vault path (e.g. profile/user.md) or link text, with its links and backlinks.',
      inputSchema: readNoteArgs,
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
      inputSchema: rememberArgs,
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
