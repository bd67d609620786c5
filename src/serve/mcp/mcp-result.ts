import type { Edge, Vault } from '../../internal.js';
import { hidePaths } from '../hide-paths.js';

/** A tool's answer: text for the model (and older clients), and the same data as structured JSON. */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * The error a model reads: the library's message, which names the field or note and what to do,
 * with the vault's folder and the home folder hidden (a client has no business knowing the disk).
 */
export function toolError(error: unknown, vault: Vault): ToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: hidePaths(message, vault.root) }], isError: true };
}

/** Runs a tool body whose value is the text the model reads and, when an output schema is declared, its data. */
export async function answerWith(
  vault: Vault,
  body: () => Promise<{ text: string | string[]; data?: Record<string, unknown> }>,
): Promise<ToolResult> {
  try {
    const { text, data } = await body();
    const texts = Array.isArray(text) ? text : [text];
    return {
      content: texts.map((t) => ({ type: 'text' as const, text: t })),
      ...(data ? { structuredContent: data } : {}),
    };
  } catch (error) {
    return toolError(error, vault);
  }
}

/** An edge as a client reads it: which note links where, the link as written and its line. */
export function edgeData(edge: Edge): { from: string; to?: string; link: string; line: number } {
  return { from: edge.from, ...(edge.to ? { to: edge.to } : {}), link: edge.link.raw, line: edge.link.line };
}

/** A commit's outcome in one phrase, for the text a model reads after a write. */
export function commitNote(result: { committed: boolean; sha?: string; reason?: string }): string {
  if (result.committed) return `committed${result.sha ? ` ${result.sha.slice(0, 7)}` : ''}`;
  return `not committed${result.reason ? ` (${result.reason})` : ''}`;
}
