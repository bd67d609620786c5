import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * The MCP clients `mem mcp install` knows, where each reads its servers and in what shape. Checked
 * against each client's documentation (2026-12-02):
 * - Claude Desktop: `claude_desktop_config.json`, `mcpServers`, in ~/Library/Application Support/Claude
 *   on macOS and %APPDATA%\Claude on Windows (modelcontextprotocol.io/quickstart/user); on Linux,
 *   where the app is unofficial, $XDG_CONFIG_HOME/Claude (default ~/.config/Claude).
 * - Claude Code: project scope `.mcp.json` at the project root, user scope the top-level
 *   `mcpServers` of ~/.claude.json; `claude mcp add` writes `type`, `command`, `args`, `env`
 *   (code.claude.com/docs/en/mcp, "MCP installation scopes").
 * - Cursor: `.cursor/mcp.json` in the project or ~/.cursor/mcp.json for every project, `mcpServers`
 *   (cursor.com/docs/mcp).
 * - VS Code: `.vscode/mcp.json` in the workspace or `mcp.json` in the user profile (Code/User/ under
 *   the same folder as settings.json), top-level `servers`, `type: "stdio"` required
 *   (code.visualstudio.com/docs/agents/reference/mcp-configuration).
 * - Codex: `[mcp_servers.<name>]` in $CODEX_HOME/config.toml (default ~/.codex), or in a trusted
 *   project's `.codex/config.toml` (developers.openai.com/codex/config-basic, /codex/environment-variables).
 */
export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'codex'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];
export type Scope = 'user' | 'project';

/** How the server is started: a command and its arguments. */
export interface ServerCommand {
  command: string;
  args: string[];
}

export interface PathContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
}

export interface ClientSpec {
  id: ClientId;
  label: string;
  /** Its snippet in examples/mcp/ */
  example: string;
  format: 'json' | 'toml';
  /**
   * The client reads its JSON with comments and trailing commas (VS Code's JSONC): mem reads them
   * too and keeps them; a strict JSON client's file with a comment is refused, as it would fail there.
   */
  jsonc?: boolean;
  /** The JSON key that holds the servers (unused for TOML) */
  serversKey: 'mcpServers' | 'servers';
  /** The `memvault` entry the client reads */
  entry: (server: ServerCommand) => Record<string, unknown>;
  /** The config file of each scope the client has; the first is the default. */
  paths: Partial<Record<Scope, (ctx: PathContext) => string>>;
  /** What `--print` says above a TOML snippet (JSON has no comments) */
  where?: Partial<Record<Scope, string>>;
}

function pathOf(ctx: PathContext) {
  return ctx.platform === 'win32' ? win32 : posix;
}

function home(ctx: PathContext): string {
  const fromEnv = ctx.platform === 'win32' ? ctx.env['USERPROFILE'] : ctx.env['HOME'];
  return fromEnv || homedir();
}

/** The per-user application folder: Application Support, %APPDATA% or $XDG_CONFIG_HOME. */
function appData(ctx: PathContext): string {
  const path = pathOf(ctx);
  if (ctx.platform === 'darwin') return path.join(home(ctx), 'Library', 'Application Support');
  if (ctx.platform === 'win32') return ctx.env['APPDATA'] || path.join(home(ctx), 'AppData', 'Roaming');
  return ctx.env['XDG_CONFIG_HOME'] || path.join(home(ctx), '.config');
}

const plain = (server: ServerCommand) => ({ command: server.command, args: server.args });

export const CLIENTS: Record<ClientId, ClientSpec> = {
  'claude-desktop': {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    example: 'claude-desktop.json',
    format: 'json',
    serversKey: 'mcpServers',
    entry: plain,
    paths: { user: (ctx) => pathOf(ctx).join(appData(ctx), 'Claude', 'claude_desktop_config.json') },
  },
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    example: 'claude-code.mcp.json',
    format: 'json',
    serversKey: 'mcpServers',
    entry: (server) => ({ type: 'stdio', ...plain(server), env: {} }),
    paths: {
      user: (ctx) => pathOf(ctx).join(home(ctx), '.claude.json'),
      project: (ctx) => pathOf(ctx).join(ctx.cwd, '.mcp.json'),
    },
  },
  cursor: {
    id: 'cursor',
    label: 'Cursor',
    example: 'cursor.mcp.json',
    format: 'json',
    serversKey: 'mcpServers',
    entry: plain,
    paths: {
      user: (ctx) => pathOf(ctx).join(home(ctx), '.cursor', 'mcp.json'),
      project: (ctx) => pathOf(ctx).join(ctx.cwd, '.cursor', 'mcp.json'),
    },
  },
  vscode: {
    id: 'vscode',
    label: 'VS Code',
    example: 'vscode.mcp.json',
    format: 'json',
    jsonc: true,
    serversKey: 'servers',
    entry: (server) => ({ type: 'stdio', ...plain(server) }),
    paths: {
      user: (ctx) => pathOf(ctx).join(appData(ctx), 'Code', 'User', 'mcp.json'),
      project: (ctx) => pathOf(ctx).join(ctx.cwd, '.vscode', 'mcp.json'),
    },
  },
  codex: {
    id: 'codex',
    label: 'Codex',
    example: 'codex.config.toml',
    format: 'toml',
    serversKey: 'mcpServers',
    entry: plain,
    paths: {
      user: (ctx) =>
        pathOf(ctx).join(ctx.env['CODEX_HOME'] || pathOf(ctx).join(home(ctx), '.codex'), 'config.toml'),
      project: (ctx) => pathOf(ctx).join(ctx.cwd, '.codex', 'config.toml'),
    },
    where: {
      user: '# Codex: add to ~/.codex/config.toml',
      project: '# Codex: add to .codex/config.toml in a project Codex trusts',
    },
  },
};

export function scopesOf(client: ClientSpec): Scope[] {
  return (['user', 'project'] as const).filter((scope) => client.paths[scope]);
}
