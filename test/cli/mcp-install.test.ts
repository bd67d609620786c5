import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';

// `mem mcp install` run as a real process (dist/cli/main.js; `npm run build` first) with its own
// HOME, XDG_CONFIG_HOME and APPDATA in a temp folder: it writes the clients' real files there.
const MAIN = join(REPO_ROOT, 'dist/cli/main.js');
const EXAMPLES = join(REPO_ROOT, 'examples/mcp');
const PLACEHOLDER = '/absolute/path/to/your/vault';
const made: string[] = [];
let vault: string;
let shimBin: string;
/** PATH with a `mem` that is this install, and Node's own folder. */
let pathWithMem: string;
/** PATH without any `mem`. */
const pathWithoutMem = dirname(process.execPath);

beforeAll(async () => {
  vault = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
  shimBin = await temp();
  await symlink(MAIN, join(shimBin, 'mem'));
  pathWithMem = [shimBin, pathWithoutMem].join(delimiter);
});

afterAll(async () => {
  await cleanupVaults();
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mem-mcp-install-'));
  made.push(dir);
  return dir;
}

/** A fresh home, and the env that points every client's user folder into it. */
async function freshHome(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const home = await temp();
  return {
    home,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      APPDATA: join(home, 'AppData'),
      PATH: pathWithMem,
    },
  };
}

function install(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  return memProcess(['mcp', 'install', ...args], { env, cwd });
}

// Where each client's user file is on Linux, written out here rather than taken from the code.
const USER_FILES: Record<string, string> = {
  'claude-desktop': '.config/Claude/claude_desktop_config.json',
  'claude-code': '.claude.json',
  cursor: '.cursor/mcp.json',
  vscode: '.config/Code/User/mcp.json',
  codex: '.codex/config.toml',
};
const PROJECT_FILES: Record<string, string> = {
  'claude-code': '.mcp.json',
  cursor: '.cursor/mcp.json',
  vscode: '.vscode/mcp.json',
  codex: '.codex/config.toml',
};
const EXAMPLE_OF: Record<string, string> = {
  'claude-desktop': 'claude-desktop.json',
  'claude-code': 'claude-code.mcp.json',
  cursor: 'cursor.mcp.json',
  vscode: 'vscode.mcp.json',
  codex: 'codex.config.toml',
};
const CLIENTS = Object.keys(USER_FILES);

interface Entry {
  command: string;
  args: string[];
  type?: string;
  env?: Record<string, string>;
}

/** The memvault entry a written file holds (TOML: the two keys the table has). */
function entryIn(client: string, text: string): Entry | undefined {
  if (client === 'codex') {
    const table = /^\[mcp_servers\.memvault\]\n((?:[^[\n].*\n?)*)/m.exec(text)?.[1];
    if (table === undefined) return undefined;
    return Object.fromEntries(
      [...table.matchAll(/^(\w+) = (.+)$/gm)].map(([, k, v]) => [k, JSON.parse(v ?? '')]),
    ) as Entry;
  }
  const parsed = JSON.parse(text) as Record<string, Record<string, Entry>>;
  return parsed[client === 'vscode' ? 'servers' : 'mcpServers']?.['memvault'];
}

describe('mem mcp install --print', () => {
  it.each(CLIENTS)(
    '%s prints examples/mcp/ byte for byte when mem on PATH is this install',
    async (client) => {
      const { env } = await freshHome();
      const run = await install([client, '--print', '--vault', PLACEHOLDER], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(await readFile(join(EXAMPLES, EXAMPLE_OF[client] ?? ''), 'utf8'));
    },
  );

  it('prints node and the absolute main.js when no mem on PATH is this install', async () => {
    const { env } = await freshHome();
    const run = await install(['cursor', '--print', '--vault', PLACEHOLDER], {
      ...env,
      PATH: pathWithoutMem,
    });
    const entry = entryIn('cursor', run.stdout);
    expect(entry).toEqual({ command: process.execPath, args: [MAIN, 'mcp', '--vault', PLACEHOLDER] });
  });
});

describe('mem mcp install writes the client file', () => {
  it.each(CLIENTS)('%s: a new user file whose entry starts a server that answers', async (client) => {
    const { home, env } = await freshHome();
    const run = await install([client, '--vault', vault], { ...env, PATH: pathWithoutMem });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const file = join(home, USER_FILES[client] ?? '');
    expect(run.stdout).toContain(`added memvault in`);
    expect(run.stdout).toContain(file);
    const entry = entryIn(client, await readFile(file, 'utf8'));
    expect(entry?.command).toBe(process.execPath);
    expect(entry?.args).toEqual([MAIN, 'mcp', '--vault', vault]);
    // Start the server exactly as the client would, from what the file says.
    const mcp = new Client({ name: 'mem-install-test', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({
        command: entry?.command ?? '',
        args: entry?.args ?? [],
        env: { PATH: pathWithoutMem, HOME: home, ...entry?.env },
        stderr: 'ignore',
      }),
    );
    try {
      const result = (await mcp.callTool({ name: 'memory_recall', arguments: { query: 'ramen' } })) as {
        content: { text: string }[];
      };
      expect(result.content[0]?.text).toContain('[[user#User]]');
    } finally {
      await mcp.close();
    }
  });

  it.each(Object.keys(PROJECT_FILES))(
    '%s --scope project writes the file in the working directory',
    async (client) => {
      const { home, env } = await freshHome();
      const project = await temp();
      const run = await install([client, '--scope', 'project', '--vault', vault], env, project);
      expect(run.code).toBe(0);
      const entry = entryIn(client, await readFile(join(project, PROJECT_FILES[client] ?? ''), 'utf8'));
      expect(entry?.command).toBe('mem');
      expect(entry?.args).toEqual(['mcp', '--vault', vault]);
      expect(await readdir(home)).toEqual([]);
    },
  );

  it('refuses --scope project for Claude Desktop, which has only a user file', async () => {
    const { home, env } = await freshHome();
    const run = await install(['claude-desktop', '--scope', 'project', '--vault', vault], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Claude Desktop has a user config only');
    expect(await readdir(home)).toEqual([]);
  });

  it('refuses a folder that is not a vault, writing nothing', async () => {
    const { home, env } = await freshHome();
    const run = await install(['cursor', '--vault', home], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not a vault');
    expect(await readdir(home)).toEqual([]);
  });
});

describe('mem mcp install merges, and never clobbers', () => {
  it('keeps every other server and setting byte for byte, and the old file as .bak', async () => {
    const { home, env } = await freshHome();
    const file = join(home, '.claude.json');
    const before =
      '{\n    "numStartups": 41,\n    "mcpServers": {\n        "playwright": {"command": "npx", "args": ["@playwright/mcp"]}\n    },\n    "projects": {"/x": {"mcpServers": {}}}\n}\n';
    await writeFile(file, before, { mode: 0o600 });
    const run = await install(['claude-code', '--vault', vault], env);
    expect(run.code).toBe(0);
    const after = await readFile(file, 'utf8');
    expect(after).toBe(
      `{\n    "numStartups": 41,\n    "mcpServers": {\n        "playwright": {"command": "npx", "args": ["@playwright/mcp"]},\n        "memvault": {\n            "type": "stdio",\n            "command": "mem",\n            "args": ["mcp", "--vault", ${JSON.stringify(vault)}],\n            "env": {}\n        }\n    },\n    "projects": {"/x": {"mcpServers": {}}}\n}\n`,
    );
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("edits VS Code's mcp.json with its comments and trailing commas, as VS Code reads it", async () => {
    const { home, env } = await freshHome();
    const file = join(home, '.config/Code/User/mcp.json');
    await mkdir(dirname(file), { recursive: true });
    const before =
      '// MCP servers for every workspace\n{\n\t"servers": {\n\t\t/* docs */\n\t\t"docs": {"type": "stdio", "command": "npx", "args": ["docs-mcp"]}, // pinned\n\t},\n\t"inputs": [],\n}\n';
    await writeFile(file, before);
    const run = await install(['vscode', '--vault', vault], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(
      `// MCP servers for every workspace\n{\n\t"servers": {\n\t\t/* docs */\n\t\t"docs": {"type": "stdio", "command": "npx", "args": ["docs-mcp"]}, // pinned\n\t\t"memvault": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "mem",\n\t\t\t"args": ["mcp", "--vault", ${JSON.stringify(vault)}]\n\t\t},\n\t},\n\t"inputs": [],\n}\n`,
    );
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
    expect((await install(['vscode', '--vault', vault], env)).stdout).toContain('already installed');
  });

  it('keeps the other Codex tables byte for byte', async () => {
    const { home, env } = await freshHome();
    const file = join(home, '.codex/config.toml');
    await mkdir(dirname(file), { recursive: true });
    const before = `model = "o4"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = [\n  "-y", # the flag\n  "docs-mcp",\n]\n\n[tui]\nnotifications = true # on\n`;
    await writeFile(file, before);
    expect((await install(['codex', '--vault', vault], env)).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(
      `${before}\n[mcp_servers.memvault]\ncommand = "mem"\nargs = ["mcp", "--vault", ${JSON.stringify(vault)}]\n`,
    );
  });

  it.each([
    ['cursor', '.cursor/mcp.json', '{"mcpServers": {"a": {}},}\n', 'not valid JSON'],
    ['claude-desktop', '.config/Claude/claude_desktop_config.json', '// mine\n{}\n', 'not valid JSON'],
    ['vscode', '.config/Code/User/mcp.json', '{"servers": {}\n', 'not valid JSON with comments'],
    ['claude-code', '.claude.json', '[1, 2]\n', 'does not hold a JSON object'],
    [
      'claude-desktop',
      '.config/Claude/claude_desktop_config.json',
      '{"mcpServers": []}\n',
      'is not an object',
    ],
    ['codex', '.codex/config.toml', '[tui]\nnotifications = [true\n', 'not valid TOML'],
    ['codex', '.codex/config.toml', '{"mcp_servers": {}}\n', 'not valid TOML'],
    ['codex', '.codex/config.toml', '[a]\nx = 1\n[a]\ny = 2\n', 'defined twice'],
    ['codex', '.codex/config.toml', 'mcp_servers.memvault.command = "mem"\n', 'a form mem does not edit'],
  ])('%s: refuses %s holding %j, leaving it untouched', async (client, path, text, message) => {
    const { home, env } = await freshHome();
    const file = join(home, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    const run = await install([client, '--vault', vault], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(text);
    // No .bak, no temporary file: nothing at all was written.
    expect(await readdir(dirname(file))).toEqual([path.split('/').at(-1)]);
  });

  it.each(CLIENTS)('%s: a second run says "already installed" and writes nothing', async (client) => {
    const { home, env } = await freshHome();
    expect((await install([client, '--vault', vault], env)).code).toBe(0);
    const file = join(home, USER_FILES[client] ?? '');
    const first = await stat(file);
    const text = await readFile(file, 'utf8');
    const again = await install([client, '--vault', vault], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already installed');
    expect(await readFile(file, 'utf8')).toBe(text);
    expect((await stat(file)).mtimeMs).toBe(first.mtimeMs);
    expect(await readdir(dirname(file))).not.toContain(`${file.split('/').at(-1)}.bak`);
  });

  it.each(CLIENTS)('%s: a different memvault entry is replaced only with --force', async (client) => {
    const { home, env } = await freshHome();
    const other = await makeVault();
    expect((await install([client, '--vault', other], env)).code).toBe(0);
    const file = join(home, USER_FILES[client] ?? '');
    const old = await readFile(file, 'utf8');
    const refused = await install([client, '--vault', vault], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('different memvault server');
    expect(refused.stderr).toContain('--force');
    expect(await readFile(file, 'utf8')).toBe(old);
    const dry = await install([client, '--vault', vault, '--force', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would replace memvault in ${file}`);
    expect(dry.stdout).toContain(`-`);
    expect(await readFile(file, 'utf8')).toBe(old);
    const forced = await install([client, '--vault', vault, '--force'], env);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('replaced memvault');
    expect(entryIn(client, await readFile(file, 'utf8'))?.args).toEqual(['mcp', '--vault', vault]);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(old);
    // One memvault entry, in the place of the old one.
    expect((await readFile(file, 'utf8')).match(/"memvault":|\[mcp_servers\.memvault\]/g)).toHaveLength(1);
  });

  it('--dry-run shows the change and writes nothing', async () => {
    const { home, env } = await freshHome();
    const run = await install(['vscode', '--vault', vault, '--dry-run'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`would add memvault in ${join(home, '.config/Code/User/mcp.json')}`);
    expect(run.stdout).toContain('+  "servers": {');
    expect(await readdir(home)).toEqual([]);
  });

  it('writes through a linked config file, which stays a link', async () => {
    const { home, env } = await freshHome();
    const dotfiles = await temp();
    await writeFile(join(dotfiles, 'mcp.json'), '{"mcpServers": {}}\n');
    await mkdir(join(home, '.cursor'));
    await symlink(join(dotfiles, 'mcp.json'), join(home, '.cursor/mcp.json'));
    expect((await install(['cursor', '--vault', vault], env)).code).toBe(0);
    expect((await lstat(join(home, '.cursor/mcp.json'))).isSymbolicLink()).toBe(true);
    expect(entryIn('cursor', await readFile(join(dotfiles, 'mcp.json'), 'utf8'))?.command).toBe('mem');
  });

  // Every client's file, as each kind of file that is not one (a FIFO blocked the read for ever),
  // also behind a link and with --dry-run: refused at once, naming the file and what it is.
  const KINDS: Array<[string, string, (path: string) => Promise<void>]> = [
    ['a FIFO', 'a FIFO (named pipe)', async (path) => void execFileSync('mkfifo', [path])],
    ['a folder', 'a directory', async (path) => void (await mkdir(path))],
  ];
  it.each(CLIENTS.flatMap((client) => KINDS.map(([name, kind, make]) => ({ client, name, kind, make }))))(
    '$client: $name where its config file should be is refused quickly, nothing written',
    async ({ client, kind, make }) => {
      for (const [linked, extra] of [
        [false, []],
        [true, ['--dry-run']],
      ] as const) {
        const { home, env } = await freshHome();
        const file = join(home, USER_FILES[client] ?? '');
        await mkdir(dirname(file), { recursive: true });
        const target = linked ? join(await temp(), 'real-config') : file;
        await make(target);
        if (linked) await symlink(target, file);
        const started = Date.now();
        const run = await install([client, '--vault', vault, ...extra], env);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(run.code).not.toBe(0);
        expect(run.stderr).toContain(target);
        expect(run.stderr).toContain(`is ${kind}, not a regular file`);
        expect(run.stdout).toBe('');
        expect((await readdir(dirname(file))).sort()).toEqual([basename(file)]);
      }
    },
    30_000,
  );
});
