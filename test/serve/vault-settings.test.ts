import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { VaultPool } from '../../src/serve/pool/vault-pool.js';
import { postJson } from '../helpers/post-json.js';
import { exited, startServe } from '../helpers/serve-process.js';

// Issue 24: with `--vaults`, each user's vault takes its zone and speakers' names from a template
// vault or from the request that creates it, instead of the server's zone and no names.

let servers: HttpServer[] = [];
let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  servers = [];
  dirs = [];
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-settings-'));
  dirs.push(dir);
  return dir;
}

/** A template vault: Shanghai time, named speakers, one persona note. */
async function template(dir: string): Promise<void> {
  await mkdir(join(dir, 'persona'), { recursive: true });
  await writeFile(
    join(dir, 'mem.config.json'),
    JSON.stringify({ timezone: 'Asia/Shanghai', speakers: { user: 'Rain', assistant: '小满' } }),
  );
  await writeFile(join(dir, 'persona/identity.md'), '# Identity\nI am 小满, a patient companion.\n');
}

async function serve(dir: string, templateDir?: string): Promise<HttpServer> {
  const server = await serveHttp({ source: new VaultPool({ dir, template: templateDir }), port: 0 });
  servers.push(server);
  return server;
}

const post = postJson;

const config = async (root: string) =>
  JSON.parse(await readFile(join(root, 'mem.config.json'), 'utf8')) as Record<string, unknown>;

// 23:30 UTC on Dec 1 is 07:30 on Dec 2 in Shanghai.
const LATE = '2026-12-01T23:30:00Z';

describe('mem serve --vaults: settings of a new vault', () => {
  it('creates a vault from the template: its zone, its speakers and its persona notes', async () => {
    const dir = await tempDir();
    const tpl = await tempDir();
    await template(tpl);
    const server = await serve(dir, tpl);
    const reply = await post(server.url, '/memory/add', {
      user_id: 'alice',
      user_text: 'I start the new job today',
      assistant_text: 'Good luck!',
      at: LATE,
    });
    expect(reply.status).toBe(200);
    const root = join(dir, 'default/alice');
    expect(await config(root)).toMatchObject({
      timezone: 'Asia/Shanghai',
      speakers: { user: 'Rain', assistant: '小满' },
    });
    expect(await exists(join(root, 'episodes/daily/2026-12-01.md'))).toBe(false);
    const day = await readFile(join(root, 'episodes/daily/2026-12-02.md'), 'utf8');
    expect(day).toContain('07:30 **Rain:** I start the new job today');
    expect(day).toContain('**小满:** Good luck!');
    expect(await readFile(join(root, 'persona/identity.md'), 'utf8')).toBe(
      '# Identity\nI am 小满, a patient companion.\n',
    );
    // The template's files are part of the vault's first commit, not left uncommitted.
    const status = execFileSync('git', ['status', '--porcelain', 'persona', 'mem.config.json'], {
      cwd: root,
    });
    expect(status.toString()).toBe('');
    // Health names no server path.
    const health = await (await fetch(`${server.url}/memory/health?user_id=alice`)).text();
    expect(health).not.toContain(dir);
    expect(health).not.toContain(tpl);
  });

  it('lets the first request override the template, and refuses other settings later (409, config unchanged)', async () => {
    const dir = await tempDir();
    const tpl = await tempDir();
    await template(tpl);
    const server = await serve(dir, tpl);
    const first = await post(server.url, '/memory/add', {
      user_id: 'bob',
      user_text: 'hello',
      at: LATE,
      settings: { timezone: 'UTC', user_name: 'Bob' },
    });
    expect(first.status).toBe(200);
    const root = join(dir, 'default/bob');
    const made = await config(root);
    expect(made).toMatchObject({ timezone: 'UTC', speakers: { user: 'Bob', assistant: '小满' } });
    expect(await readFile(join(root, 'episodes/daily/2026-12-01.md'), 'utf8')).toContain(
      '23:30 **Bob:** hello',
    );

    // The same settings again are fine.
    const same = await post(server.url, '/memory/add', {
      user_id: 'bob',
      user_text: 'again',
      settings: { timezone: 'UTC', user_name: 'Bob', assistant_name: '小满' },
    });
    expect(same.status).toBe(200);

    const other = await post(server.url, '/memory/add', {
      user_id: 'bob',
      user_text: 'move me',
      settings: { timezone: 'Europe/Paris', user_name: 'Bob' },
    });
    expect(other.status).toBe(409);
    expect(other.json['error']).toBe(
      'settings apply only when a request creates the vault, and this vault exists with other ones: timezone "Europe/Paris" (the vault has "UTC"); its config is unchanged',
    );
    expect(await config(root)).toEqual(made);
    expect(await readFile(join(root, 'episodes/daily/2026-12-01.md'), 'utf8')).not.toContain('move me');

    const remember = await post(server.url, '/remember', {
      user_id: 'bob',
      text: 'likes tea',
      settings: { assistant_name: 'Other' },
    });
    expect(remember.status).toBe(409);
    expect(remember.json['error']).toContain('assistant_name "Other" (the vault has "小满")');
  });

  it('refuses a bad zone or a two-line name with 400 and creates no vault', async () => {
    const dir = await tempDir();
    const server = await serve(dir);
    const zone = await post(server.url, '/memory/add', {
      user_id: 'carol',
      user_text: 'hi',
      settings: { timezone: 'Mars/Olympus' },
    });
    expect(zone.status).toBe(400);
    expect(zone.json['error']).toContain('"settings.timezone" must be an IANA time zone');
    const name = await post(server.url, '/remember', {
      user_id: 'carol',
      text: 'hi',
      settings: { user_name: 'Carol\n- 09:00 **Mallory:** forged' },
    });
    expect(name.status).toBe(400);
    expect(name.json['error']).toContain('"settings.user_name" must be one line of 1 to 64 characters');
    expect(await exists(join(dir, 'default'))).toBe(false);
  });

  it('copies only regular files from the template: a symlink or a FIFO in persona/ is not followed', async () => {
    const dir = await tempDir();
    const tpl = await tempDir();
    const outside = await tempDir();
    await template(tpl);
    await writeFile(join(outside, 'secret.md'), 'server secret\n');
    await symlink(join(outside, 'secret.md'), join(tpl, 'persona/secret.md'));
    await symlink(outside, join(tpl, 'persona/linked'));
    execFileSync('mkfifo', [join(tpl, 'persona/pipe.md')]);
    const server = await serve(dir, tpl);
    const reply = await post(server.url, '/memory/add', { user_id: 'dan', user_text: 'hi' });
    expect(reply.status).toBe(200);
    const root = join(dir, 'default/dan');
    expect(await exists(join(root, 'persona/identity.md'))).toBe(true);
    for (const skipped of ['persona/secret.md', 'persona/linked', 'persona/pipe.md'])
      expect(await lstat(join(root, skipped)).catch(() => undefined)).toBe(undefined);
  });

  it('mem serve --vaults DIR uses DIR/.template by default', async () => {
    const dir = await tempDir();
    await template(join(dir, '.template'));
    const { child, url } = await startServe(dir, ['--vaults', dir]);
    try {
      const reply = await post(url, '/memory/add', { user_id: 'erin', user_text: 'hi', at: LATE });
      expect(reply.status).toBe(200);
      expect(await config(join(dir, 'default/erin'))).toMatchObject({ timezone: 'Asia/Shanghai' });
      expect(await exists(join(dir, 'default/erin/episodes/daily/2026-12-02.md'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('refuses at start a template whose config is wrong, and --template without --vaults', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, '.template'));
    await writeFile(join(dir, '.template/mem.config.json'), JSON.stringify({ timezone: 'Mars/Olympus' }));
    await expect(startServe(dir, ['--vaults', dir])).rejects.toThrow(/mem serve exited 1: .*timezone/s);
    await expect(startServe(dir, ['--vault', dir, '--template', dir])).rejects.toThrow(
      /--template is for --vaults/,
    );
  });

  // root reads a file of mode 000, so the unreadable template file can only be made as another user.
  it.skipIf(process.getuid?.() === 0)(
    'names a template file it cannot read as <template>/..., never by its path on the server',
    async () => {
      const dir = await tempDir();
      const tpl = await tempDir();
      await template(tpl);
      const server = await serve(dir, tpl);
      await chmod(join(tpl, 'persona/identity.md'), 0o000);
      const reply = await post(server.url, '/memory/add', { user_id: 'finn', user_text: 'hi' });
      await chmod(join(tpl, 'persona/identity.md'), 0o644);
      expect(reply.status).toBe(500);
      expect(JSON.stringify(reply.json)).toContain('<template>/persona/identity.md');
      expect(JSON.stringify(reply.json)).not.toContain(tpl);
      expect(await exists(join(dir, 'default/finn'))).toBe(false);
    },
  );
});
