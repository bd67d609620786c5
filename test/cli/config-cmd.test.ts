import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigEntry } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

const configText = (root: string) => readFile(join(root, 'mem.config.json'), 'utf8');

describe('mem config', () => {
  it('sets a dotted key as JSON, writes the file with 2 spaces and commits it', async () => {
    const root = await gitVault({ 'a.md': '# A\n' });
    const cli = (...args: string[]) => mem(['--vault', root, 'config', ...args]);

    const out = await cli('set', 'embeddings.enabled', 'true');

    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^embeddings\.enabled: false -> true \(committed [0-9a-f]{7}\)\n$/);
    expect(await configText(root)).toBe(
      '{\n  "timezone": "Asia/Shanghai",\n  "embeddings": {\n    "enabled": true\n  }\n}\n',
    );
    expect((await git(root, 'log', '-1', '--format=%s')).trim()).toBe('mem: config set embeddings.enabled');
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
    expect((await cli('get', 'embeddings.enabled')).stdout).toBe('true\n');
  });

  it('reads a value that is not JSON as text, and a JSON string as a string', async () => {
    const root = await makeVault();
    expect((await mem(['--vault', root, 'config', 'set', 'llm.model', 'qwen2.5:7b'])).code).toBe(0);
    expect((await mem(['--vault', root, 'config', 'set', 'timezone', '"UTC"'])).code).toBe(0);
    const saved = JSON.parse(await configText(root)) as Record<string, unknown>;
    expect(saved).toEqual({ timezone: 'UTC', llm: { model: 'qwen2.5:7b' } });
    const out = await mem(['--vault', root, 'config', 'get', 'llm.model', '--json']);
    expect(JSON.parse(out.stdout)).toEqual({ key: 'llm.model', value: 'qwen2.5:7b' });
  });

  it('refuses a value the schema refuses: exit 2, a clear message, the file unchanged', async () => {
    const root = await gitVault();
    const before = await configText(root);

    const out = await mem(['--vault', root, 'config', 'set', 'recall.k', '-3']);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe('mem: recall.k must be greater than 0, got -3; mem.config.json is unchanged\n');
    expect(await configText(root)).toBe(before);
    expect((await git(root, 'log', '--format=%s')).trim()).toBe('init');
  });

  it('refuses a layout that would misfile notes: a date format naming no one day, two layers in one folder', async () => {
    const root = await gitVault();
    const before = await configText(root);
    const format = await mem(['--vault', root, 'config', 'set', 'layout.daily.format', 'MM-DD']);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/^mem: .*layout\.daily\.format .*; mem\.config\.json is unchanged\n$/);
    const twin = await mem(['--vault', root, 'config', 'set', 'layout.insights', 'profile']);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toMatch(/layout\.insights and layout\.profile are both "profile"/);
    expect(await configText(root)).toBe(before);
  });

  it('refuses an unknown key with the key it likely meant', async () => {
    const root = await makeVault();
    const typo = await mem(['--vault', root, 'config', 'set', 'recall.halfLifeDay', '10']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      'unknown config key "recall.halfLifeDay" (did you mean "recall.halfLifeDays"?)',
    );
    const wrongGroup = await mem(['--vault', root, 'config', 'get', 'reflect.model']);
    expect(wrongGroup.code).toBe(2);
    expect(wrongGroup.stderr).toContain('(did you mean "llm.model"?)');
  });

  it('lists every key with its effective value, marking the defaults', async () => {
    const root = await makeVault({}, { config: { timezone: 'UTC', recall: { k: 5 } } });

    const text = await mem(['--vault', root, 'config', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^timezone +"UTC"\n/);
    expect(text.stdout).toMatch(/\nrecall\.k +5\n/);
    expect(text.stdout).toMatch(/\nrecall\.halfLifeDays +30 {2}\(default\)\n/);
    expect(text.stdout).toMatch(/\nllm\.baseURL +\(unset\) {2}\(default\)\n/);

    const entries = JSON.parse(
      (await mem(['--vault', root, 'config', 'list', '--json'])).stdout,
    ) as ConfigEntry[];
    const k = entries.find((e) => e.key === 'recall.k');
    expect(k).toMatchObject({
      value: 5,
      isDefault: false,
      description: 'Results returned when the caller gives no k',
    });
    expect(entries.find((e) => e.key === 'speakers')).toMatchObject({ value: {}, isDefault: true });
    expect(entries.some((e) => e.key === 'recall' || e.key === 'recall.weights')).toBe(false);
  });

  it('sets and unsets one key inside a setting of named values: speakers.user', async () => {
    const root = await gitVault({}, { config: { timezone: 'UTC', speakers: { assistant: '小满' } } });
    const cli = (...args: string[]) => mem(['--vault', root, 'config', ...args]);

    const out = await cli('set', 'speakers.user', 'Rain');

    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^speakers\.user: \(unset\) -> "Rain" \(committed [0-9a-f]{7}\)\n$/);
    expect(JSON.parse(await configText(root))).toEqual({
      timezone: 'UTC',
      speakers: { assistant: '小满', user: 'Rain' },
    });
    expect((await cli('get', 'speakers.user')).stdout).toBe('Rain\n');
    expect(JSON.parse((await cli('get', 'speakers', '--json')).stdout).value).toEqual({
      assistant: '小满',
      user: 'Rain',
    });
    // A value the setting refuses is refused as for any key; a key below a plain value is unknown.
    expect((await cli('set', 'speakers.user', '3')).code).toBe(2);
    expect((await cli('set', 'timezone.user', 'Rain')).stderr).toMatch(/unknown config key "timezone\.user"/);

    expect((await cli('unset', 'speakers.assistant')).code).toBe(0);
    expect((await cli('unset', 'speakers.user')).code).toBe(0);
    expect(JSON.parse(await configText(root))).toEqual({ timezone: 'UTC' });
  });

  it('says so and commits nothing when the vault is not in git', async () => {
    const root = await makeVault();
    const out = await mem(['--vault', root, 'config', 'set', 'compile.budget', '3000']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^compile\.budget: 2000 -> 3000 \(not committed: .+\)\n$/);
  });

  it('unsets a key so its default applies again, dropping a group it leaves empty, and commits it', async () => {
    const root = await gitVault(
      {},
      { config: { timezone: 'UTC', recall: { k: 5, weights: { graph: 0.5 } } } },
    );
    const cli = (...args: string[]) => mem(['--vault', root, 'config', ...args]);

    const out = await cli('unset', 'recall.weights.graph');

    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^recall\.weights\.graph: 0\.5 -> 1 \(default; committed [0-9a-f]{7}\)\n$/);
    expect(JSON.parse(await configText(root))).toEqual({ timezone: 'UTC', recall: { k: 5 } });
    expect((await git(root, 'log', '-1', '--format=%s')).trim()).toBe(
      'mem: config unset recall.weights.graph',
    );
    const again = await cli('unset', 'recall.weights.graph');
    expect(again.stdout).toBe('recall.weights.graph is not set in mem.config.json; its default 1 applies\n');
    expect((await git(root, 'log', '-1', '--format=%s')).trim()).toBe(
      'mem: config unset recall.weights.graph',
    );
  });

  it('tells that a running mem serve keeps the config it started with', async () => {
    const root = await makeVault();
    await mkdir(join(root, '.mem'), { recursive: true });
    // This test's own process stands in for the server: its pid is alive.
    const record = { url: 'http://127.0.0.1:7411', pid: process.pid, version: '0.0.0' };
    await writeFile(join(root, '.mem/serve.json'), JSON.stringify(record));

    const out = await mem(['--vault', root, 'config', 'set', 'compile.budget', '3000']);

    expect(out.code).toBe(0);
    expect(out.stderr).toBe(
      `mem: note: the mem serve running at http://127.0.0.1:7411 (pid ${process.pid}) read mem.config.json when it started; restart it for the change to apply\n`,
    );
  });
});
