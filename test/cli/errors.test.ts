import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecallResult } from '../../src/api/open-vault.js';
import type { DoctorReport } from '../../src/indexing/doctor.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const FILES = {
  'profile/user.md': '---\ntitle: Rain\n---\nLives in [[Shanghai]].\n',
  'profile/places/Shanghai.md': '# Shanghai\n\nThe lighthouse is far away.\n',
  'episodes/daily/2026-11-21.md': '# 2026-11-21\n\n- 09:00 **Rain:** moved today ^e1\n',
  // Invalid YAML: a flow sequence that is never closed.
  'insights/broken.md':
    '---\ntitle: [unclosed\ntags: x\n---\n# Broken\n\nThe zeppelin hangar smells of rain.\n',
};

let vault: string;
const run = (args: string[]) => mem(['--vault', vault, ...args]);

let empty: string;

beforeAll(async () => {
  vault = await makeVault(FILES);
  empty = await mkdtemp(join(tmpdir(), 'memvault-novault-'));
});

afterAll(async () => {
  await cleanupVaults();
  await rm(empty, { recursive: true, force: true });
});

ignoreEnvVault();

describe('usage errors exit with 2', () => {
  it('an unknown command', async () => {
    const result = await run(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe("mem: unknown command 'frobnicate'\n(see: mem --help)\n");
  });

  it('a missing required argument', async () => {
    const result = await run(['show']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("mem: missing required argument 'note'\n(see: mem show --help)\n");
  });

  it('an option without its value', async () => {
    const result = await run(['recall', 'x', '-k']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("mem: option '-k <n>' argument missing\n(see: mem recall --help)\n");
  });

  it('an unknown option', async () => {
    const result = await run(['recall', 'x', '--frob']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "mem: unknown option '--frob'\n(Did you mean --from?)\n(see: mem recall --help)\n",
    );
  });

  it('a usage mistake in a nested command names the whole command', async () => {
    const result = await run(['note', 'set']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "mem: missing required argument 'note'\n(see: mem note set --help)\n",
    });
  });

  // The flags are checked by each verb's input schema (src/api/inputs/), so they are named as the
  // fields HTTP and MCP take, in the same words: `-k` is "k", `--from` is "range.from".
  it('-k abc names k', async () => {
    const result = await run(['recall', 'x', '-k', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('mem: "k" must be a positive whole number\n');
  });

  it('-k 0 and -k 1.5 are not positive whole numbers', async () => {
    for (const k of ['0', '1.5', '-3']) {
      const result = await run(['recall', 'x', '-k', k]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('mem: "k" must be a positive whole number\n');
    }
  });

  it('--now garbage, for recall and compile', async () => {
    for (const command of [
      ['recall', 'x'],
      ['compile', 'x'],
    ]) {
      const result = await run([...command, '--now', 'garbage']);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('mem: "now" must be an ISO 8601 date or time\n');
    }
  });

  it('--from 2026-13-45 (no month 13) and other malformed days', async () => {
    for (const day of ['2026-13-45', '2026-00-10', '2026-02-32', '26-11-21', '2026-11-21T10:00']) {
      const result = await run(['recall', 'x', '--from', day]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('mem: "range.from" must be a date YYYY-MM-DD\n');
    }
    const to = await run(['compile', 'x', '--to', '2026-13-45']);
    expect(to.code).toBe(2);
    expect(to.stderr).toBe('mem: "range.to" must be a date YYYY-MM-DD\n');
  });

  it('--from later than --to, for recall and compile', async () => {
    for (const command of ['recall', 'compile']) {
      const result = await run([command, 'x', '--from', '2026-11-05', '--to', '2026-11-01']);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: 'mem: "range.from" is after "range.to"\n',
      });
    }
  });

  it('--at garbage is refused, for remember and ingest', async () => {
    const remembered = await run(['remember', 'x', '--at', 'garbage']);
    expect(remembered).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mem: "at" must be an ISO 8601 date or time\n',
    });
    const ingested = await run(['ingest', 'chat.jsonl', '--at', 'garbage']);
    expect(ingested.code).toBe(2);
    expect(ingested.stderr).toBe('mem: --at must be an ISO 8601 date or time, got "garbage"\n');
  });

  // V8's Date.parse rolls 2026-02-30 over to 2026-03-02 instead of rejecting it: a check by
  // Date.parse alone once took a day that does not exist as a range bound.
  it('--from 2026-02-30 (a day that does not exist) is refused', async () => {
    const result = await run(['recall', 'x', '--from', '2026-02-30']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mem: "range.from" must be a date YYYY-MM-DD\n');
  });

  it('--layer nope names the layers it accepts', async () => {
    const result = await run(['recall', 'x', '--layer', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'mem: "layers" must list layers of persona, profile, episodes, insights, archive, other\n',
    );
  });

  it('--tokenizer must be a known encoding', async () => {
    const result = await run(['compile', 'x', '--tokenizer', 'gpt2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mem: "tokenizer" must be o200k_base or cl100k_base\n');
  });

  it('recall and compile without a message or --batch', async () => {
    expect(await run(['recall'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mem: recall needs a query (or --batch FILE)\n',
    });
    expect(await run(['compile'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mem: compile needs a message (or --batch FILE)\n',
    });
  });

  // The vault is opened (and indexed) before the options are checked, so in a folder without a vault
  // a usage error comes out as "no vault here" with exit 1, and the user fixes the wrong thing first.
  it('a usage error is reported as one even where there is no vault', async () => {
    const result = await mem(['recall', 'x', '-k', 'abc'], { cwd: empty });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mem: "k" must be a positive whole number\n');
  });
});

describe('runtime errors exit with 1 and one mem: line', () => {
  it('no vault found: exit 1, one line on stderr that starts with mem:', async () => {
    const result = await mem(['recall', 'x'], { cwd: empty });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n');
    expect(lines.length).toBe(2);
    expect(lines[1]).toBe('');
    expect(lines[0]).toBe(
      `mem: no vault here: no mem.config.json in ${empty} or above. Use --vault DIR, set MEM_VAULT, or run \`mem init\``,
    );
  });

  it('--vault naming a missing folder', async () => {
    const missing = join(empty, 'nope');
    const result = await mem(['--vault', missing, 'doctor']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `mem: vault folder not found: ${missing}\n` });
  });

  it('MEM_VAULT from the environment is used when --vault is not given', async () => {
    const result = await mem(['show', 'Shanghai', '--json'], { cwd: empty, env: { MEM_VAULT: vault } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).note.path).toBe('profile/places/Shanghai.md');
  });

  it('show does-not-exist: exit 1 with "note not found"', async () => {
    const result = await run(['show', 'does-not-exist']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'mem: note not found: does-not-exist\n' });
  });

  it('links and backlinks of a missing note: exit 1 with "note not found"', async () => {
    for (const command of ['links', 'backlinks']) {
      const result = await run([command, 'Tokyo']);
      expect(result).toEqual({ code: 1, stdout: '', stderr: 'mem: note not found: Tokyo\n' });
    }
  });

  it('an invalid mem.config.json: exit 1 naming the file', async () => {
    const root = await makeVault({ 'profile/a.md': '# A' });
    await writeFile(join(root, 'mem.config.json'), '{"timezone": ');
    const result = await mem(['--vault', root, 'doctor']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^mem: mem\.config\.json: invalid JSON \(.+\)\n$/);
  });

  it('a config value of the wrong type: exit 1 naming the key', async () => {
    const root = await makeVault({ 'profile/a.md': '# A' }, { config: { recall: { k: 'eight' } } });
    const result = await mem(['--vault', root, 'doctor']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mem: mem.config.json: recall.k must be a number, got "eight"\n',
    });
  });

  it('a config value out of range: exit 1 with one line naming the file and the key', async () => {
    const root = await makeVault({ 'profile/a.md': '# A' }, { config: { recall: { k: -3 } } });
    const result = await mem(['--vault', root, 'doctor']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mem: mem.config.json: recall.k must be greater than 0, got -3\n',
    });
  });

  it('an unknown config key: a one-line warning naming the key it likely meant, then the command runs', async () => {
    const root = await makeVault({ 'profile/a.md': '# A' }, { config: { timezon: 'Asia/Shanghai' } });
    const result = await mem([
      '--vault',
      root,
      'recall',
      'A',
      '--json',
      '--now',
      '2026-12-01T10:00:00+08:00',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'mem: mem.config.json: unknown key "timezon" (did you mean "timezone"?); it is ignored\n',
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ query: 'A' });
  });

  it('a --batch file with a line that is not JSON: exit 2 naming file and line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-batch-'));
    try {
      await writeFile(join(dir, 'q.jsonl'), '{"id":1,"query":"lighthouse"}\nnot json\n');
      const result = await mem(['--vault', vault, 'recall', '--batch', 'q.jsonl'], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('mem: q.jsonl:2: not valid JSON\n');
      // The line before the bad one was already answered.
      expect(JSON.parse(result.stdout.split('\n')[0]!).id).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a missing --history file: exit 1 naming the file, as ingest does', async () => {
    const result = await mem(['--vault', vault, 'compile', 'x', '--history', 'missing.txt'], { cwd: empty });
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'mem: cannot read missing.txt: ENOENT\n' });
  });

  it('an --out file in a missing folder: the system error once, without its code repeated', async () => {
    const result = await run(['compile', 'x', '--out', '/no/such/dir/x.md']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: "mem: ENOENT: no such file or directory, open '/no/such/dir/x.md'\n",
    });
  });

  it('a missing --batch file: exit 1 with the system error', async () => {
    const result = await mem(['--vault', vault, 'recall', '--batch', 'missing.jsonl'], { cwd: empty });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^mem: ENOENT: .*missing\.jsonl.*\n$/);
  });
});

describe('a note with invalid YAML frontmatter', () => {
  it('is still found by recall through its text', async () => {
    const result = await run(['recall', 'zeppelin', '--json']);
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout) as RecallResult;
    expect(data.hits[0]?.path).toBe('insights/broken.md');
    expect(data.hits[0]?.text).toContain('The zeppelin hangar smells of rain.');
  });

  it('is reported by doctor with its path and line', async () => {
    const result = await run(['doctor', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.invalidFrontmatter.length).toBe(1);
    expect(report.invalidFrontmatter[0]!.path).toBe('insights/broken.md');
    expect(report.invalidFrontmatter[0]!.message).toMatch(
      /^insights\/broken\.md: invalid frontmatter at line \d+ \(.+\); the note is indexed as plain text$/,
    );
    const text = await run(['doctor']);
    expect(text.stdout).toContain(
      'invalid frontmatter: 1\n  insights/broken.md: invalid frontmatter at line',
    );
  });
});
