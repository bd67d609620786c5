// The scenario of issue 35 on a running pool (cluster-harness.mjs): many users' companions add and
// search through the router, several at once, while some vaults are moved, one server drains and
// another is SIGKILLed and brought back; then every server stops and every remote is checked for
// every add the router accepted. bench/cluster.mjs runs it large, test/cluster/ small. With
// `ackUsers`, that many users' vaults have `sync.ackAfterPush` (their remotes are made first, with
// it in their config): their adds are answered once pushed, and each is looked for in the remote
// as soon as it is answered.
import { performance } from 'node:perf_hooks';
import { makeRandom } from './prng.mjs';
import { percentile, round } from './stats.mjs';

const AGENT = 'companion';
const WORDS = [
  'kiwi',
  'harbor',
  'violin',
  'tea',
  'marathon',
  'garden',
  'lantern',
  'piano',
  'hiking',
  'bakery',
];
const TOKEN = 'tok-u[0-9]+-t[0-9]+';

/** @param {number} ms @returns {Promise<void>} */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {Awaited<ReturnType<typeof import('./cluster-harness.mjs').startCluster>>} cluster
 * @param {{ users: number, turns: number, concurrency: number, moves: number, ackUsers?: number,
 *   restartAfterMs?: number, trace?: boolean, log?: (line: string) => void, detail?: (line: string) => void,
 *   servedWithinMs?: number }} options
 */
export async function runClusterScenario(cluster, options) {
  const { users, turns, concurrency, moves } = options;
  const log = options.log ?? (() => undefined);
  /** Each step of the script, for a caller that wants to see where a run is (the test's stuck report) */
  const detail = options.detail ?? (() => undefined);
  const random = makeRandom(35);
  const ids = Array.from({ length: users }, (_, i) => `u${i}`);
  /** @type {Map<string, Set<string>>} */
  const accepted = new Map(ids.map((id) => [id, new Set()]));
  /** @param {string} user */
  const acceptedOf = (user) => /** @type {Set<string>} */ (accepted.get(user));
  const lastServer = new Map();
  /** @type {number[]} */
  const searchMs = [];
  /**
   * Searches served by the server that served the user's last search (their vault loaded there),
   * and the others: a user's first, or their first on a server after a move, a drain or a kill,
   * which waited for the vault to be cloned (or its remote made) and opened there.
   */
  /** @type {number[]} */
  const searchSameServerMs = [];
  /** @type {number[]} */
  const searchNewServerMs = [];
  const lastSearchServer = new Map();
  /** Every search with its user, turn, server and start (ms into the load), for `trace` */
  /** @type {Array<{ user: string, k: number, ms: number, server: string | null, at: number }>} */
  const searches = [];
  /** Searches answered "partial": the vault was still loading on its server past --deadline */
  let partialSearches = 0;
  /** What the script did when (ms into the load), for `trace` */
  /** @type {Array<{ at: number, what: string }>} */
  const timeline = [];
  /** @param {string} what */
  const mark = (what) => {
    timeline.push({ at: Math.round(performance.now() - wallStart), what });
    detail(what);
  };
  /** @type {number[]} */
  const addMs = [];
  /** @type {number[]} */
  const ackAddMs = [];
  // Every tenth user, up to ackUsers of them, acknowledges adds only once pushed.
  const ackIds = new Set(ids.filter((_, i) => i % 10 === 0).slice(0, options.ackUsers ?? 0));
  let ackNotInRemote = 0;
  let ackNotPushed = 0;
  for (const user of ackIds) await cluster.seedVault(AGENT, user, { ackAfterPush: true });
  /** @type {string[]} */
  const failures = [];
  /** @type {Record<string, number>} */
  const memoryPeak = {};

  async function post(path, body, base = cluster.routerUrl) {
    const start = performance.now();
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      server: response.headers.get('x-mem-server'),
      body: text.startsWith('{') ? JSON.parse(text) : { error: text },
      ms: performance.now() - start,
      at: start,
    };
  }

  /** One turn of one user: search, then add (retried as a host would, up to 3 times). */
  async function turn(user, k) {
    const word = random.pick(WORDS);
    const search = await post('/memory/search', { agent_id: AGENT, user_id: user, query: word, limit: 5 });
    if (search.status === 200) {
      searchMs.push(search.ms);
      if (search.body.partial) partialSearches++;
      (lastSearchServer.get(user) === search.server ? searchSameServerMs : searchNewServerMs).push(search.ms);
      lastSearchServer.set(user, search.server);
      searches.push({
        user,
        k,
        ms: Math.round(search.ms),
        server: search.server,
        at: Math.round(search.at - wallStart),
      });
    } else failures.push(`search ${user}: ${search.status} ${JSON.stringify(search.body)}`);
    const token = `tok-${user}-t${k}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const add = await post('/memory/add', {
        agent_id: AGENT,
        user_id: user,
        user_text: `${token} I went ${word} with ${random.pick(WORDS)} today`,
        assistant_text: `Noted: ${word}.`,
      }).catch((error) => ({ status: 0, body: { error: String(error) }, ms: 0, server: null }));
      if (add.status === 200 && add.body.status !== 'skipped') {
        if (ackIds.has(user)) {
          ackAddMs.push(add.ms);
          if (add.body.pushed !== true) failures.push(`add ${user}: answered without pushed: true`);
          // Answered once pushed: the remote's branch holds it now, whichever server pushed it.
          const said = `${token} I went`;
          if (!(await cluster.tokensInRemote(AGENT, user, said)).has(said)) ackNotInRemote++;
        } else addMs.push(add.ms);
        acceptedOf(user).add(token);
        lastServer.set(user, add.server);
        return;
      }
      if (add.status === 502 && add.body.pushed === false) {
        // Kept on that server, not pushed: sending it again would keep it twice.
        ackNotPushed++;
        acceptedOf(user).add(token);
        failures.push(`add ${user}: not pushed: ${add.body.error}`);
        return;
      }
      failures.push(`add ${user} #${attempt + 1}: ${add.status} ${JSON.stringify(add.body)}`);
      await sleep(200);
    }
  }

  const wallStart = performance.now();
  const queue = [];
  for (let k = 0; k < turns; k++) for (const user of random.sample(ids, ids.length)) queue.push([user, k]);
  const total = queue.length;
  let done = 0;
  /** @param {number} fraction @returns {Promise<void>} */
  const reached = (fraction) =>
    new Promise((resolve) => {
      const check = setInterval(() => {
        if (done >= total * fraction) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
  // Each user's turns in order: a user waits for their last turn before the next.
  const busy = new Set();
  async function worker() {
    while (queue.length > 0) {
      const index = queue.findIndex(([user]) => !busy.has(user));
      if (index < 0) {
        await sleep(5);
        continue;
      }
      const [user, k] = queue.splice(index, 1)[0];
      busy.add(user);
      try {
        await turn(user, k);
      } finally {
        busy.delete(user);
        done++;
      }
    }
  }
  const sampler = setInterval(async () => {
    const now = await cluster.memory().catch(() => ({}));
    for (const [name, m] of Object.entries(now)) memoryPeak[name] = Math.max(memoryPeak[name] ?? 0, m.rssMiB);
  }, 500);

  /** @param {string} name */
  const serverOf = (name) => {
    const server = cluster.servers.find((s) => s.name === name);
    if (!server) throw new Error(`no server ${name}`);
    return server;
  };
  /** @type {{ moveSeconds: number[], moved: string[], releaseMs: number[], drain?: object, failover?: { server: string,
   *   failoverSeconds?: number, backInRingSeconds: number } }} */
  const events = { moveSeconds: [], moved: [], releaseMs: [] };

  /** Seconds until a search through the router for `user` finds `token` on a server other than `from`. */
  async function servedElsewhere(user, token, from, start) {
    for (;;) {
      const r = await post('/memory/search', { agent_id: AGENT, user_id: user, query: token, limit: 3 });
      const found = r.status === 200 && r.body.results.some((hit) => hit.memory.includes(token));
      if (found && r.server !== from) return (performance.now() - start) / 1000;
      const bound = options.servedWithinMs ?? 180_000;
      if (performance.now() - start > bound)
        throw new Error(
          `${user} was not served elsewhere within ${bound / 1000} s (last: ${r.status} from ${r.server})\n${cluster.output()}`,
        );
      await sleep(20);
    }
  }

  const latestToken = (user) => [...acceptedOf(user)].at(-1);

  const script = (async () => {
    await reached(0.2);
    // Moves: a few users' vaults released by the server that holds them; the router's next try
    // goes to the next server of the ring, which clones or fetches the vault.
    const movable = ids.filter((user) => lastServer.has(user) && !busy.has(user)).slice(0, moves);
    for (const user of movable) {
      busy.add(user);
      try {
        const from = lastServer.get(user);
        const token = latestToken(user);
        const start = performance.now();
        mark(`release ${user} from ${from}`);
        const released = await post(
          '/cluster/release',
          { agent_id: AGENT, user_id: user },
          serverOf(from).url,
        );
        if (released.status !== 200) throw new Error(`release of ${user}: ${JSON.stringify(released.body)}`);
        // What releasing took (the journal finished, one commit, fetch and push): about what
        // acknowledging an add only once it is pushed would add to that add.
        events.releaseMs.push(released.body.ms);
        events.moveSeconds.push(await servedElsewhere(user, token, from, start));
        events.moved.push(user);
        mark(`moved ${user}`);
      } finally {
        busy.delete(user);
      }
    }
    log(`moved ${events.moved.length} vaults`);
    await reached(0.4);
    // A drain: every vault of the first server released, its health check fails, its users move.
    const drained = serverOf('mem1');
    const start = performance.now();
    mark(`drain ${drained.name}`);
    const drain = await post('/cluster/drain', {}, drained.url);
    await cluster.waitState(drained.name, false);
    const released = drain.body.released?.length ?? 0;
    events.drain = {
      server: drained.name,
      released,
      releaseSeconds: round(drain.body.ms / 1000),
      outOfRingSeconds: round((performance.now() - start) / 1000),
    };
    mark(`drained ${drained.name}`);
    log(`drained ${drained.name}: ${released} vaults`);
    await reached(0.6);
    // A kill: SIGKILL, its users taken over by the next servers from the remotes; then it comes back.
    const victim = serverOf('mem2');
    // The failover is measured with an add the victim had already pushed: one still only on its
    // disk (a sync waits sync.afterCommitGapSeconds after the last) is lost for reads until the
    // dead server comes back, and waiting for it here would wait for the restart that comes after.
    let user;
    let token;
    for (const u of ids.filter((id) => lastServer.get(id) === victim.name && !busy.has(id))) {
      const inRemote = await cluster.tokensInRemote(AGENT, u, TOKEN);
      token = [...acceptedOf(u)].find((t) => inRemote.has(t));
      if (token) {
        user = u;
        break;
      }
    }
    if (user) busy.add(user);
    const killedAt = performance.now();
    mark(`kill ${victim.name}`);
    await cluster.kill(victim);
    let failoverSeconds;
    if (user && token) {
      try {
        failoverSeconds = await servedElsewhere(user, token, victim.name, killedAt);
      } finally {
        busy.delete(user);
      }
    }
    await sleep(options.restartAfterMs ?? 3000);
    const restartStart = performance.now();
    mark(`restart ${victim.name}`);
    await cluster.restart(victim);
    await cluster.waitState(victim.name, true);
    mark(`back ${victim.name}`);
    events.failover = {
      server: victim.name,
      failoverSeconds: failoverSeconds === undefined ? undefined : round(failoverSeconds),
      backInRingSeconds: round((performance.now() - restartStart) / 1000),
    };
    log(`killed and restarted ${victim.name}`);
  })();

  await Promise.all([
    ...Array.from({ length: concurrency }, () => worker()),
    script.finally(() => detail('script done')),
  ]);
  detail(`load done: ${done} of ${total} turns`);
  clearInterval(sampler);
  const loadSeconds = (performance.now() - wallStart) / 1000;
  const memoryAtEnd = await cluster.memory();
  detail('memory read');
  const cpuAtEnd = await cluster.cpu();
  detail('cpu read');
  // The git processes the servers started during the load (with the harness's countGit).
  const gitCounts = await cluster.gitCounts();

  // Every server stops (SIGTERM: each commits and pushes what it holds); then the remotes.
  await cluster.stop((name) => detail(`${name} exited`));
  detail('servers stopped');
  let inRemotes = 0;
  const lostTokens = [];
  for (const user of ids) {
    const found = await cluster.tokensInRemote(AGENT, user, TOKEN);
    for (const token of acceptedOf(user)) {
      if (found.has(token)) inRemotes++;
      else lostTokens.push(token);
    }
  }
  const acceptedCount = [...accepted.values()].reduce((n, set) => n + set.size, 0);
  return {
    users,
    turnsPerUser: turns,
    concurrency,
    accepted: acceptedCount,
    inRemotes,
    lost: acceptedCount - inRemotes,
    lostTokens: lostTokens.slice(0, 20),
    failedRequests: failures.length,
    stopKilled: [...(cluster.stopKilled ?? [])],
    failures: failures.slice(0, 10),
    movedVaults: events.moved.length,
    killedServers: 1,
    drainedServers: 1,
    searchP50Ms: round(percentile(searchMs, 50)),
    searchP95Ms: round(percentile(searchMs, 95)),
    partialSearches,
    searchesOnSameServer: {
      count: searchSameServerMs.length,
      p50Ms: round(percentile(searchSameServerMs, 50)),
      p95Ms: round(percentile(searchSameServerMs, 95)),
    },
    searchesOnNewServer: {
      count: searchNewServerMs.length,
      p50Ms: round(percentile(searchNewServerMs, 50)),
      p95Ms: round(percentile(searchNewServerMs, 95)),
    },
    addP50Ms: round(percentile(addMs, 50)),
    addP95Ms: round(percentile(addMs, 95)),
    ...(ackIds.size > 0
      ? {
          ackAfterPushUsers: ackIds.size,
          ackAfterPushAdds: ackAddMs.length,
          addP50MsAckAfterPush: round(percentile(ackAddMs, 50)),
          addP95MsAckAfterPush: round(percentile(ackAddMs, 95)),
          ackAfterPushNotInRemoteWhenAnswered: ackNotInRemote,
          ackAfterPushNotPushed: ackNotPushed,
        }
      : {}),
    moveSeconds: {
      p50: round(percentile(events.moveSeconds, 50)),
      max: round(Math.max(...events.moveSeconds)),
    },
    releaseMs: { p50: round(percentile(events.releaseMs, 50)), max: round(Math.max(...events.releaseMs)) },
    drain: events.drain,
    failoverSeconds: events.failover?.failoverSeconds,
    restart: events.failover,
    loadSeconds: round(loadSeconds, 1),
    ...(gitCounts.total > 0
      ? {
          gitProcesses: {
            total: gitCounts.total,
            perAcceptedAdd: round(gitCounts.total / Math.max(1, acceptedCount)),
            bySubcommand: gitCounts.bySubcommand,
          },
        }
      : {}),
    cpuSeconds: cpuAtEnd,
    ...(options.trace ? { trace: { searches, timeline } } : {}),
    memoryMiB: Object.fromEntries(
      Object.entries(memoryPeak).map(([name, peak]) => [
        name,
        { peakRss: peak, rssAtEnd: memoryAtEnd[name]?.rssMiB },
      ]),
    ),
  };
}
