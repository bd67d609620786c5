import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

// Runs the built CLI (`npm run build` first), as an MCP client would.

afterAll(cleanupVaults);

/** A line that is not JSON (any text without a line break), or JSON that is no JSON-RPC message. */
const notJson = fc
  .string({ unit: 'grapheme', maxLength: 40 })
  .filter((s) => !/[\n\r]/.test(s))
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  });
const notRpc = fc
  .oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.record({ jsonrpc: fc.constant('1.0'), id: fc.integer(), method: fc.string() }),
  )
  .map((value) => JSON.stringify(value))
  .filter((line) => !/[\n\r]/.test(line));

describe('mem mcp, a line it cannot read', () => {
  it('answers every unreadable line with a JSON-RPC error (id null) and keeps serving', async () => {
    const lines = fc.sample(
      fc.oneof(
        notJson.map((line) => ({ line, code: -32700 })),
        notRpc.map((line) => ({ line, code: -32600 })),
      ),
      { numRuns: 60, seed: 22 },
    );
    const root = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), 'mcp', '--vault', root], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse(String((await replies.next()).value)) as Record<string, unknown>;
    try {
      for (const { line, code } of lines) {
        child.stdin.write(`${line}\n`);
        const reply = await next();
        expect({ line, id: reply['id'], code: (reply['error'] as { code: number }).code }).toEqual({
          line,
          id: null,
          code,
        });
      }
      // Still serving: a request after all of them is answered.
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`);
      expect(await next()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    } finally {
      child.kill();
    }
  }, 30_000);
});
