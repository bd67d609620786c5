import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const FILES: Record<string, string> = {
  'profile/user.md': '---\ntitle: Rain\n---\n# Rain\n\n## Likes\n- Oolong tea.\n',
  'episodes/daily/2026-11-29.md':
    '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 20:00 **Rain:** 我开始学攀岩了 ^e1\n',
};

const ANSWER = JSON.stringify({ operations: [] });

const reflectCli = (root: string, baseURL: string) =>
  mem(['reflect', '--vault', root, '--base-url', baseURL, '--now', '2026-12-01T10:00:00+08:00', '--dry-run']);

describe('reflect and the context window of a local model', () => {
  it('warns on stderr, naming both sizes, the URL and num_ctx, when the prompt is larger', async () => {
    const root = await makeVault(FILES, {
      config: { timezone: 'Asia/Shanghai', reflect: { contextWindow: 50 } },
    });
    const stub = await startLlmStub(() => ANSWER);
    try {
      const out = await reflectCli(root, stub.baseURL);
      expect(out.code).toBe(0);
      expect(stub.requests).toHaveLength(1);
      expect(out.stderr).toMatch(
        new RegExp(
          `^mem: warning: reflect's prompt is about (\\d+) tokens, more than reflect\\.contextWindow 50 of gpt-4o-mini at ${stub.baseURL.replace(/[.]/g, '\\.')};.*num_ctx`,
          'm',
        ),
      );
      const tokens = Number(/about (\d+) tokens/.exec(out.stderr)?.[1]);
      expect(tokens).toBeGreaterThan(50);
    } finally {
      await stub.close();
    }
  });

  it('says nothing when the prompt fits, or when no window is configured', async () => {
    const stub = await startLlmStub(() => ANSWER);
    try {
      for (const reflect of [{ contextWindow: 100_000 }, {}]) {
        const root = await makeVault(FILES, { config: { timezone: 'Asia/Shanghai', reflect } });
        const out = await reflectCli(root, stub.baseURL);
        expect(out.code).toBe(0);
        expect(out.stderr).toBe('');
      }
      expect(stub.requests).toHaveLength(2);
    } finally {
      await stub.close();
    }
  });

  it('with reflect.overContext "refuse", refuses before calling the model', async () => {
    const root = await makeVault(FILES, {
      config: { timezone: 'Asia/Shanghai', reflect: { contextWindow: 50, overContext: 'refuse' } },
    });
    const stub = await startLlmStub(() => ANSWER);
    try {
      const out = await reflectCli(root, stub.baseURL);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(
        /^mem: reflect's prompt is about \d+ tokens, more than reflect\.contextWindow 50 .*the run was refused and nothing was written/,
      );
      expect(stub.requests).toHaveLength(0);
    } finally {
      await stub.close();
    }
  });

  it('names the base URL when nothing answers there', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const root = await makeVault(FILES);
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const out = await reflectCli(root, baseURL);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`mem: the model call at ${baseURL} failed (`);
  });
});
