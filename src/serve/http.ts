import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemError, type MemErrorCode } from '../internal.js';
import { companionRoutes } from './companion.js';
import { hidePaths } from './hide-paths.js';
import { isPageAsset, PAGE_SECURITY_HEADERS, pageAsset } from './page-assets.js';
import { pageRoutes } from './page-routes.js';
import { clusterRoutes } from './pool/cluster-routes.js';
import { VaultAway } from './pool/vault-moves.js';
import type { VaultSource } from './pool/vault-source.js';
import { describeHolder, portHolder } from './port-holder.js';
import type { ReadPool } from './read-pool.js';
import { requestGuard } from './request-guard.js';
import { apiRoutes, HttpError, type Reply, type Route, type RouteContext } from './routes.js';

export interface ServeHttpOptions {
  /** Where requests find their vault */
  source: VaultSource;
  /** TCP port; 0 picks a free one (default: 7411) */
  port?: number;
  /** Interface to bind (default: 127.0.0.1); anything but loopback needs a token */
  host?: string;
  /** Every request must send `Authorization: Bearer <token>` (default: none) */
  token?: string;
  /** Host names served besides loopback ones and the bound address (`--allow-host`, `serve.allowedHosts`) */
  allowedHosts?: readonly string[];
  /** Origins whose web pages may call the server (`serve.allowedOrigins`; default: none) */
  allowedOrigins?: readonly string[];
  /** How long a read waits for a running refresh before answering with `"partial": true` (default: 1000 ms) */
  deadlineMs?: number;
  /** Largest request body accepted (default: 1 MiB) */
  maxBodyBytes?: number;
  /** Receives failures no client will see: background writes, internal errors (default: ignored) */
  onError?: (error: unknown) => void;
  /** Endpoints served besides the API and the companion contract (the daemon's `/daemon/stop`) */
  routes?: Route[];
  /** Read workers (`mem serve --workers`): reads are answered there when one is free */
  reads?: ReadPool;
  /**
   * Addresses a router connects from (`--router`): a request from one was sent on by the router,
   * and its Host may also be one of `routerHosts`, the names clients reach the router by. A
   * request from anywhere else is held to the server's own names as before.
   */
  routers?: readonly string[];
  /** Names (`host[:port]`) of the router, accepted as Host only from `routers` (`--router-host`) */
  routerHosts?: readonly string[];
}

export interface HttpServer {
  /** `http://host:port` */
  url: string;
  port: number;
  host: string;
  /** Stops listening, then closes every vault: last writes, one commit, the cache saved */
  close(): Promise<void>;
}

/** Every endpoint of the API, the companion contract and the web page (a read worker answers the same ones) */
export const standardRoutes: Route[] = [...apiRoutes, ...companionRoutes, ...pageRoutes, ...clusterRoutes];

const STATUS: Partial<Record<MemErrorCode, number>> = {
  USAGE: 400,
  INVALID_ARGUMENT: 400,
  INVALID_PATH: 400,
  PATH_OUTSIDE_VAULT: 403,
  NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  NO_VAULT: 404,
  EXISTS: 409,
  CONFLICT: 409,
  LOCKED: 503,
  CLOSED: 503,
};

/**
 * The reply to a request that failed: its HTTP status and `{"error", "code"?}`. Failures that are
 * not the client's (500) also go to `onError`.
 */
export function errorReply(error: unknown, onError: (error: unknown) => void): Reply {
  if (error instanceof VaultAway)
    return {
      status: 503,
      body: { error: error.message, code: 'MOVED' },
      headers: { 'retry-after': '0', 'x-mem-vault': 'away' },
    };
  if (error instanceof HttpError) {
    const headers: Record<string, string> =
      error.status === 401
        ? { 'www-authenticate': 'Bearer' }
        : error.status === 413
          ? { connection: 'close' }
          : {};
    return { status: error.status, body: { error: error.message }, headers };
  }
  if (error instanceof MemError) {
    const status = STATUS[error.code] ?? 500;
    if (status === 500) onError(error);
    return { status, body: { error: error.message, code: error.code } };
  }
  onError(error);
  return { status: 500, body: { error: `internal error: ${(error as Error).message ?? String(error)}` } };
}

/** Why the server could not listen, in one line that says what to do (the port's holder is often another mem serve). */
async function listenError(error: NodeJS.ErrnoException, host: string, port: number): Promise<Error> {
  if (error.code === 'EADDRINUSE')
    return new MemError(
      'INVALID_ARGUMENT',
      `port ${port} on ${host} is in use (${describeHolder(await portHolder(port))}); choose another with --port`,
    );
  if (error.code === 'EACCES')
    return new MemError(
      'INVALID_ARGUMENT',
      `port ${port} on ${host} may not be used by this user; choose another with --port`,
    );
  if (error.code === 'EADDRNOTAVAIL')
    return new MemError(
      'INVALID_ARGUMENT',
      `${host} is not an address of this machine; choose another with --host`,
    );
  return error;
}

/** Loopback names and addresses: the only ones served without a token. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h);
}

/** `::ffff:127.0.0.2` → `127.0.0.2`: a peer address as `--router` names it. */
const plainAddress = (address: string | undefined) => (address ?? '').replace(/^::ffff:/i, '').toLowerCase();

/** A header's bytes as UTF-8 (Node reads header bytes as Latin-1): a router forwards ids as it read them. */
const utf8Header = (value: string | string[] | undefined) =>
  typeof value === 'string' ? Buffer.from(value, 'latin1').toString('utf8') : undefined;

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares digests, so the time taken says nothing about how much of the token matched. */
export function authorized(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** Past this much a client that keeps sending is cut off rather than drained. */
const DRAIN_FACTOR = 8;

function readBody(request: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Too big: stop keeping it, but read on so the client is still listening for the 413.
      if (size > limit * DRAIN_FACTOR) request.destroy();
      else if (size <= limit) chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (size > limit) return reject(new HttpError(413, `request body is over ${limit} bytes`));
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        return reject(new HttpError(400, 'request body is not valid JSON'));
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        return reject(new HttpError(400, 'request body must be a JSON object'));
      resolve(data as Record<string, unknown>);
    });
  });
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(json)),
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  response.end(json);
}

/** The route for a raw path, or the error for a path no route or no method serves. */
function findRoute(routes: Route[], method: string, path: string): { route: Route; rest: string } {
  const matching = routes.filter((r) => (r.path.endsWith('/') ? path.startsWith(r.path) : path === r.path));
  if (matching.length === 0) throw new HttpError(404, `no such endpoint: ${method} ${path}`);
  const route = matching.find((r) => r.method === method);
  if (!route)
    throw new HttpError(405, `${path} takes ${matching.map((r) => r.method).join(', ')}, not ${method}`);
  if (!route.path.endsWith('/')) return { route, rest: '' };
  let rest: string;
  try {
    rest = decodeURIComponent(path.slice(route.path.length));
  } catch {
    throw new HttpError(400, `malformed percent-encoding in ${path}`);
  }
  return { route, rest };
}

type Guard = ReturnType<typeof requestGuard>;

/** What answering a request reads: the server's options and what serveHttp made of them. */
interface Serving {
  options: ServeHttpOptions;
  token: string | undefined;
  maxBodyBytes: number;
  onError: (error: unknown) => void;
  context: RouteContext;
  routes: Route[];
  /** The addresses a router connects from */
  routers: Set<string>;
  /**
   * Set once the server listens: the Host a request must name holds the port it got. `routed`:
   * the same checks for requests a router sent on, with the router's names allowed besides.
   */
  guards: { direct?: Guard; routed?: Guard };
}

/**
 * The loopback JSON API over `source`: recall, compile, remember, notes, backlinks, health,
 * the companion `/memory/*` contract, and the web page at `/` that reads it (page-assets.ts). Thin on purpose: it validates, calls the library, formats.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token || undefined;
  if (!isLoopback(host) && !token) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `refusing to listen on ${host} without a token: anyone who can reach it could read and write this memory. Pass --token or set MEM_TOKEN, or bind to 127.0.0.1`,
    );
  }
  const serving: Serving = {
    options,
    token,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    onError: options.onError ?? (() => undefined),
    context: {
      source: options.source,
      deadlineMs: options.deadlineMs ?? 1000,
      ...(options.reads ? { readers: () => options.reads?.stats() } : {}),
    },
    routes: [...standardRoutes, ...(options.routes ?? [])],
    routers: new Set((options.routers ?? []).map(plainAddress)),
    guards: {},
  };
  const server = createServer((request, response) => answerRequest(request, response, serving));

  const port = options.port ?? 7411;
  await listen(server, host, port);
  const address = server.address() as AddressInfo;
  serving.guards = guardsFor(address, options);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    host: address.address,
    close: () => closeServer(server, options),
  };
}

/** Every reply leaves here: an error never shows where the vault or the home folder is. */
function reply(
  response: ServerResponse,
  { status, body, headers }: Reply,
  cors: Record<string, string>,
  source: VaultSource,
): void {
  const error = (body as { error?: unknown } | null)?.error;
  const shown =
    status >= 400 && typeof error === 'string'
      ? { ...(body as object), error: hidePaths(error, source.root) }
      : body;
  send(response, status, shown, { ...cors, ...headers });
}

/**
 * One request: the Host and origin checks (a preflight answered there), the web page's files,
 * the token, then its route, in a read worker when one serves it; a failure becomes its error reply.
 */
function answerRequest(request: IncomingMessage, response: ServerResponse, serving: Serving): void {
  const { options, token, context } = serving;
  // The CORS headers of a request from an allowed other origin: its errors are readable too.
  let allowed: Record<string, string> = {};
  const viaRouter = serving.routers.has(plainAddress(request.socket.remoteAddress));
  void (async () => {
    const method = request.method ?? 'GET';
    const [rawPath = '/', search = ''] = (request.url ?? '/').split(/\?(.*)/s);
    const guard = viaRouter ? serving.guards.routed : serving.guards.direct;
    if (!guard) throw new HttpError(503, 'the server is starting');
    // Before the token: a page the user has open learns nothing, not even that a token is asked.
    if (method === 'OPTIONS') {
      const headers = guard.preflight(request.headers);
      response.writeHead(204, headers).end();
      return;
    }
    allowed = guard.check(method, request.headers);
    // The web page's own files hold no vault data: a browser opening the URL cannot send a token.
    if (method === 'GET' && isPageAsset(rawPath) && (await sendPageAsset(response, rawPath, allowed))) return;
    if (token && !authorized(request.headers.authorization, token))
      throw new HttpError(401, 'missing or wrong bearer token');
    // The raw path, not a URL object's: that would fold `..` away before we could refuse it.
    const { route, rest } = findRoute(serving.routes, method, rawPath);
    const body = route.method === 'POST' ? await readBody(request, serving.maxBodyBytes) : {};
    const vaultHeader = utf8Header(request.headers['x-vault-id']);
    const asked = {
      method,
      rest,
      query: new URLSearchParams(search),
      body,
      ...(vaultHeader !== undefined ? { vaultHeader } : {}),
    };
    const here = () => route.handle(asked, context);
    const answer =
      route.reads && options.reads
        ? await options.reads.dispatch(route, { method, rest, search, body }, here)
        : await here();
    reply(response, answer, allowed, options.source);
  })().catch((error: unknown) => {
    if (response.headersSent) return;
    const answer = errorReply(error, serving.onError);
    // Behind a router, 503 means "not here, try the next server" (VaultAway) and nothing else:
    // a vault busy here must not be served by a second server meanwhile.
    if (viaRouter && answer.status === 503 && !(error instanceof VaultAway)) answer.status = 500;
    reply(response, answer, allowed, options.source);
  });
}

/** One of the web page's files, when `path` names one: false when it does not exist. */
async function sendPageAsset(
  response: ServerResponse,
  path: string,
  allowed: Record<string, string>,
): Promise<boolean> {
  const asset = await pageAsset(path);
  if (!asset) return false;
  response.writeHead(200, {
    'content-type': asset.type,
    'content-length': String(asset.body.length),
    ...PAGE_SECURITY_HEADERS,
    ...allowed,
  });
  response.end(asset.body);
  return true;
}

/** Listens on `host:port`; a failure is explained (listenError: who holds the port). */
function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => void listenError(error, host, port).then(reject);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** The Host and origin checks, for the port and address the server got. */
function guardsFor(address: AddressInfo, options: ServeHttpOptions): Serving['guards'] {
  const guardOptions = {
    port: address.port,
    bound: address.address,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  };
  const routed = requestGuard({
    ...guardOptions,
    allowedHosts: [...(options.allowedHosts ?? []), ...(options.routerHosts ?? [])],
  });
  const direct = requestGuard({
    ...guardOptions,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  return { direct, routed };
}

async function closeServer(server: Server, options: ServeHttpOptions): Promise<void> {
  // Requests in flight finish (an add is journaled before it is answered); a client that
  // keeps a connection open past them is cut off rather than waited for.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), 2000);
  await closed;
  clearTimeout(cut);
  await options.reads?.close();
  await options.source.close();
}
