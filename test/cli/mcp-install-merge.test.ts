import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { diffArrays } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLIENTS, type PathContext } from '../../src/cli/mcp-install/clients.js';
import { mergeJson } from '../../src/cli/mcp-install/json-config.js';
import { readConfigFile, replaceConfigFile } from '../../src/cli/mcp-install/replace-file.js';
import { mergeToml, tomlTable } from '../../src/cli/mcp-install/toml-config.js';

const SERVER = { command: 'mem', args: ['mcp', '--vault', '/v'] };
const opts = (force = false) => ({ force, path: 'config' });

describe('client config paths', () => {
  const at = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): PathContext => ({
    platform,
    env,
    cwd: '/p',
  });
  it('Claude Desktop: Application Support on macOS, %APPDATA% on Windows, XDG on Linux', () => {
    const desktop = CLIENTS['claude-desktop'].paths.user;
    expect(desktop?.(at('darwin', { HOME: '/Users/a' }))).toBe(
      '/Users/a/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(
      desktop?.(at('win32', { APPDATA: 'C:\\Users\\a\\AppData\\Roaming', USERPROFILE: 'C:\\Users\\a' })),
    ).toBe('C:\\Users\\a\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
    expect(desktop?.(at('linux', { HOME: '/home/a' }))).toBe(
      '/home/a/.config/Claude/claude_desktop_config.json',
    );
    expect(desktop?.(at('linux', { HOME: '/home/a', XDG_CONFIG_HOME: '/x' }))).toBe(
      '/x/Claude/claude_desktop_config.json',
    );
  });

  it("VS Code's user mcp.json sits in Code/User; Codex follows CODEX_HOME", () => {
    expect(CLIENTS.vscode.paths.user?.(at('darwin', { HOME: '/Users/a' }))).toBe(
      '/Users/a/Library/Application Support/Code/User/mcp.json',
    );
    expect(CLIENTS.vscode.paths.user?.(at('win32', { APPDATA: 'C:\\R' }))).toBe(
      'C:\\R\\Code\\User\\mcp.json',
    );
    expect(CLIENTS.codex.paths.user?.(at('linux', { HOME: '/h' }))).toBe('/h/.codex/config.toml');
    expect(CLIENTS.codex.paths.user?.(at('linux', { HOME: '/h', CODEX_HOME: '/c' }))).toBe('/c/config.toml');
    expect(CLIENTS['claude-code'].paths.project?.(at('linux', {}))).toBe('/p/.mcp.json');
  });
});

describe('mergeJson', () => {
  const client = CLIENTS['claude-code'];
  const entry = client.entry(SERVER);
  const others = fc.dictionary(
    fc.string().filter((k) => k !== 'memvault'),
    fc.jsonValue(),
  );
  const configs = fc.record({
    settings: fc.dictionary(
      fc.string().filter((k) => k !== 'mcpServers'),
      fc.jsonValue(),
    ),
    servers: fc.option(others),
    layout: fc.constantFrom('  ', '    ', '\t', '', 'crlf'),
  });

  function render(config: Record<string, unknown>, layout: string): string {
    if (layout === '') return JSON.stringify(config);
    const text = `${JSON.stringify(config, null, layout === 'crlf' ? 2 : layout)}\n`;
    return layout === 'crlf' ? text.replace(/\n/g, '\r\n') : text;
  }

  it('adds memvault and keeps every other line, value and key order; a second merge changes nothing', () => {
    fc.assert(
      fc.property(configs, ({ settings, servers, layout }) => {
        const config: Record<string, unknown> = { ...settings };
        if (servers) config['mcpServers'] = servers;
        const before = render(config, layout);
        const result = mergeJson(before, client, entry, opts());
        if (result.kind !== 'changed') throw new Error(result.kind);
        const expected = JSON.parse(before) as Record<string, Record<string, unknown>>;
        expected['mcpServers'] = { ...(expected['mcpServers'] ?? {}), memvault: entry };
        expect(JSON.parse(result.text)).toEqual(expected);
        expect(Object.keys(JSON.parse(result.text) as object)).toEqual(Object.keys(expected));
        // Only lines added, save the one before them, which gains a comma (or the `{}` they go in).
        const after = result.text.split('\n');
        const lost = diffArrays(before.split('\n'), after)
          .filter((c) => c.removed)
          .flatMap((c) => c.value);
        expect(lost.length).toBeLessThanOrEqual(1);
        for (const line of lost) {
          const withComma = line.replace(/(\r?)$/, ',$1');
          const opened = line.replace(/\{\},?(\r?)$/, '{$1');
          if (layout !== '') expect(after.includes(withComma) || after.includes(opened)).toBe(true);
        }
        expect(mergeJson(result.text, client, entry, opts())).toEqual({ kind: 'unchanged' });
      }),
    );
  });

  it('replaces a different memvault only with force, in its place', () => {
    fc.assert(
      fc.property(others, fc.jsonValue(), fc.constantFrom('  ', '\t'), (servers, old, indent) => {
        fc.pre(JSON.stringify(old) !== JSON.stringify(entry));
        const before = `${JSON.stringify({ mcpServers: { ...servers, memvault: old } }, null, indent)}\n`;
        expect(mergeJson(before, client, entry, opts()).kind).toBe('conflict');
        const result = mergeJson(before, client, entry, opts(true));
        if (result.kind !== 'changed') throw new Error(result.kind);
        expect(result.replaced).toBe(true);
        const after = JSON.parse(result.text) as { mcpServers: Record<string, unknown> };
        expect(after.mcpServers).toEqual({ ...JSON.parse(JSON.stringify(servers)), memvault: entry });
        expect(Object.keys(after.mcpServers)).toEqual(Object.keys({ ...servers, memvault: old }));
      }),
    );
  });

  it('counts an entry with its keys in another order as the same', () => {
    const before = JSON.stringify({
      mcpServers: { memvault: { env: {}, args: SERVER.args, command: 'mem', type: 'stdio' } },
    });
    expect(mergeJson(before, client, entry, opts())).toEqual({ kind: 'unchanged' });
  });
});

describe('mergeToml', () => {
  const bare = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
  const value = fc.oneof(
    fc.string().map((s) => JSON.stringify(s).replace(/\x7f/g, '\\u007f')),
    fc.integer().map(String),
    fc.boolean().map(String),
    fc
      .array(fc.string({ maxLength: 5 }))
      .map((a) => `[\n  ${a.map((s) => JSON.stringify(s)).join(',\n  ')}\n] # list`),
    fc.constant(`"""\n[not.a.table]\nmemvault = 1\n"""`),
    fc.constant(`{ a = 1, b = "]" }`),
  );
  const keyLines = fc.array(fc.tuple(bare, value), { maxLength: 4 }).map((kvs) => {
    // A key is defined once per table.
    const seen = new Set<string>();
    return kvs.filter(([k]) => !seen.has(k) && seen.add(k)).map(([k, v]) => `${k} = ${v}`);
  });
  const trailing = fc.constantFrom([], [''], ['', '# next'], ['# about what follows', '']);
  interface Segment {
    lines: string[];
    trailing: readonly string[];
    own: boolean;
  }
  const tableNames = fc.uniqueArray(
    fc.oneof(
      bare,
      bare.map((b) => `mcp_servers.${b}`),
      bare.map((b) => `profiles."${b}.x"`),
    ),
    { maxLength: 4 },
  );
  const docs = fc
    .record({
      root: keyLines,
      names: tableNames.map((names) =>
        names.filter((n) => n !== 'mcp_servers.memvault' && n !== 'mcp_servers'),
      ),
      bodies: fc.array(fc.tuple(keyLines, trailing), { minLength: 4, maxLength: 4 }),
      own: fc.option(
        fc.record({
          at: fc.nat(),
          keys: keyLines,
          env: fc.boolean(),
          trailing,
        }),
      ),
    })
    .map(({ root, names, bodies, own }) => {
      const segments: Segment[] = names.map((name, k) => ({
        lines: [`[${name}]`, ...(bodies[k]?.[0] ?? [])],
        trailing: bodies[k]?.[1] ?? [],
        own: false,
      }));
      if (own) {
        const mine: Segment[] = [
          { lines: ['[mcp_servers.memvault]', ...own.keys], trailing: own.trailing, own: true },
        ];
        if (own.env) mine.push({ lines: ['[mcp_servers.memvault.env]', 'A = "1"'], trailing: [], own: true });
        segments.splice(own.at % (segments.length + 1), 0, ...mine);
      }
      const rootSegment: Segment = { lines: root, trailing: root.length > 0 ? [''] : [], own: false };
      return [rootSegment, ...segments];
    });

  const join = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

  it('appends or replaces only [mcp_servers.memvault] and its subtables: every other line stays', () => {
    fc.assert(
      fc.property(docs, (segments) => {
        const before = join(segments.flatMap((s) => [...s.lines, ...s.trailing]));
        const table = tomlTable(SERVER);
        const result = mergeToml(before, SERVER, opts(true));
        const owned = segments.filter((s) => s.own);
        if (result.kind === 'unchanged') {
          expect(owned).toHaveLength(1);
          return;
        }
        if (result.kind !== 'changed') throw new Error(result.kind);
        let placed = false;
        const expected =
          owned.length === 0
            ? `${before}${before === '' ? '' : '\n'}${table}`
            : join(
                segments.flatMap((s) => {
                  if (!s.own) return [...s.lines, ...s.trailing];
                  const lines = placed ? [] : table.trimEnd().split('\n');
                  placed = true;
                  return [...lines, ...s.trailing];
                }),
              );
        expect(result.text).toBe(expected);
        expect(mergeToml(result.text, SERVER, opts())).toEqual({ kind: 'unchanged' });
      }),
    );
  });

  it('asks for force before replacing a different table, and keeps CRLF line ends', () => {
    const before = '[tui]\r\nx = 1\r\n\r\n[mcp_servers.memvault]\r\ncommand = "old"\r\n';
    expect(mergeToml(before, SERVER, opts())).toEqual({
      kind: 'conflict',
      existing: '[mcp_servers.memvault]\ncommand = "old"',
    });
    const result = mergeToml(before, SERVER, opts(true));
    expect(result).toEqual({
      kind: 'changed',
      replaced: true,
      text: `[tui]\r\nx = 1\r\n\r\n${tomlTable(SERVER).replace(/\n/g, '\r\n')}`,
    });
  });
});

describe('replaceConfigFile', () => {
  it('writes nothing over a file that changed since it was read (the client rewrote it)', async () => {
    const dir = await mkdtemp(joinPath(tmpdir(), 'mem-replace-'));
    try {
      const path = joinPath(dir, 'mcp.json');
      await writeFile(path, '{}\n');
      const file = await readConfigFile(path);
      await writeFile(path, '{"theirs": 1}\n');
      await expect(replaceConfigFile(file, '{"ours": 1}\n')).rejects.toThrow(
        'changed while mem was reading it',
      );
      expect(await readFile(path, 'utf8')).toBe('{"theirs": 1}\n');
      expect(await readdir(dir)).toEqual(['mcp.json']);
      // And a file that appeared meanwhile is not overwritten either.
      const absent = await readConfigFile(joinPath(dir, 'new.json'));
      await writeFile(joinPath(dir, 'new.json'), '');
      await expect(replaceConfigFile(absent, '{}\n')).rejects.toThrow('changed while');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
