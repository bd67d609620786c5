// `mem serve --workers N`: reads answered in worker threads, so a second core adds throughput.
// Each worker opens the vault from its cache into an index of its own (JavaScript shares no
// object graph between threads) and re-reads every path the server's own index changes, in the
// order it changed, before any read sent after that change: a worker never answers from an index
// older than the server's.
import { Worker } from 'node:worker_threads';
import type { Vault } from '../internal.js';
import type { ReadPoolStats, Reply, Route } from './routes.js';

/** A request as a worker gets it: everything but the socket */
export interface PooledRequest {
  method: string;
  rest: string;
  search: string;
  body: Record<string, unknown>;
}

export type ToWorker =
  | { type: 'paths'; paths: string[] }
  | { type: 'read'; id: number; route: string; request: PooledRequest };

export type FromWorker =
  | { type: 'ready'; notes: number }
  | { type: 'reply'; id: number; reply: Reply; internal?: string }
  /** A step failed outside any read (re-reading changed paths) */
  | { type: 'error'; message: string };

export interface ReadPoolOptions {
  vault: Vault;
  workers: number;
  /** Failures no client sees: a worker that failed to open or died (its reads are answered here) */
  onError?: (error: unknown) => void;
}

/**
 * Reads a worker holds at most (the one it answers and the ones queued behind it) before this
 * thread takes the next. With one worker and eight clients on two cores, 2 had the worker answer
 * 27 % of reads, 4 had it answer 44 % (10k notes: 232 -> 298 requests/s; 100k: 121 -> 164/s), and
 * 8 sent it every read and gained nothing: this thread also parses and answers every request.
 */
const WORKER_QUEUE = 4;

/** The key a worker finds a route by */
export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (error: unknown) => void;
  here: () => Promise<Reply>;
}

class ReadWorker {
  ready = false;
  dead = false;
  inFlight = 0;
  readonly pending = new Map<number, Pending>();

  constructor(readonly thread: Worker) {}
}

export class ReadPool {
  private readonly workers: ReadWorker[] = [];
  private nextId = 0;
  private answeredHere = 0;
  private answeredThere = 0;
  private readonly stopListening: () => void;
  private readonly onError: (error: unknown) => void;

  constructor(private readonly options: ReadPoolOptions) {
    this.onError = options.onError ?? (() => undefined);
    const { vault } = options;
    for (let i = 0; i < options.workers; i++) this.workers.push(this.spawn(vault.root));
    // Posted at once, in order: a read sent afterwards is answered after these paths are re-read.
    this.stopListening = vault.onIndexChange((paths) => {
      for (const worker of this.workers) if (!worker.dead) post(worker, { type: 'paths', paths });
    });
  }

  private spawn(root: string): ReadWorker {
    const thread = new Worker(new URL('./read-worker.js', import.meta.url), { workerData: { root } });
    const worker = new ReadWorker(thread);
    thread.on('message', (message: FromWorker) => {
      if (message.type === 'ready') worker.ready = true;
      else if (message.type === 'error') this.onError(new Error(`read worker: ${message.message}`));
      else {
        const pending = worker.pending.get(message.id);
        if (!pending) return;
        worker.pending.delete(message.id);
        worker.inFlight--;
        if (message.internal) this.onError(new Error(`read worker: ${message.internal}`));
        this.answeredThere++;
        pending.resolve(message.reply);
      }
    });
    const fail = (error: unknown) => {
      if (worker.dead) return;
      worker.dead = true;
      worker.ready = false;
      this.onError(error);
      // What it was asked is answered here instead.
      for (const { here, resolve, reject } of worker.pending.values())
        this.runHere(here).then(resolve, reject);
      worker.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`a read worker exited (code ${code})`)));
    thread.unref();
    return worker;
  }

  /**
   * Answers `route` in a free worker, or here (`here`) when this thread is the freer, no worker is
   * ready yet, or the server's index is still being brought up to date (such a read waits for it
   * and may say `partial`, which only this thread can tell).
   */
  async dispatch(route: Route, request: PooledRequest, here: () => Promise<Reply>): Promise<Reply> {
    const { vault } = this.options;
    // A fresh read first brings the server's index up to date; the paths that changed reach the
    // workers before the read does.
    if (request.body['fresh'] === true) await vault.refresh();
    if (vault.scanPending || !(await vault.whenIdle(0))) return this.runHere(here);
    const worker = this.pick();
    if (!worker) return this.runHere(here);
    const id = ++this.nextId;
    worker.inFlight++;
    return new Promise<Reply>((resolve, reject) => {
      worker.pending.set(id, { resolve, reject, here });
      post(worker, {
        type: 'read',
        id,
        route: routeKey(route),
        // Already as fresh as asked: the worker must not look at the disk again on its own.
        request: { ...request, body: withoutFresh(request.body) },
      });
    });
  }

  /**
   * The least busy ready worker while it holds fewer than WORKER_QUEUE reads, else none (this
   * thread answers). This thread answers a read synchronously, so it can never be seen busy from
   * here: sending a worker a read only when it held none (as this did first) left the worker idle
   * while its answer waited for this thread, and it answered a tenth of the reads. A few reads
   * queued behind the one it is answering keep it working.
   */
  private pick(): ReadWorker | undefined {
    let best: ReadWorker | undefined;
    for (const worker of this.workers)
      if (worker.ready && !worker.dead && (!best || worker.inFlight < best.inFlight)) best = worker;
    return best !== undefined && best.inFlight < WORKER_QUEUE ? best : undefined;
  }

  private async runHere(here: () => Promise<Reply>): Promise<Reply> {
    try {
      return await here();
    } finally {
      this.answeredHere++;
    }
  }

  stats(): ReadPoolStats {
    return {
      workers: this.workers.length,
      ready: this.workers.filter((worker) => worker.ready && !worker.dead).length,
      answered: { workers: this.answeredThere, here: this.answeredHere },
    };
  }

  /** Stops the workers; reads they had not answered are answered here. */
  async close(): Promise<void> {
    this.stopListening();
    await Promise.all(
      this.workers.map(async (worker) => {
        const pending = [...worker.pending.values()];
        worker.dead = true;
        worker.pending.clear();
        await worker.thread.terminate();
        for (const { here, resolve, reject } of pending) this.runHere(here).then(resolve, reject);
      }),
    );
  }
}

function post(worker: ReadWorker, message: ToWorker): void {
  worker.thread.postMessage(message);
}

function withoutFresh(body: Record<string, unknown>): Record<string, unknown> {
  const { fresh: _fresh, ...rest } = body;
  return rest;
}
