import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { VERSION } from '../../core/version.js';
import { type CompileResult, MemError, MIN_BUDGET, type RecallResult, type Vault } from '../../internal.js';
import { compileArgs, recallArgs } from '../request-bodies.js';
import { MCP_INSTRUCTIONS } from './mcp-instructions.js';
import { registerNoteTools } from './mcp-note-tools.js';
import { registerWriteTools } from './mcp-write-tools.js';

export interface McpOptions {
  /** How long a read waits for a running refresh before answering with `"partial": true` (default: 1000 ms) */
  deadlineMs?: number;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

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

/** Only with embeddings on: whether meaning joined the ranking (a few tokens of the line). */
function embeddingsNote(use: RecallResult['embeddings']): string {
  if (!use) return '';
  return use.ranking === 'fused'
    ? ' · ranked by words and meaning'
    : ' · ranked by words only (embeddings unavailable)';
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
  const meta = `memvault recall: ${result.hits.length} hits${rangeNote(result.range)}${embeddingsNote(result.embeddings)}${partial ? ' · partial: the index was still refreshing' : ''}`;
  return `${lines.join('\n')}${lines.length > 0 ? '\n\n' : ''}${meta}`;
}

/** The compiled document, then one line of metadata; together within the budget asked for. */
function compileText(result: CompileResult, budget: number, partial: boolean): string {
  const meta = `memvault compile: ${result.used} tokens of a ${budget} budget${rangeNote(result.range)}${embeddingsNote(result.embeddings)}${partial ? ' · partial: the index was still refreshing' : ''}`;
  return `${result.markdown}${result.markdown.endsWith('\n') || result.markdown === '' ? '' : '\n'}\n${meta}`;
}

/**
 * The memvault tools over one watched vault: recall and compile; read, list and trace notes; remember,
 * create, edit frontmatter, move and forget (archive); and each note as a `memvault://note/…` resource.
 */
export function createMcpServer(vault: Vault, options: McpOptions = {}): McpServer {
  const deadlineMs = options.deadlineMs ?? 1000;
  // The instructions and every tool's description name this vault's folders, so an agent that
  // follows them writes where the layers are (an adopted Obsidian vault keeps them under memory/).
  const server = new McpServer(
    { name: 'memvault', version: VERSION },
    { instructions: vault.inLayout(MCP_INSTRUCTIONS) },
  );
  const register = server.registerTool.bind(server);
  server.registerTool = ((name: string, config: { description?: string }, callback: never) =>
    register(
      name,
      {
        ...config,
        ...(config.description ? { description: vault.inLayout(config.description) } : {}),
      } as never,
      callback,
    )) as typeof server.registerTool;
  const readText = async <T>(
    fn: (vault: Vault) => T | Promise<T>,
    render: (value: T, partial: boolean) => string,
  ) => {
    const idle = await vault.whenIdle(deadlineMs);
    return render(await fn(vault), !idle);
  };

  server.registerTool(
    'memory_recall',
    {
      title: 'Recall memories',
      description:
        'Ranked memories (note sections) for a query, best first: one Markdown line each with its [[citation]], date, speaker and a snippet, then a line of metadata. Time words such as "last weekend" narrow episode entries to that range.',
      inputSchema: recallArgs,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, k, now, layers, range, all }) =>
      answerText(() =>
        readText((vault) => vault.recallAsync(query, { k, now, layers, range, all }), recallText),
      ),
  );

  server.registerTool(
    'memory_compile',
    {
      title: 'Compile context',
      description:
        "The context document for one turn (persona, the user's profile, this message's memories, recent entries) as Markdown for the prompt, then a line of metadata; all of it within the token budget.",
      inputSchema: compileArgs,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ message, budget, now, range, history, tokenizer }) =>
      answerText(() =>
        readText(
          async (vault) => {
            const total = budget ?? vault.config.compile.budget;
            // The metadata line's share comes out of the budget asked for, so the minimum is the caller's.
            if (!(total >= MIN_BUDGET + META_TOKENS))
              throw new MemError(
                'INVALID_ARGUMENT',
                `compile: a budget of ${total} tokens is too small to hold anything; the minimum here is ${MIN_BUDGET + META_TOKENS} (${MIN_BUDGET} for the document, ${META_TOKENS} for the line under it)`,
              );
            // compileAsync: with embeddings on, the semantic ranking is fused in, as memory_recall does.
            const result = await vault.compileAsync({
              message,
              budget: total - META_TOKENS,
              now,
              range,
              history,
              tokenizer,
            });
            return { result, total };
          },
          ({ result, total }, partial) => compileText(result, total, partial),
        ),
      ),
  );

  registerNoteTools(server, vault, () => vault.whenIdle(deadlineMs));
  registerWriteTools(server, vault);

  return server;
}

/** The JSON-RPC error for a line the transport could not read, or undefined for other errors. */
export function unreadableLine(
  error: Error,
): { jsonrpc: '2.0'; id: null; error: { code: number; message: string } } | undefined {
  if (error instanceof SyntaxError)
    return { jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${error.message}` } };
  // The line was JSON but no JSON-RPC message (the SDK checks it with zod).
  if (error.name === 'ZodError')
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' },
    };
  return undefined;
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
  // The SDK drops a line it cannot read (it only calls onerror), and the client waits for an answer
  // that never comes. JSON-RPC says: a parse error (-32700) or an invalid request (-32600), id null.
  // Set before connect: the server's own handler is chained after this one.
  transport.onerror = (error) => {
    const answer = unreadableLine(error);
    if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
  };
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
