import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { CONFIG_PAGE, configReference, configTableIn } from '../../scripts/config-reference.mjs';
import { configSchema, defaultConfig, loadConfig, resolveConfig } from '../../src/core/config/config.js';
import { MemError } from '../../src/core/errors.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

/** Runs resolveConfig and collects what it reports. */
function resolve(raw: unknown): { config: ReturnType<typeof defaultConfig>; notices: string[] } {
  const notices: string[] = [];
  const config = resolveConfig(raw, (message) => notices.push(message));
  return { config, notices };
}

function errorOf(raw: unknown): MemError {
  try {
    resolveConfig(raw);
  } catch (error) {
    if (error instanceof MemError) return error;
    throw error;
  }
  throw new Error('resolveConfig accepted the config');
}

describe('mem.config.json', () => {
  it('has the same defaults as before the schema', () => {
    expect({ ...defaultConfig(), timezone: 'Z' }).toEqual({
      timezone: 'Z',
      recall: {
        k: 8,
        halfLifeDays: 30,
        weights: { text: 1, graph: 1, recency: 0.15, importance: 0.15, layer: 0.1 },
        layerPrior: { persona: 0.6, profile: 0.9, insights: 1, episodes: 0.7, archive: 0.2, other: 0.5 },
      },
      compile: {
        budget: 2000,
        tokenizer: 'o200k_base',
        shares: { persona: 0.2, user: 0.2, relevant: 0.45, recent: 0.15 },
        recentEntries: 12,
      },
      embeddings: {
        enabled: false,
        provider: 'openai',
        model: 'text-embedding-3-small',
        apiKeyEnv: 'OPENAI_API_KEY',
        fusion: 'rrf',
        rrfK: 60,
        batchSize: 64,
      },
      git: { autoCommit: true, runHooks: false },
      sync: {
        remote: 'origin',
        intervalSeconds: 0,
        afterCommit: false,
        afterCommitGapSeconds: 5,
        ackTimeoutSeconds: 30,
        ackAfterPush: false,
      },
      llm: { model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY', timeoutMs: 120_000 },
      companion: { commit: 'exchange' },
      commitments: { windowDays: 7 },
      forget: { unrecalledDays: 180, importanceFactor: 0.5 },
      limits: { maxNoteChars: 2_000_000, maxLineChars: 20_000, maxLinksPerNote: 5000, decodedNotesMiB: 16 },
      reflect: { maxTokensPerDay: 0, overContext: 'warn', auto: { retrySeconds: 60 } },
      serve: { allowedHosts: [], allowedOrigins: [] },
      daemon: { enabled: true, minNotes: 2000, idleMinutes: 10 },
      layout: {
        persona: 'persona',
        profile: 'profile',
        episodes: 'episodes',
        insights: 'insights',
        archive: 'archive',
        daily: { folder: 'episodes/daily', format: 'YYYY-MM-DD', locale: 'en' },
      },
      allowPersonaEdits: false,
      followOutsideSymlinks: false,
      speakers: {},
    });
    expect(defaultConfig().timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  });

  it('keeps the defaults of the keys a file leaves out, at every level', () => {
    const { config, notices } = resolve({
      timezone: 'America/Los_Angeles',
      recall: { weights: { graph: 0.5 }, layerPrior: { archive: 0 } },
      llm: { baseURL: 'http://127.0.0.1:11434/v1' },
      speakers: { user: 'Rain' },
    });
    expect(notices).toEqual([]);
    expect(config.timezone).toBe('America/Los_Angeles');
    expect(config.recall.k).toBe(8);
    expect(config.recall.weights).toEqual({
      text: 1,
      graph: 0.5,
      recency: 0.15,
      importance: 0.15,
      layer: 0.1,
    });
    expect(config.recall.layerPrior.archive).toBe(0);
    expect(config.recall.layerPrior.insights).toBe(1);
    expect(config.llm).toEqual({
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'gpt-4o-mini',
      apiKeyEnv: 'OPENAI_API_KEY',
      timeoutMs: 120_000,
    });
    expect(config.speakers).toEqual({ user: 'Rain' });
  });

  it('refuses a wrong value with one line naming the file, the key and the value', () => {
    const cases: [unknown, string][] = [
      [{ recall: { k: -3 } }, 'mem.config.json: recall.k must be greater than 0, got -3'],
      [{ recall: { k: 2.5 } }, 'mem.config.json: recall.k must be a whole number, got 2.5'],
      [{ recall: { k: 'eight' } }, 'mem.config.json: recall.k must be a number, got "eight"'],
      [{ recall: 3 }, 'mem.config.json: recall must be an object, got 3'],
      [
        { recall: { layerPrior: { persona: 2 } } },
        'mem.config.json: recall.layerPrior.persona must be at most 1, got 2',
      ],
      [
        { compile: { tokenizer: 'gpt2' } },
        'mem.config.json: compile.tokenizer must be one of "o200k_base", "cl100k_base", got "gpt2"',
      ],
      [{ git: { autoCommit: 'yes' } }, 'mem.config.json: git.autoCommit must be true or false, got "yes"'],
      [{ llm: { baseURL: 'ftp://x' } }, 'mem.config.json: llm.baseURL must be an http(s) URL, got "ftp://x"'],
      [{ speakers: { user: 3 } }, 'mem.config.json: speakers.user must be a string, got 3'],
      [
        { recall: { k: 0 }, compile: { budget: 'big' } },
        'mem.config.json: recall.k must be greater than 0, got 0; compile.budget must be a number, got "big"',
      ],
      [
        { reflect: { auto: { dailyAt: '3:30' } } },
        'mem.config.json: reflect.auto.dailyAt must be a time of day as "HH:MM", e.g. "03:30", got "3:30"',
      ],
      [[1], 'mem.config.json: expected a JSON object'],
    ];
    for (const [raw, message] of cases) {
      const error = errorOf(raw);
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toBe(message);
    }
  });

  it('refuses a time zone that is not an IANA name', () => {
    expect(errorOf({ timezone: 'Mars/Olympus' }).message).toBe(
      'mem.config.json: timezone must be an IANA time zone such as "Asia/Shanghai" or "UTC", got "Mars/Olympus"',
    );
    expect(errorOf({ timezone: '+08:00 Beijing' }).code).toBe('INVALID_CONFIG');
  });

  it('warns about an unknown key, with the key it likely meant, and ignores it', () => {
    const { config, notices } = resolve({
      timezon: 'Asia/Tokyo',
      recall: { wieghts: { graph: 1 }, weights: { grpah: 2 }, layerPrior: { insight: 0.3 } },
      theme: 'dark',
    });
    expect(notices.sort()).toEqual([
      'mem: mem.config.json: unknown key "recall.layerPrior.insight" (did you mean "recall.layerPrior.insights"?); it is ignored',
      'mem: mem.config.json: unknown key "recall.weights.grpah" (did you mean "recall.weights.graph"?); it is ignored',
      'mem: mem.config.json: unknown key "recall.wieghts" (did you mean "recall.weights"?); it is ignored',
      'mem: mem.config.json: unknown key "theme"; it is ignored',
      'mem: mem.config.json: unknown key "timezon" (did you mean "timezone"?); it is ignored',
    ]);
    expect(config.timezone).toBe(defaultConfig().timezone);
    expect(config.recall.weights.graph).toBe(1);
  });

  it('reports an unknown key and a wrong value in the same file', () => {
    const notices: string[] = [];
    expect(() => resolveConfig({ recall: { kk: 3, k: -1 } }, (m) => notices.push(m))).toThrow(
      'mem.config.json: recall.k must be greater than 0, got -1',
    );
    expect(notices).toEqual([
      'mem: mem.config.json: unknown key "recall.kk" (did you mean "recall.k"?); it is ignored',
    ]);
  });

  it('loads from the vault folder, and reads a missing file as the defaults', async () => {
    const root = await makeVault({}, { config: { timezone: 'UTC', timezon: 'x' } });
    const notices: string[] = [];
    expect((await loadConfig(root, (m) => notices.push(m))).timezone).toBe('UTC');
    expect(notices).toHaveLength(1);
    const bare = await makeVault({});
    await writeFile(join(bare, 'mem.config.json'), '{"recall": {"k": -3}}');
    await expect(loadConfig(bare)).rejects.toThrow(
      'mem.config.json: recall.k must be greater than 0, got -3',
    );
  });
});

describe('the configuration reference', () => {
  it('in docs/configuration.md is the table the schema gives (node scripts/config-reference.mjs --write)', () => {
    const page = readFileSync(join(REPO_ROOT, CONFIG_PAGE), 'utf8');
    expect(configTableIn(page)).toBe(configReference(configSchema));
  });
});
