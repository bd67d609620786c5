import type { Layer, RecallHit, Vault } from '../internal.js';
import { LAYER_NAMES, memoryAddBody, memorySearchBody } from './request-bodies.js';
import { idsOf, parseBody, queryWarning, type Route, readVault, whoseIds } from './routes.js';

/** Persona notes are the host's system prompt, not memories: a search leaves them out unless asked. */
const SEARCHED_LAYERS: Layer[] = LAYER_NAMES.filter((layer) => layer !== 'persona');

/**
 * The small memory contract companion hosts (Open-LLM-VTuber and the like) already speak, so
 * they switch to memvault by changing a URL. Results are recall hits, renamed, with the day,
 * time, speaker and layer a host may show or group by.
 */
export const companionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/memory/search',
    reads: true,
    handle: async (request, context) => {
      const { query, limit, time_range: range, layers, now } = parseBody(memorySearchBody, request.body);
      const { value, partial } = await readVault<RecallHit[]>(
        context,
        whoseIds(request, context),
        // recallAsync: with embeddings on, the semantic ranking is fused in, as in `mem recall`.
        async (vault) =>
          (await vault.recallAsync(query, { k: limit, range, layers: layers ?? SEARCHED_LAYERS, now })).hits,
        () => [],
        false,
        { whileLoading: true },
      );
      const results = value.map((hit) => ({
        id: hit.id,
        memory: hit.text,
        score: hit.score,
        ...(hit.date ? { date: hit.date } : {}),
        ...(hit.time ? { time: hit.time } : {}),
        ...(hit.speaker ? { speaker: hit.speaker } : {}),
        layer: hit.layer,
        link: hit.link,
      }));
      return {
        status: 200,
        body: { results, count: results.length, ...(partial ? { partial } : {}), ...queryWarning(query) },
      };
    },
  },
  {
    method: 'POST',
    path: '/memory/add',
    handle: async (request, context) => {
      const body = parseBody(memoryAddBody, request.body);
      // Journaled before the answer (so "queued" means kept), written and searchable at once when
      // the vault lets it; git commits follow in the background, one per burst.
      // With sync.ackAfterPush the answer waits for a push that holds the add (`pushed: true`).
      const ids = { ...whoseIds(request, context), settings: body.settings };
      let pushed = false;
      let result: Awaited<ReturnType<Vault['addExchange']>> | undefined;
      try {
        result = await context.source.use(ids, true, async (vault) => {
          const added = await vault?.addExchange({
            user: body.user_text,
            assistant: body.assistant_text,
            commit: body.commit,
            interrupted: body.interrupted,
            at: body.at,
          });
          pushed = vault?.config.sync.ackAfterPush === true && (added?.kept ?? 0) > 0;
          return added;
        });
      } catch (error) {
        const notPushed = notPushedOf(error);
        if (!notPushed) throw error;
        // 502, not 503: the router must not send it to another server, where it would be kept twice.
        return {
          status: 502,
          body: {
            error: (error as Error).message,
            code: 'GIT',
            status: notPushed.stage === 'journaled' ? 'queued' : 'written',
            kept: notPushed.kept,
            links: notPushed.links,
            pushed: false,
          },
        };
      }
      const status = !result || result.kept === 0 ? 'skipped' : result.written ? 'written' : 'queued';
      return {
        status: 200,
        body: { status, kept: result?.kept ?? 0, links: result?.links ?? [], ...(pushed ? { pushed } : {}) },
      };
    },
  },
  {
    method: 'GET',
    path: '/memory/health',
    handle: async (request, context) => {
      // A draining server fails the router's health check, so the router sends its users elsewhere.
      const moves = context.source.moves?.state();
      // Background reflection of the vault the ids name (never loads or waits on a model).
      const { value: status } = await readVault(
        { ...context, deadlineMs: 0 },
        idsOf(request),
        (vault) => ({ reflect: vault.reflectStatus(), embeddings: vault.embeddingsHealth() }),
        () => undefined,
        false,
        // Never fetched from its remote for a health check: the router checks every second.
        { local: true },
      );
      return {
        status: moves?.draining ? 503 : 200,
        body: {
          status: moves?.draining ? 'draining' : 'ok',
          mode: context.source.mode,
          ...(moves ? { away: moves.away.length } : {}),
          ...(await context.source.health()),
          ...(status?.reflect ? { reflect: status.reflect } : {}),
          ...(status?.embeddings ? { embeddings: status.embeddings } : {}),
        },
      };
    },
  },
];

/** The add an error reports kept here but not pushed (`sync.ackAfterPush`), if it is one. */
function notPushedOf(error: unknown): { stage: string; links: string[]; kept: number } | undefined {
  const held = (error as { notPushed?: { stage: string; links: string[]; kept: number } } | undefined)
    ?.notPushed;
  return held && typeof held.stage === 'string' ? held : undefined;
}
