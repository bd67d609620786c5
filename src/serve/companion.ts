import type { RecallHit } from '../index.js';
import { memoryAddBody, memorySearchBody } from './request-bodies.js';
import { idsOf, parseBody, type Route, readVault } from './routes.js';

/**
 * The small memory contract companion hosts (Open-LLM-VTuber and the like) already speak, so
 * they switch to memvault by changing a URL. Results are recall hits, renamed.
 */
export const companionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/memory/search',
    handle: async (request, context) => {
      const { query, limit } = parseBody(memorySearchBody, request.body);
      const { value, partial } = await readVault<RecallHit[]>(
        context,
        idsOf(request),
        (vault) => vault.recall(query, { k: limit }).hits,
        () => [],
      );
      const results = value.map((hit) => ({ id: hit.id, memory: hit.text, score: hit.score }));
      return { status: 200, body: { results, count: results.length, ...(partial ? { partial } : {}) } };
    },
  },
  {
    method: 'POST',
    path: '/memory/add',
    handle: async (request, context) => {
      const { user_text: userText, assistant_text: assistantText } = parseBody(memoryAddBody, request.body);
      const ids = idsOf(request);
      // The chat turn does not wait for the write: it is applied after the reply, in order.
      context.background(`${ids.agentId}/${ids.userId}`, () =>
        context.source.use(ids, true, async (vault) => {
          if (!vault) return;
          const at = new Date();
          for (const [text, speaker] of [
            [userText, 'user'],
            [assistantText, 'assistant'],
          ] as const) {
            if (text === undefined || text.trim() === '') continue;
            await vault.remember({ text, speaker, at });
          }
        }),
      );
      return { status: 200, body: { status: 'queued' } };
    },
  },
  {
    method: 'GET',
    path: '/memory/health',
    handle: async () => ({ status: 200, body: { status: 'ok' } }),
  },
];
