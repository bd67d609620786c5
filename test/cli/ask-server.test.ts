import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveRecordPath } from '../../src/core/serve-record.js';
import { VERSION } from '../../src/core/version.js';
import { copyExampleVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';
import { exited, startServe } from '../helpers/serve-process.js';

const NOW = '2026-11-30T10:00:00+08:00';
const children: ChildProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A loopback server that records what it is asked and answers `answer`. */
async function fakeServer(answer: (path: string) => { status: number; body: unknown }) {
  const asked: { path: string; body: Record<string, unknown>; auth?: string }[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      asked.push({ path: request.url ?? '', body: JSON.parse(text), auth: request.headers.authorization });
      const { status, body } = answer(request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

async function writeRecord(root: string, record: object): Promise<void> {
  await mkdir(join(root, '.mem'), { recursive: true });
  await writeFile(serveRecordPath(root), JSON.stringify(record));
}

const cannedHit = {
  id: 'profile/served.md#x',
  path: 'profile/served.md',
  anchor: 'x',
  link: '[[served]]',
  title: 'served',
  layer: 'profile',
  snippet: 'answered by the running server',
  text: 'answered by the running server',
  score: 0.5,
  parts: { text: 1, graph: 0, recency: 0, importance: 0, layer: 0 },
  reasons: ['from the server'],
};

describe('the command line asks a running mem serve for the same vault', () => {
  it('sends the whole question, fresh, with the token, and prints the answer as its own', async () => {
    const root = await copyExampleVault();
    const fake = await fakeServer(() => ({ status: 200, body: { query: 'coffee', hits: [cannedHit] } }));
    await writeRecord(root, { url: fake.url, pid: process.pid, version: VERSION });

    const run = await mem(
      [
        '--vault',
        root,
        'recall',
        'coffee',
        '-k',
        '3',
        '--layer',
        'profile',
        '--from',
        '2026-11-01',
        '--now',
        NOW,
      ],
      { env: { MEM_TOKEN: 'secret' } },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[[served]]');
    expect(run.stdout).toContain('why: from the server');
    expect(fake.asked).toEqual([
      {
        path: '/recall',
        auth: 'Bearer secret',
        body: {
          query: 'coffee',
          k: 3,
          layers: ['profile'],
          range: { from: '2026-11-01', to: '9999-12-31' },
          // As written: the server reads it in the vault's zone (it carries an offset here).
          now: NOW,
          fresh: true,
        },
      },
    ]);
  });

  it('opens the vault itself when the server fails, is of another version, is gone, or --no-server is given', async () => {
    const root = await copyExampleVault();
    const failing = await fakeServer(() => ({ status: 500, body: { error: 'boom' } }));
    const local = await mem(['--vault', root, '--no-server', 'recall', '上海', '--now', NOW, '--json']);
    expect(local.code).toBe(0);
    expect(JSON.parse(local.stdout).hits.length).toBeGreaterThan(0);

    const records = [
      { url: failing.url, pid: process.pid, version: VERSION },
      { url: failing.url, pid: process.pid, version: `${VERSION}-other` },
      // A pid that no process has (above the kernel's pid_max).
      { url: failing.url, pid: 2 ** 30, version: VERSION },
      { url: 'http://127.0.0.1:1', pid: process.pid, version: VERSION },
      // Only loopback is ever asked.
      { url: 'http://192.0.2.1:7411', pid: process.pid, version: VERSION },
    ];
    for (const record of records) {
      await writeRecord(root, record);
      const run = await mem(['--vault', root, 'recall', '上海', '--now', NOW, '--json']);
      expect(run.code, JSON.stringify(record)).toBe(0);
      expect(run.stdout).toBe(local.stdout);
    }
    expect(failing.asked).toHaveLength(1);

    const answering = await fakeServer(() => ({ status: 200, body: { query: '上海', hits: [cannedHit] } }));
    await writeRecord(root, { url: answering.url, pid: process.pid, version: VERSION });
    const skipped = await mem(['--vault', root, '--no-server', 'recall', '上海', '--now', NOW, '--json']);
    expect(skipped.stdout).toBe(local.stdout);
    expect(answering.asked).toHaveLength(0);
  });

  it('a real server answers recall and compile exactly as a new process would, and sees a note written a moment ago', async () => {
    const root = await copyExampleVault();
    const server = await startServe(root);
    children.push(server.child);
    const record = JSON.parse(await readFile(serveRecordPath(root), 'utf8'));
    expect(record).toEqual({ url: server.url, pid: server.child.pid, version: VERSION });

    const questions = [
      ['recall', '上海', '--now', NOW, '--json'],
      ['recall', 'coffee', '-k', '3', '--layer', 'episodes', '--explain', '--now', NOW],
      [
        'recall',
        'what happened',
        '--from',
        '2026-11-20',
        '--to',
        '2026-11-29',
        '--all',
        '--now',
        NOW,
        '--json',
      ],
      ['compile', 'where am I moving?', '--budget', '800', '--now', NOW, '--json'],
      ['compile', '我们上周聊了什么', '--now', NOW],
    ];
    for (const question of questions) {
      const served = await mem(['--vault', root, ...question]);
      const local = await mem(['--vault', root, '--no-server', ...question]);
      expect(served.code, question.join(' ')).toBe(0);
      expect(served.stdout, question.join(' ')).toBe(local.stdout);
    }

    // Written behind the server's back and asked at once: the fresh read looks at the disk first.
    await writeFile(
      join(root, 'insights', 'zebra-crossing.md'),
      '# Zebra crossing\n\nThe user likes quokkas.\n',
    );
    const fresh = await mem(['--vault', root, 'recall', 'quokkas', '--json']);
    expect(JSON.parse(fresh.stdout).hits.map((h: { path: string }) => h.path)).toContain(
      'insights/zebra-crossing.md',
    );

    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
    expect(existsSync(serveRecordPath(root))).toBe(false);
  });
});
