import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { openVault } from '../../src/index.js';
import { decodeTranscript, parseTranscript } from '../../src/write/import/parse-transcript.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem, memProcess } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const JSONL = [
  '{"role":"user","content":"我下个月搬到上海","timestamp":"2026-11-28T23:50:00+08:00"}',
  '{"role":"assistant","content":"恭喜！","timestamp":"2026-11-28T23:51:00+08:00"}',
  '{"speaker":"Rain","text":"Good morning","timestamp":1764464400}',
  '',
].join('\n');

const MESSAGES = JSON.stringify([
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: [{ type: 'text', text: 'Remind me about tea' }] },
  { role: 'assistant', content: 'Sure: oolong at 3pm.' },
]);

const PLAIN = 'Rain: 今天好累\n小满: 早点休息吧\n  要不要听点音乐？\nRain: ok\n';

describe('parseTranscript', () => {
  it('reads JSONL with role or speaker, content or text, ISO or epoch timestamps', () => {
    const turns = parseTranscript(JSONL, 'chat.jsonl', 'Asia/Shanghai');
    expect(turns.map((t) => [t.speaker, t.text, t.at?.toISOString()])).toEqual([
      ['user', '我下个月搬到上海', '2026-11-28T15:50:00.000Z'],
      ['assistant', '恭喜！', '2026-11-28T15:51:00.000Z'],
      ['Rain', 'Good morning', '2025-11-30T01:00:00.000Z'],
    ]);
  });

  it('reads an OpenAI messages array, skipping system turns and joining content parts', () => {
    expect(parseTranscript(MESSAGES, 'chat.json', 'Asia/Shanghai').map((t) => [t.speaker, t.text])).toEqual([
      ['user', 'Remind me about tea'],
      ['assistant', 'Sure: oolong at 3pm.'],
    ]);
  });

  it('reads "Speaker: text" lines, continuing a turn on lines without a speaker', () => {
    expect(parseTranscript(PLAIN, 'chat.txt', 'Asia/Shanghai').map((t) => [t.speaker, t.text])).toEqual([
      ['Rain', '今天好累'],
      ['小满', '早点休息吧\n要不要听点音乐？'],
      ['Rain', 'ok'],
    ]);
  });

  it('says which line is broken', () => {
    expect(() => parseTranscript('{"role":"user","content":"a"}\n{oops\n', 'bad.jsonl', 'UTC')).toThrow(
      'bad.jsonl:2: not valid JSON',
    );
    expect(() => parseTranscript('[{"role":"user"}]', 'bad.json', 'UTC')).toThrow(
      'bad.json: message 1: no "content" or "text" string',
    );
  });
});

describe('ingest', () => {
  it('groups turns into daily notes by local date and adds nothing on a second import', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    const first = await vault.ingest(JSONL, { name: 'chat.jsonl' });
    expect([first.added, first.skipped, first.days]).toEqual([3, 0, ['2025-11-30', '2026-11-28']]);
    const day = await readFile(join(root, 'episodes/daily/2026-11-28.md'), 'utf8');
    expect(day).toMatch(
      /- 23:50 \*\*user:\*\* 我下个月搬到上海 \^i[0-9a-f]{10}\n- 23:51 \*\*assistant:\*\* 恭喜！ \^i[0-9a-f]{10}\n$/,
    );
    const second = await vault.ingest(JSONL, { name: 'chat.jsonl' });
    expect([second.added, second.skipped, second.days]).toEqual([0, 3, []]);
    expect(await readFile(join(root, 'episodes/daily/2026-11-28.md'), 'utf8')).toBe(day);
    expect(vault.recall('上海').hits[0]?.path).toBe('episodes/daily/2026-11-28.md');
  });

  it('is idempotent for all three formats, and a longer transcript adds only its new turns', async () => {
    const root = await makeVault();
    const at = '2026-11-30T10:00:00+08:00';
    for (const [name, text] of [
      ['a.jsonl', JSONL],
      ['b.json', MESSAGES],
      ['c.txt', PLAIN],
    ] as const) {
      await writeFile(join(root, name), text);
      expect((await mem(['ingest', name, '--at', at], { cwd: root })).code).toBe(0);
      const again = await mem(['ingest', name, '--at', at], { cwd: root });
      expect(again.stdout).toMatch(
        /^0 entries added, \d+ skipped \(already in the vault\), 0 days touched\n$/,
      );
    }
    await writeFile(join(root, 'c.txt'), `${PLAIN}Rain: one more thing\n`);
    const more = await mem(['ingest', 'c.txt', '--at', at], { cwd: root });
    expect(more.stdout).toBe('1 entries added, 3 skipped (already in the vault), 1 days touched\n');
  });

  it('reads timestamps without an offset in the vault zone: two machines in other zones import the same file once', async () => {
    const root = await makeVault({}, { config: { timezone: 'America/Los_Angeles' } });
    const chat = [
      '{"role":"user","content":"Late dinner with Mia","timestamp":"2026-11-29T23:30:00"}',
      '{"role":"assistant","content":"How was it?","timestamp":"2026-11-29 23:31"}',
    ];
    await writeFile(join(root, 'chat.jsonl'), `${chat.join('\n')}\n`);
    // The same file imported on a machine in Shanghai, then on one in London.
    const first = await memProcess(['ingest', 'chat.jsonl'], { cwd: root, env: { TZ: 'Asia/Shanghai' } });
    expect(first).toMatchObject({
      code: 0,
      stdout: '2 entries added, 0 skipped (already in the vault), 1 days touched\n',
    });
    const second = await memProcess(['ingest', 'chat.jsonl'], { cwd: root, env: { TZ: 'Europe/London' } });
    expect(second.stdout).toBe('0 entries added, 2 skipped (already in the vault), 0 days touched\n');
    expect((await readdir(join(root, 'episodes/daily'))).sort()).toEqual(['2026-11-29.md']);
    expect(await readFile(join(root, 'episodes/daily/2026-11-29.md'), 'utf8')).toMatch(
      /\n- 23:30 \*\*user:\*\* Late dinner with Mia \^i[0-9a-f]{10}\n- 23:31 \*\*assistant:\*\* How was it\? \^i[0-9a-f]{10}\n$/,
    );
  });

  it('commits the touched days in one commit', async () => {
    const root = await makeVault();
    execFileSync('git', ['init', '-q'], { cwd: root });
    const result = await (await openVault({ path: root, cache: false })).ingest(JSONL, {
      name: 'chat.jsonl',
    });
    expect(result.committed).toBe(true);
    const log = execFileSync('git', ['log', '--format=%s', '--name-only'], { cwd: root, encoding: 'utf8' });
    expect(log).toBe(
      'mem: ingest chat.jsonl (3 entries)\n\nepisodes/daily/2025-11-30.md\nepisodes/daily/2026-11-28.md\n',
    );
  });

  it('refuses a binary file (NUL bytes, or bytes that are not UTF-8) and writes nothing', async () => {
    const root = await makeVault();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    // Named as a transcript could be, so the bytes are what refuses them.
    await writeFile(join(root, 'logo.log'), png);
    await writeFile(join(root, 'latin1.txt'), Buffer.from('user: caf\xe9\n', 'latin1'));

    for (const file of ['logo.log', 'latin1.txt']) {
      expect(await mem(['ingest', file], { cwd: root })).toEqual({
        code: 2,
        stdout: '',
        stderr: `mem: ${file}: looks like a binary file, not a transcript\n`,
      });
    }
    expect((await readdir(root)).sort()).toEqual(['latin1.txt', 'logo.log', 'mem.config.json']);
  });

  it("refuses a file whose name is not a transcript's (source code, images by name) and writes nothing", async () => {
    const root = await makeVault();
    await writeFile(
      join(root, 'app.py'),
      'def main():\n    print("hi")\nif __name__ == "__main__":\n    main()\n',
    );
    await writeFile(join(root, 'Notes.PY'), 'user: hello\n');
    for (const file of ['app.py', 'Notes.PY']) {
      const result = await mem(['ingest', file], { cwd: root });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^mem: ${file}: a \\.py file is not a transcript; ingest reads \\.json, `),
      );
    }
    expect((await readdir(root)).sort()).toEqual(['Notes.PY', 'app.py', 'mem.config.json']);
    // Every transcript ending, and a name without one, is read.
    for (const file of ['chat.jsonl', 'chat.TXT', 'chat.md', 'chat', '.hidden-chat'])
      expect(decodeTranscript(Buffer.from('user: hi\n'), file)).toBe('user: hi\n');
  });

  it('parseTranscript refuses text holding a NUL, and decodeTranscript keeps UTF-8 text as it is', () => {
    expect(() => parseTranscript('user: hi\0there', 'x.txt', 'UTC')).toThrow(
      new MemError('INVALID_ARGUMENT', 'x.txt: looks like a binary file, not a transcript'),
    );
    expect(decodeTranscript(Buffer.from('\uFEFFuser: café\n'), 'x.txt')).toBe('\uFEFFuser: café\n');
  });

  it('exits 1 with a clear message for a file that cannot be read or parsed', async () => {
    const root = await makeVault();
    expect(await mem(['ingest', 'missing.jsonl'], { cwd: root })).toMatchObject({
      code: 1,
      stderr: 'mem: cannot read missing.jsonl: ENOENT\n',
    });
    await writeFile(join(root, 'bad.json'), '[{"role": "user", "content": 1}]');
    expect((await mem(['ingest', 'bad.json'], { cwd: root })).stderr).toBe(
      'mem: bad.json: message 1: no "content" or "text" string\n',
    );
  });
});
