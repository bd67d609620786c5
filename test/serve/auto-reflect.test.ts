import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReflectStatus } from '../../src/index.js';
import { git, gitInit, gitVault } from '../helpers/git.js';
import { type StubReply, startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';

// Real `mem serve` processes (built from dist/) reflecting in the background against a loopback
// stub model. Entries carry fixed times, so the episode they land in is known.

const PROFILE = { 'profile/user.md': '---\ntitle: Rain\n---\n# Rain\n' };
const DAY = 'episodes/daily/2026-11-29.md';
const at = (minute: number) => `2026-11-29T20:${String(minute).padStart(2, '0')}:00+08:00`;

const GOOD = JSON.stringify({
  operations: [
    {
      op: 'create_insight',
      path: 'insights/patterns/started-bouldering.md',
      title: 'Rain started bouldering',
      body: 'She goes twice a week ([[2026-11-29#^e1]]).',
      sources: ['[[2026-11-29#^e1]]'],
    },
    { op: 'mark_reflected', path: DAY },
  ],
});

const running: ChildProcess[] = [];
const stubs: Array<{ close: () => Promise<void> }> = [];

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  }
  await Promise.all(stubs.splice(0).map((stub) => stub.close()));
  await cleanupVaults();
});

async function stub(reply: () => StubReply) {
  const started = await startLlmStub(reply);
  stubs.push(started);
  return started;
}

function config(baseURL: string, reflect: object) {
  return { timezone: 'Asia/Shanghai', llm: { baseURL }, reflect };
}

async function serve(root: string, args?: string[]) {
  const started = await startServe(root, args);
  running.push(started.child);
  return started;
}

async function post(url: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const add = (url: string, text: string, minute: number, ids: object = {}) =>
  post(`${url}/memory/add`, { user_text: text, at: at(minute), ...ids });

/** The memories a search returns for `query` */
async function search(url: string, query: string, ids: object = {}): Promise<string[]> {
  const body = await post(`${url}/memory/search`, { query, ...ids });
  return (body['results'] as Array<{ memory: string }>).map((r) => r.memory);
}

async function reflectStatus(url: string, path = '/health'): Promise<ReflectStatus> {
  const body = (await (await fetch(`${url}${path}`)).json()) as { reflect: ReflectStatus };
  return body.reflect;
}

describe('mem serve reflecting in the background', () => {
  it('answers searches and adds while the model hangs, and a SIGTERM abandons the run, writing nothing', async () => {
    const model = await stub(() => ({ hang: true }));
    const root = await gitVault(PROFILE, { config: config(model.baseURL, { auto: { afterEntries: 2 } }) });
    const { child, url } = await serve(root);
    expect(await reflectStatus(url)).toMatchObject({ enabled: true, running: false, newEntries: 0 });

    await add(url, 'I started bouldering', 0);
    await add(url, 'My new shoes hurt', 1);
    await vi.waitFor(() => expect(model.hanging()).toBe(1), WAIT);
    expect(await reflectStatus(url)).toMatchObject({ running: true, newEntries: 0 });

    // The model still holds its answer: these were answered without waiting for it.
    expect(await add(url, 'Bought a hangboard for home', 2)).toMatchObject({ status: 'written', kept: 1 });
    expect(await search(url, 'hangboard')).toContainEqual(expect.stringContaining('Bought a hangboard'));
    expect((await post(`${url}/recall`, { query: 'bouldering' }))['hits']).not.toEqual([]);
    expect(model.hanging()).toBe(1);
    expect(model.requests).toHaveLength(1);
    expect(await reflectStatus(url, '/memory/health')).toMatchObject({ running: true, newEntries: 1 });

    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    // The model call is cut off, not waited for (its timeout is 120 s). The bound is half that, so
    // it holds on a machine with a load average of 10 (5 s did not) and still tells the two apart.
    expect(Date.now() - stoppedAt).toBeLessThan(60_000);

    expect(await git(root, 'log', '--format=%s')).not.toContain('mem: reflect');
    expect(existsSync(join(root, 'insights'))).toBe(false);
    expect(await readFile(join(root, DAY), 'utf8')).not.toContain('reflected:');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('shows a failing model in the status and retries with a doubling wait until a run succeeds', async () => {
    let mode: 'fail' | 'garbage' | 'good' = 'fail';
    const model = await stub(() =>
      mode === 'fail'
        ? { status: 500, body: '{"error":{"message":"model overloaded"}}' }
        : mode === 'garbage'
          ? { content: 'Sure! Here are some thoughts.', usage: { prompt_tokens: 5, completion_tokens: 7 } }
          : { content: GOOD, usage: { prompt_tokens: 700, completion_tokens: 30 } },
    );
    const root = await gitVault(PROFILE, {
      config: config(model.baseURL, {
        maxTokensPerDay: 1_000_000,
        auto: { afterEntries: 2, retrySeconds: 1 },
      }),
    });
    const { url } = await serve(root);
    await add(url, 'I started bouldering', 0);
    await add(url, 'My new shoes hurt', 1);

    const failed = await vi.waitFor(async () => {
      const status = await reflectStatus(url);
      expect(status.failures).toBe(1);
      return status;
    }, WAIT);
    expect(failed.lastRun).toMatchObject({ trigger: '2 new entries', applied: 0, committed: false });
    expect(failed.lastRun?.error).toMatch(
      /^the model call failed \(500 .*model overloaded\); nothing was written$/,
    );
    expect(failed.nextRun?.trigger).toBe('retry 1 after a failure');
    expect(failed.newEntries).toBe(2);
    // A failed run never fails a read or a write.
    expect(await search(url, 'bouldering')).toContainEqual(expect.stringContaining('I started bouldering'));

    mode = 'garbage';
    const garbled = await vi.waitFor(async () => {
      const status = await reflectStatus(url);
      expect(status.failures).toBe(2);
      return status;
    }, WAIT);
    expect(garbled.lastRun?.error).toContain("the model's answer is not valid JSON; nothing was written");
    expect(garbled.nextRun?.trigger).toBe('retry 2 after a failure');
    // The second wait is twice the first: 2 s after the failed run ended, not 1 s.
    const waited = Date.parse(garbled.nextRun?.at ?? '') - Date.parse(garbled.lastRun?.finishedAt ?? '');
    expect(waited).toBeGreaterThanOrEqual(1000);

    mode = 'good';
    await vi.waitFor(async () => expect((await reflectStatus(url)).lastRun?.committed).toBe(true), WAIT);
    const done = await reflectStatus(url);
    expect(done).toMatchObject({
      running: false,
      failures: 0,
      newEntries: 0,
      lastRun: {
        trigger: 'retry 2 after a failure',
        episodes: 1,
        applied: 2,
        refused: 0,
        usage: { promptTokens: 700, completionTokens: 30 },
      },
      budget: { used: 742, max: 1_000_000 },
    });
    expect(done.nextRun).toBeUndefined();
    expect(await git(root, 'log', '-1', '--format=%B', done.lastRun?.sha ?? 'HEAD')).toBe(
      'mem: reflect 1 episode, 2 operations\n\nmodel gpt-4o-mini: 700 prompt + 30 completion tokens\n\n',
    );
    expect(existsSync(join(root, 'insights/patterns/started-bouldering.md'))).toBe(true);
    expect(await search(url, 'started bouldering')).toContainEqual(expect.stringContaining('twice a week'));
  });

  it('skips a run over the daily token budget, says so in the status, and never asks the model', async () => {
    const model = await stub(() => GOOD);
    const root = await gitVault(PROFILE, {
      config: config(model.baseURL, { maxTokensPerDay: 10, auto: { afterEntries: 1 } }),
    });
    const { url } = await serve(root);
    await add(url, 'I started bouldering', 0);
    await vi.waitFor(async () => expect((await reflectStatus(url)).lastRun?.skipped).toBeDefined(), WAIT);
    const status = await reflectStatus(url);
    expect(status.lastRun?.skipped).toMatch(
      /^the daily budget would be passed: 0 of reflect\.maxTokensPerDay 10 tokens used/,
    );
    expect(status).toMatchObject({ failures: 0, newEntries: 1, budget: { used: 0, max: 10 } });
    expect(status.nextRun?.trigger).toBe('the daily token budget resets');
    expect(model.requests).toHaveLength(0);
  });

  it('gives each per-user vault its own runs: one model call in flight per vault', async () => {
    const model = await stub(() => ({ hang: true }));
    const dir = await makeVault();
    // The pool serves DIR/<agent_id>/<user_id>/; these two exist already, with reflect.auto on.
    for (const user of ['rain', 'mei']) {
      const root = join(dir, 'companion', user);
      await mkdir(join(root, 'profile'), { recursive: true });
      const settings = config(model.baseURL, { auto: { afterEntries: 1 } });
      await writeFile(join(root, 'mem.config.json'), JSON.stringify(settings));
      await writeFile(join(root, 'profile/user.md'), PROFILE['profile/user.md']);
      await gitInit(root);
    }
    const { url } = await serve(dir, ['--vaults', dir]);
    const rain = { agent_id: 'companion', user_id: 'rain' };
    const mei = { agent_id: 'companion', user_id: 'mei' };
    await add(url, 'I started bouldering', 0, rain);
    await add(url, 'I like tea', 0, mei);
    await vi.waitFor(() => expect(model.hanging()).toBe(2), WAIT);
    await add(url, 'Bought a hangboard', 1, rain);
    await add(url, 'Green tea, mostly', 1, mei);
    expect(model.requests).toHaveLength(2);
    const health = (await (await fetch(`${url}/memory/health?agent_id=companion&user_id=rain`)).json()) as {
      reflect: ReflectStatus;
    };
    expect(health.reflect).toMatchObject({ running: true, newEntries: 1 });
    expect(await search(url, 'hangboard', rain)).toContainEqual(
      expect.stringContaining('Bought a hangboard'),
    );
    expect(await search(url, 'hangboard', mei)).not.toContainEqual(
      expect.stringContaining('Bought a hangboard'),
    );
  });
});
