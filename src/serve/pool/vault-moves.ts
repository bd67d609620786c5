// Moving vaults between servers behind a router: what a server answers for a vault it released
// or while it drains, and the release of many vaults at once. The pool (vault-pool.ts) does the
// releasing itself; this is the contract the HTTP layer and the routes see.
/** Whose vault: the ids of a request (vault-pool.ts's MoveIds has these and more). */
export interface MoveIds {
  agentId: string;
  userId: string;
}

/** What a server behind a router does to hand vaults to the others (`/cluster/*`). */
export interface VaultMoves {
  /** Finishes the vault's journal, commits, pushes and stops serving it (503 "away" after) */
  release(ids: MoveIds): Promise<{ released: string; wasLoaded: boolean; head?: string }>;
  /** Serves a released vault again (fetched from its remote at the next request) */
  accept(ids: MoveIds): string;
  /** Releases every vault and takes no new one; `/memory/health` answers 503 so the router moves them */
  drain(): Promise<{ released: string[] }>;
  /** Ends a drain */
  undrain(): void;
  /** Draining now, and the vaults released */
  state(): { draining: boolean; away: string[] };
}

/** Why a server does not serve a vault now: released to another server, draining, or stopping. */
export type AwayWhy = 'moved' | 'draining' | 'stopping';

const AWAY: Record<AwayWhy, (key: string) => string> = {
  moved: (key) =>
    `vault ${key} moved away from this server; send requests through the router, which tries the next server`,
  draining: (key) =>
    `this server is draining: vault ${key} is served by another server; send requests through the router`,
  stopping: (key) =>
    `this server is stopping: vault ${key} is served by another server; send requests through the router`,
};

/**
 * A vault this server does not serve now: released to another server, the server drains, or it
 * stops. The answer is 503 so the router tries the next server on its ring (HAProxy's `retry-on
 * 503` with `option redispatch`); nothing was done with the request.
 */
export class VaultAway extends Error {
  readonly key: string;
  constructor(key: string, why: AwayWhy) {
    super(AWAY[why](key));
    this.key = key;
  }
}

/** `agent/user` back to ids. */
export function idsOfKey(key: string): MoveIds {
  const [agentId = '', userId = ''] = key.split('/');
  return { agentId, userId };
}

/** Vault moves or recoveries run at once: each is a commit and a push, a few git processes */
const AT_ONCE = 4;

/** Runs `fn` on `items` AT_ONCE at a time; each result in the order of `items`. */
export async function inBatches<T, R>(
  items: T[],
  fn: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE) {
    for (const result of await Promise.allSettled(items.slice(i, i + AT_ONCE).map(fn))) results.push(result);
  }
  return results;
}

/** Releases `keys` a few at a time (see inBatches). */
export async function releaseAll(
  keys: string[],
  release: (key: string) => Promise<unknown>,
  onError: (error: unknown) => void,
): Promise<{ released: string[] }> {
  const released: string[] = [];
  (await inBatches(keys, release)).forEach((result, n) => {
    if (result.status === 'fulfilled') released.push(keys[n]!);
    else onError(result.reason);
  });
  return { released };
}
