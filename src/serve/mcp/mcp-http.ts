import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MemError, type Vault } from '../../internal.js';
import { hidePaths } from '../hide-paths.js';
import { authorized, isLoopback } from '../http.js';
import { requestGuard } from '../request-guard.js';
import { HttpError } from '../routes.js';
import { createMcpServer, type McpOptions } from './mcp.js';

export interface McpHttpOptions extends McpOptions {
  /** TCP port; 0 picks a free one (default: 7412, beside `mem serve`'s 7411) */
  port?: number;
  /** Interface to bind (default: 127.0.0.1); anything but loopback needs a token */
  host?: string;
  /** Every request must send `Authorization: Bearer <token>`, as `mem serve` asks */
  token?: string;
  /** Host names answered besides the loopback ones and the bound address */
  allowedHosts?: readonly string[];
  /** Origins whose pages may call the server */
  allowedOrigins?: readonly string[];
  onError?: (error: unknown) => void;
}

export interface McpHttpServer {
  /** `http://127.0.0.1:7412/mcp` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The one path served: the MCP endpoint of the streamable HTTP transport. */
const PATH = '/mcp';

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  response
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/**
 * The MCP tools over streamable HTTP, stateless: each POST gets a server and transport of its own
 * (the vault and its index are shared), so no session is kept and a restart loses nothing. The
 * same defences as `mem serve` run first: Host and Origin (request-guard.ts), then the token.
 */
export async function serveMcpHttp(vault: Vault, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token || undefined;
  if (!isLoopback(host) && !token)
    throw new MemError(
      'INVALID_ARGUMENT',
      `refusing to listen on ${host} without a token: anyone who can reach it could read and write this memory. Pass --token or set MEM_TOKEN, or bind to 127.0.0.1`,
    );
  const onError = options.onError ?? (() => undefined);
  let guard: ReturnType<typeof requestGuard> | undefined;

  const server = createServer((request, response) => {
    void (async () => {
      const method = request.method ?? 'GET';
      if (!guard) throw new HttpError(503, 'the server is starting');
      if (method === 'OPTIONS') {
        response.writeHead(204, guard.preflight(request.headers)).end();
        return;
      }
      const cors = guard.check(method, request.headers);
      for (const [name, value] of Object.entries(cors)) response.setHeader(name, value);
      if (token && !authorized(request.headers.authorization, token))
        throw new HttpError(401, 'missing or wrong bearer token');
      const path = (request.url ?? '/').split('?')[0];
      if (path !== PATH) throw new HttpError(404, `not found: ${path}; the MCP endpoint is ${PATH}`);
      // Stateless: no stream for server-sent messages, no session to end.
      if (method !== 'POST')
        throw new HttpError(405, `${method} ${PATH}: this server takes POST only (stateless)`);
      const mcp = createMcpServer(vault, options);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      response.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => {
      if (response.headersSent) return;
      if (error instanceof HttpError) {
        sendError(
          response,
          error.status,
          error.message,
          error.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
        );
        return;
      }
      onError(error);
      sendError(
        response,
        500,
        `internal error: ${hidePaths((error as Error).message ?? String(error), vault.root)}`,
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7412, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard = requestGuard({
    port,
    bound: host,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
