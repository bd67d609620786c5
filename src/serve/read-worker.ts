// One read worker of `mem serve --workers` (see read-pool.ts): opens the vault from its cache,
// never writes it, re-reads the paths the server says changed, and answers reads with the same
// routes the server has, one message at a time, in the order they came.
import { parentPort, workerData } from 'node:worker_threads';
import { openVault } from '../internal.js';
import { errorReply, standardRoutes } from './http.js';
import { singleVault } from './pool/vault-source.js';
import { type FromWorker, routeKey, type ToWorker } from './read-pool.js';
import type { Reply, RouteContext } from './routes.js';

const port = parentPort;
if (!port) throw new Error('read-worker.js runs as a worker thread of mem serve');
const { root } = workerData as { root: string };

const routes = new Map(
  standardRoutes.filter((route) => route.reads).map((route) => [routeKey(route), route]),
);
// The server checks the vault's freshness before it sends a read: here it is only ever idle.
// Sections are embedded by the server (in the background); a worker only reads its vector cache.
const vault = await openVault({ path: root, saveCache: false, requireConfig: true, embedSections: 'never' });
const context: RouteContext = { source: singleVault(vault), deadlineMs: 0 };

async function answer(message: Extract<ToWorker, { type: 'read' }>): Promise<FromWorker> {
  let internal: string | undefined;
  let reply: Reply;
  try {
    const route = routes.get(message.route);
    if (!route) throw new Error(`no read route ${message.route}`);
    const { method, rest, search, body } = message.request;
    reply = await route.handle({ method, rest, query: new URLSearchParams(search), body }, context);
  } catch (error) {
    reply = errorReply(error, (failure) => {
      internal = (failure as Error)?.message ?? String(failure);
    });
  }
  return { type: 'reply', id: message.id, reply, ...(internal ? { internal } : {}) };
}

/** Replies are data; one the structured clone refuses goes as its JSON, as the server would send it. */
function reply(message: FromWorker): void {
  try {
    port?.postMessage(message);
  } catch {
    port?.postMessage(JSON.parse(JSON.stringify(message)));
  }
}

let queue: Promise<unknown> = Promise.resolve();
port.on('message', (message: ToWorker) => {
  queue = queue
    .then(async () => {
      if (message.type === 'paths') await vault.refreshPaths(message.paths);
      else reply(await answer(message));
    })
    .catch((error: unknown) => reply({ type: 'error', message: (error as Error)?.message ?? String(error) }));
});
port.postMessage({ type: 'ready', notes: vault.noteCount } satisfies FromWorker);
