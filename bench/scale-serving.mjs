// Two serving steps of bench/scale-peers.mjs (issue 33's targets for a process that stays up):
// - qmd's own resident process, `qmd mcp` over stdio, asked the queries `mem serve` is asked (BM25:
//   one `lex` sub-search, no rerank, so no model is loaded): its RSS after the first answer and after
//   them all, and its CPU per query, beside `mem serve`'s;
// - a day of chat adds to `mem serve`: 1,000 `POST /memory/add` from one client (server CPU per add,
//   hundred by hundred: flat or growing with the day), then a burst of 1,000 more from 8 clients at
//   once (server CPU per add, RSS after against RSS after open).
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startServer, stopServer } from './http-latency.mjs';
import { procCpuMs, procRss } from './measure-process.mjs';
import { median, mib, round } from './stats.mjs';

const ADDS = 1000;
const BURST_CLIENTS = 8;
/** How long a peer's first answer may take (a 100k-note index opened cold from the page cache). */
const ANSWER_TIMEOUT_MS = 600_000;

/** A JSON-RPC client of an MCP server on stdio (one JSON message a line). */
function stdioRpc(child) {
  let buffer = '';
  let id = 0;
  /** @type {Map<number, (message: any) => void>} */
  const waiting = new Map();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line.startsWith('{')) continue;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    notify: (method, params) => send({ method, params }),
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const n = ++id;
        const timer = setTimeout(
          () => reject(new Error(`${method}: no answer in ${ANSWER_TIMEOUT_MS} ms`)),
          ANSWER_TIMEOUT_MS,
        );
        waiting.set(n, (message) => {
          clearTimeout(timer);
          if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
          else resolve(message.result);
        });
        send({ id: n, method, params });
      }),
  };
}

/**
 * `qmd mcp` on the collection qmd indexed, asked `queries` one at a time: RSS after its first
 * answer (the open) and after them all, and its CPU per query after the first.
 */
export async function benchQmdResident(qmd, env, queries) {
  const child = spawn(process.execPath, [qmd.script, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const rpc = stdioRpc(child);
    await rpc.call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'memvault-bench', version: '1' },
    });
    rpc.notify('notifications/initialized', {});
    let empty = 0;
    const ask = async (query) => {
      const result = await rpc.call('tools/call', {
        name: 'query',
        arguments: { searches: [{ type: 'lex', query }], limit: 8, rerank: false },
      });
      if (result?.isError) throw new Error(`qmd mcp: ${JSON.stringify(result.content)}`);
      if ((result?.structuredContent?.results ?? []).length === 0) empty++;
    };
    await ask(queries[0] ?? 'coffee');
    const afterOpen = await procRss(child.pid);
    const cpuBefore = await procCpuMs(child.pid);
    for (const q of queries.slice(1)) await ask(q);
    const cpuMs = (await procCpuMs(child.pid)) - cpuBefore;
    const afterQueries = await procRss(child.pid);
    return {
      queries: queries.length,
      noResults: empty,
      rssAfterOpenMiB: mib(afterOpen.rssBytes),
      rssAfterQueriesMiB: mib(afterQueries.rssBytes),
      peakRssMiB: mib(afterQueries.peakRssBytes),
      cpuMsPerQuery: round(cpuMs / Math.max(1, queries.length - 1)),
      note: 'qmd mcp on stdio; tools/call query with one lex (BM25) sub-search, rerank off, limit 8',
    };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\n${stderr}`);
  } finally {
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * `POST <url><route>` with `body` as JSON on a kept-alive connection of `agent` (plain `node:http`:
 * the clients share the server's cores, and `fetch` cost three times the CPU a request); its
 * parsed answer, or an error naming the route and status.
 */
export function postJson(agent, url, route, body) {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const post = request(
      `${url}${route}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) reject(new Error(`${route}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    post.on('error', reject);
    post.end(data);
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: BURST_CLIENTS });

/** `POST /memory/add` with `body`; throws unless an entry was written. */
async function add(url, body) {
  const json = /** @type {{ status?: string }} */ (await postJson(agent, url, '/memory/add', body));
  if (json.status !== 'written') throw new Error(`/memory/add: ${JSON.stringify(json)}`);
  return json;
}

/** Chat exchanges of one day from `from`, 10 s apart, each with a word of its own. */
function exchanges(from, start, count) {
  return Array.from({ length: count }, (_, k) => {
    const i = start + k;
    return {
      user_text: `the quokka${i}x came by the café with a story about ${i % 7 === 0 ? '火锅' : 'the lake'}`,
      assistant_text: `noted, entry ${i}`,
      at: new Date(from + i * 10_000).toISOString(),
    };
  });
}

/**
 * `mem serve` on the vault, after its first full answer: 1,000 adds from one client (server CPU per
 * add by hundred), then a burst of 1,000 from 8 clients; RSS after open, after each, and the peak.
 * The adds go to the day before `now`, one note growing to 4,000 entries.
 */
export async function benchAdds(cli, root, query, now) {
  const { child, url } = await startServer(root, cli);
  try {
    for (const deadline = performance.now() + ANSWER_TIMEOUT_MS; ; ) {
      const response = await fetch(`${url}/memory/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 8 }),
      });
      const json = /** @type {{ partial?: boolean }} */ (await response.json());
      if (!response.ok) throw new Error(`/memory/search: ${response.status} ${JSON.stringify(json)}`);
      if (!json.partial) break;
      if (performance.now() > deadline) throw new Error('mem serve: no full answer before the adds');
    }
    const afterOpen = await procRss(child.pid);
    const from = new Date(now).getTime() - 22 * 3600_000;
    const perHundredMs = [];
    for (let block = 0; block < ADDS / 100; block++) {
      const before = await procCpuMs(child.pid);
      for (const body of exchanges(from, block * 100, 100)) await add(url, body);
      perHundredMs.push(round(((await procCpuMs(child.pid)) - before) / 100));
    }
    const afterAdds = await procRss(child.pid);
    const burst = exchanges(from, ADDS, ADDS);
    let next = 0;
    const burstCpuBefore = await procCpuMs(child.pid);
    const burstStart = performance.now();
    await Promise.all(
      Array.from({ length: BURST_CLIENTS }, async () => {
        while (next < burst.length) await add(url, /** @type {object} */ (burst[next++]));
      }),
    );
    const burstSeconds = (performance.now() - burstStart) / 1000;
    const burstCpuMs = (await procCpuMs(child.pid)) - burstCpuBefore;
    const afterBurst = await procRss(child.pid);
    return {
      adds: ADDS,
      cpuMsPerAddByHundred: perHundredMs,
      cpuMsPerAdd: { first: perHundredMs[0], last: perHundredMs.at(-1), median: round(median(perHundredMs)) },
      burst: {
        adds: ADDS,
        clients: BURST_CLIENTS,
        cpuMsPerAdd: round(burstCpuMs / ADDS),
        perSecond: Math.round(ADDS / burstSeconds),
      },
      rssAfterOpenMiB: mib(afterOpen.rssBytes),
      rssAfterAddsMiB: mib(afterAdds.rssBytes),
      rssAfterBurstMiB: mib(afterBurst.rssBytes),
      peakRssMiB: mib(afterBurst.peakRssBytes),
      ratioRssAfterBurstToOpen: round(afterBurst.rssBytes / afterOpen.rssBytes),
      note: 'server CPU from /proc (10 ms ticks) per block of 100 adds, one client; then 1,000 more from 8 clients at once; each add is one exchange (2 entries) to the same day',
    };
  } finally {
    await stopServer(child);
  }
}
