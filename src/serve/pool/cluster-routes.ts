// The operator's side of a pool of servers behind a router (`mem serve --vaults DIR --remote …`):
// move one vault, drain a server, see what it released. The router's configuration refuses these
// paths (deploy/haproxy.cfg.template), so only a direct request, with the token when one is set,
// reaches them.
import { performance } from 'node:perf_hooks';
import { HttpError, idsOf, type Route, type RouteContext } from '../routes.js';
import type { VaultMoves } from './vault-moves.js';

function movesOf(context: RouteContext): VaultMoves {
  const moves = context.source.moves;
  if (!moves)
    throw new HttpError(404, 'this server keeps no vault in a remote (mem serve --vaults DIR --remote URL)');
  return moves;
}

const ms = (start: number) => Math.round(performance.now() - start);

export const clusterRoutes: Route[] = [
  {
    method: 'POST',
    path: '/cluster/release',
    handle: async (request, context) => {
      const moves = movesOf(context);
      const start = performance.now();
      const result = await moves.release(idsOf(request));
      return { status: 200, body: { ...result, ms: ms(start) } };
    },
  },
  {
    method: 'POST',
    path: '/cluster/accept',
    handle: async (request, context) => ({
      status: 200,
      body: { accepted: movesOf(context).accept(idsOf(request)) },
    }),
  },
  {
    method: 'POST',
    path: '/cluster/drain',
    handle: async (_request, context) => {
      const start = performance.now();
      const result = await movesOf(context).drain();
      return { status: 200, body: { ...result, ms: ms(start) } };
    },
  },
  {
    method: 'POST',
    path: '/cluster/undrain',
    handle: async (_request, context) => {
      movesOf(context).undrain();
      return { status: 200, body: movesOf(context).state() };
    },
  },
  {
    method: 'GET',
    path: '/cluster/state',
    handle: async (_request, context) => ({ status: 200, body: movesOf(context).state() }),
  },
];
