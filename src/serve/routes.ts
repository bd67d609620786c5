import type * as z from 'zod/v4';
import {
  type CompileResult,
  defaultConfig,
  MemError,
  QUERY_LIMITS,
  queryProblem,
  type RecallResult,
  type Vault,
} from '../internal.js';
import { parseVaultId, type UseOptions, type VaultIds, type VaultSource } from './pool/vault-source.js';
import { compileBody, KINDS, recallBody, rememberBody } from './request-bodies.js';

/** A request refused with this status and message, as `{"error": message}`. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface ApiRequest {
  method: string;
  /** What follows the route's prefix, percent-decoded (`/notes/<rest>`) */
  rest: string;
  query: URLSearchParams;
  /** The JSON body of a POST (always an object) */
  body: Record<string, unknown>;
  /**
   * `X-Vault-Id` (`<agent>/<user>`), when the request has one: the vault a router placed it by.
   * It must name the vault the body or query names (else 400), so a router that read the body
   * differently (a duplicate key, an escape) never sends a vault's requests to two servers.
   */
  vaultHeader?: string;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  source: VaultSource;
  /** How long a read waits for a running refresh before answering from the index as it stands */
  deadlineMs: number;
  /** The read workers' state, when the server has them (`/health` shows it) */
  readers?: () => ReadPoolStats | undefined;
}

/** What `/health` says of a server's read workers (`mem serve --workers`) */
export interface ReadPoolStats {
  /** Workers started */
  workers: number;
  /** Of them, open and answering */
  ready: number;
  /** Reads answered by workers, and by the server's own thread */
  answered: { workers: number; here: number };
}

export interface Route {
  method: 'GET' | 'POST';
  /** Exact path, or a prefix ending in `/` that takes the rest as an argument */
  path: string;
  handle: (request: ApiRequest, context: RouteContext) => Promise<Reply>;
  /** Only reads the index: a read worker may answer it (`mem serve --workers`) */
  reads?: boolean;
}

/**
 * A POST body checked against its schema: 400 with the first problem, naming the field. A JSON
 * `null` reads as "not given", as hosts written in Python send `None` for a field left unset.
 */
export function parseBody<Schema extends z.ZodType>(
  schema: Schema,
  body: Record<string, unknown>,
): z.output<Schema> {
  const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  throw new HttpError(400, result.error.issues[0]?.message ?? 'invalid request body');
}

/** `agent_id` and `user_id` from the body, else the query string; `default` when absent. */
export function idsOf(request: ApiRequest): VaultIds {
  const pick = (key: string) => request.body[key] ?? request.query.get(key) ?? undefined;
  const ids = {
    agentId: parseVaultId(pick('agent_id'), 'agent_id'),
    userId: parseVaultId(pick('user_id'), 'user_id'),
  };
  const named = `${ids.agentId}/${ids.userId}`;
  if (request.vaultHeader !== undefined && request.vaultHeader !== named)
    throw new HttpError(
      400,
      `X-Vault-Id ${JSON.stringify(request.vaultHeader)} does not name the vault of this request's agent_id and user_id (${JSON.stringify(named)}); send ids in one form (NFC, no escapes) and the header, if you set it, to match`,
    );
  return ids;
}

/**
 * `idsOf` for a request that files or finds memories (an add, a search, a recall, a compile). A
 * per-user server refuses one that names neither user_id nor agent_id (400): it was filed under
 * `default/default` without a word, where no user would ever find it again. A host that wants that
 * shared vault says so once (`mem serve --vaults DIR --default-vault`).
 */
export function whoseIds(request: ApiRequest, context: RouteContext): VaultIds {
  const ids = idsOf(request);
  if (context.source.mode !== 'per-user' || context.source.defaultIds) return ids;
  const given = (key: string) => {
    const value = request.body[key] ?? request.query.get(key);
    return value !== undefined && value !== null && value !== '';
  };
  if (!given('user_id') && !given('agent_id'))
    throw new HttpError(
      400,
      `this server keeps one vault per user (mem serve --vaults): send user_id (and agent_id) to say whose memory this is; a host that wants requests without them in one shared vault starts the server with --default-vault`,
    );
  return ids;
}

/** How a read reaches its vault: the source's options, and whether it may answer before a load ends. */
export interface ReadOptions extends UseOptions {
  /**
   * A vault this server has still to load (clone, open): past the deadline the read answers
   * `empty()` with `partial`, and the load goes on for the next request. For searches, whose
   * results a turn can go without; compile's context (the persona first) always waits.
   */
  whileLoading?: boolean;
}

/**
 * Reads from the vault for `ids`: waits for a running refresh up to the deadline, then answers
 * from the index as it stands, saying so with `partial`. A vault that does not exist reads empty.
 */
export async function readVault<T>(
  context: RouteContext,
  ids: VaultIds,
  read: (vault: Vault) => T | Promise<T>,
  empty: () => T,
  fresh = false,
  { whileLoading = false, ...how }: ReadOptions = {},
): Promise<{ value: T; partial: boolean }> {
  // `started` once the vault is there, `late` once the read has answered without it. The deadline
  // runs from the start of a load only: a loaded vault's search sets no timer, and a wait for a
  // release's push ends in the 503 that sends the router on.
  let started = false;
  let late = false;
  let timer: NodeJS.Timeout | undefined;
  let expire: () => void = () => undefined;
  const deadline = new Promise<'late'>((resolve) => {
    expire = () => resolve('late');
  });
  if (whileLoading)
    how.onLoad = () => {
      timer ??= setTimeout(expire, context.deadlineMs);
    };
  const reading = context.source.use(
    ids,
    false,
    async (vault) => {
      started = true;
      if (!vault || late) return { value: empty(), partial: false };
      // Fresh: every note is looked at now, as a new process would, rather than trusting the watcher.
      if (fresh) await vault.refresh();
      const idle = await vault.whenIdle(context.deadlineMs);
      return { value: await read(vault), partial: !idle };
    },
    how,
  );
  if (!whileLoading) return reading;
  const first = await Promise.race([reading, deadline]).finally(() => clearTimeout(timer));
  if (first !== 'late') return first;
  // The vault came in time and its read goes on (a refresh it waits for has its own deadline).
  if (started) return reading;
  late = true;
  // The load goes on; what it ends in (an error too) is the next request's.
  reading.catch(() => undefined);
  return { value: empty(), partial: true };
}

const withPartial = <T extends object>(value: T, partial: boolean) =>
  partial ? { ...value, partial } : value;

/**
 * Said beside the results when a query was longer than the search reads: the request still
 * answers (a host's turn must not fail on a pasted text), and the host learns what was searched.
 */
export function queryWarning(query: string): { warning?: string } {
  const problem = queryProblem(query);
  return problem ? { warning: `${problem}; only the first ${QUERY_LIMITS.maxChars} were searched` } : {};
}

/** A note path from a URL: never `..`, absolute, or holding NUL; the vault resolves the rest. */
export function notePathOf(rest: string): string {
  if (rest === '') throw new HttpError(400, 'a note path is required');
  if (rest.includes('\0')) throw new HttpError(400, 'a note path must not contain NUL');
  if (/^[/\\]/.test(rest) || /^[A-Za-z]:/.test(rest))
    throw new HttpError(403, `path outside the vault: ${rest}`);
  if (rest.split(/[/\\]/).includes('..')) throw new HttpError(403, `path outside the vault: ${rest}`);
  return rest;
}

// The body schema already narrows `kind`; the name stays for the remember call below.
const kinds = KINDS;

/** The JSON endpoints: the same results as the CLI's `--json`. */
export const apiRoutes: Route[] = [
  {
    method: 'POST',
    path: '/recall',
    reads: true,
    handle: async (request, context) => {
      const { query, k, now, layers, range, all, fresh } = parseBody(recallBody, request.body);
      const { value, partial } = await readVault<RecallResult>(
        context,
        whoseIds(request, context),
        // recallAsync: with embeddings on (mem.config.json) semantic similarity is fused in, as in `mem recall`.
        (vault) => vault.recallAsync(query, { k, now, layers, range, all }),
        () => ({ query, hits: [] }),
        fresh,
        { whileLoading: true },
      );
      return { status: 200, body: { ...withPartial(value, partial), ...queryWarning(query) } };
    },
  },
  {
    method: 'POST',
    path: '/compile',
    reads: true,
    handle: async (request, context) => {
      const { message, budget, now, range, history, tokenizer, fresh } = parseBody(compileBody, request.body);
      const { value, partial } = await readVault<CompileResult>(
        context,
        whoseIds(request, context),
        // compileAsync: with embeddings on, the turn's recall fuses the semantic ranking in, as `/recall` does.
        (vault) => vault.compileAsync({ message, budget, now, range, history, tokenizer }),
        () => {
          const config = defaultConfig().compile;
          return {
            markdown: '',
            budget: budget ?? config.budget,
            used: 0,
            tokenizer: config.tokenizer,
            sections: [],
          };
        },
        fresh,
      );
      return { status: 200, body: withPartial(value, partial) };
    },
  },
  {
    method: 'POST',
    path: '/remember',
    handle: async (request, context) => {
      const { text, speaker, kind, importance, tags, at, settings } = parseBody(rememberBody, request.body);
      const result = await context.source.use({ ...whoseIds(request, context), settings }, true, (vault) => {
        if (!vault) throw new MemError('NO_VAULT', 'the vault could not be created');
        return vault.remember({
          text,
          speaker,
          kind: kind as (typeof kinds)[number] | undefined,
          importance: importance as number | undefined,
          tags: tags as string[] | undefined,
          at,
        });
      });
      return { status: 200, body: result };
    },
  },
  {
    method: 'GET',
    path: '/notes/',
    reads: true,
    handle: async (request, context) => {
      const ref = notePathOf(request.rest);
      const { value } = await readVault(
        context,
        idsOf(request),
        (vault) => {
          const note = vault.note(ref);
          return { note, links: vault.links(note.path), backlinks: vault.backlinks(note.path) };
        },
        () => {
          throw new MemError('NOT_FOUND', `note not found: ${ref}`);
        },
      );
      return { status: 200, body: value };
    },
  },
  {
    method: 'GET',
    path: '/backlinks/',
    reads: true,
    handle: async (request, context) => {
      const ref = notePathOf(request.rest);
      const { value } = await readVault(
        context,
        idsOf(request),
        (vault) => ({ note: vault.note(ref).path, backlinks: vault.backlinks(ref) }),
        () => {
          throw new MemError('NOT_FOUND', `note not found: ${ref}`);
        },
      );
      return { status: 200, body: value };
    },
  },
  {
    method: 'GET',
    path: '/health',
    handle: async (request, context) => {
      const { value } = await readVault(
        { ...context, deadlineMs: 0 },
        idsOf(request),
        (vault) => {
          const embeddings = vault.embeddingsHealth();
          return {
            notes: vault.noteCount,
            reflect: vault.reflectStatus(),
            ...(embeddings ? { embeddings } : {}),
          };
        },
        () => ({ notes: 0 }),
        false,
        // A health check never fetches a vault from its remote.
        { local: true },
      );
      const readers = context.readers?.();
      return { status: 200, body: { status: 'ok', ...value, ...(readers ? { readers } : {}) } };
    },
  },
];
