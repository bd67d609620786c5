// Which requests a local server answers at all, before any route runs: the defences careful
// loopback servers use against web pages the user has open. A page cannot send a request that
// passes them: DNS rebinding (a page at evil.com whose name now resolves to 127.0.0.1) sends
// `Host: evil.com:7411`; a cross-origin fetch or form sends an `Origin` of its own; and a form or a
// no-cors fetch can only send `text/plain`, `multipart/form-data` or a URL-encoded body.
import type { IncomingHttpHeaders } from 'node:http';
import { networkInterfaces } from 'node:os';
import { HttpError } from './routes.js';

export interface RequestGuardOptions {
  /** The port the server listens on (Host must name it) */
  port: number;
  /** The address it is bound to (`127.0.0.1`, `::1`, a LAN address with a token): always a name for it; `0.0.0.0` and `::` stand for every interface's address */
  bound: string;
  /** Host names allowed besides the loopback names, with or without `:port` (`serve.allowedHosts`, `--allow-host`) */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host[:port]`) whose pages may call the server (`serve.allowedOrigins`) */
  allowedOrigins?: readonly string[];
}

export interface RequestGuard {
  /**
   * Throws the HttpError for a request that must not be answered (403 for Host and Origin, 415
   * for a body that is not JSON); else the CORS headers its answer carries (none unless the
   * request came from an allowed other origin).
   */
  check(method: string, headers: IncomingHttpHeaders): Record<string, string>;
  /** The answer to an OPTIONS preflight: 204 with CORS headers for an allowed origin, else an HttpError. */
  preflight(headers: IncomingHttpHeaders): Record<string, string>;
}

/** The names of this machine's loopback interface a browser sends in `Host`. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** `::1` → `[::1]`: an IPv6 address as it appears in a Host header or URL. */
const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * The `host[:port]` values allowed, lower-cased. A name given without a port is allowed with the
 * bound port, and bare only on port 80 (where browsers leave the port out).
 */
function allowedHostValues(options: RequestGuardOptions): Set<string> {
  const values = new Set<string>();
  // Bound to every interface (`--host 0.0.0.0`, with a token): each of their addresses names it.
  const every = options.bound === '0.0.0.0' || options.bound === '::';
  const interfaces = every
    ? Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => bracketed(i.address)))
    : [];
  const names = [...LOOPBACK_NAMES, bracketed(options.bound), ...interfaces, ...(options.allowedHosts ?? [])];
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    if (/:\d+$/.test(name) && !/^\[[^\]]*\]$/.test(name)) {
      values.add(name);
      continue;
    }
    values.add(`${name}:${options.port}`);
    if (options.port === 80) values.add(name);
  }
  return values;
}

/** `http://Host:7411/` → `http://host:7411`: the form an `Origin` header takes. */
function normalOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

export function requestGuard(options: RequestGuardOptions): RequestGuard {
  const hosts = allowedHostValues(options);
  // Same origin: a page served from an allowed host name (the server serves none, but a browser
  // that opens `http://127.0.0.1:7411/health` sends it with its own requests).
  const sameOrigins = new Set([...hosts].map((host) => `http://${host}`));
  const otherOrigins = new Set((options.allowedOrigins ?? []).map(normalOrigin));

  const checkHost = (headers: IncomingHttpHeaders) => {
    const host = headers.host;
    if (host === undefined || !hosts.has(host.toLowerCase()))
      throw new HttpError(
        403,
        `Host ${JSON.stringify(host ?? '')} is not a name of this server; allowed: ${[...hosts].join(', ')} (more with --allow-host or serve.allowedHosts)`,
      );
  };

  /** undefined: no Origin (not a browser, or a same-origin GET); true: an allowed other origin. */
  const checkOrigin = (headers: IncomingHttpHeaders): boolean => {
    const origin = headers.origin;
    if (origin === undefined) return false;
    const normal = normalOrigin(origin);
    if (sameOrigins.has(normal)) return false;
    if (otherOrigins.has(normal)) return true;
    throw new HttpError(
      403,
      `Origin ${JSON.stringify(origin)} may not call this server (allow it with serve.allowedOrigins)`,
    );
  };

  const cors = (headers: IncomingHttpHeaders): Record<string, string> => ({
    'access-control-allow-origin': String(headers.origin),
    vary: 'Origin',
  });

  return {
    check(method, headers) {
      checkHost(headers);
      const other = checkOrigin(headers);
      if (method === 'POST') {
        // `type/subtype` before any parameters, as the media type grammar has it.
        const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json')
          throw new HttpError(
            415,
            `a request body must be sent as Content-Type: application/json, not ${JSON.stringify(headers['content-type'] ?? '')}`,
          );
      }
      return other ? cors(headers) : {};
    },
    preflight(headers) {
      checkHost(headers);
      if (!checkOrigin(headers))
        throw new HttpError(403, 'no cross-origin requests are allowed (see serve.allowedOrigins)');
      return {
        ...cors(headers),
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type, authorization',
        'access-control-max-age': '600',
      };
    },
  };
}
