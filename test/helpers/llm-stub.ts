import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
}

export type StubReply =
  | string
  | { status: number; body: string }
  | { delayMs: number; content: string }
  /** Answers `content` and reports these token counts as the API's `usage` */
  | { content: string; usage: { prompt_tokens: number; completion_tokens: number } }
  /** Never answers: the request stays open until the client gives up or the stub closes */
  | { hang: true };

/**
 * A minimal OpenAI-compatible chat endpoint on 127.0.0.1, so reflect is tested against a real HTTP
 * server without reaching the internet. `reply` decides each answer.
 */
export async function startLlmStub(reply: (request: StubRequest) => StubReply | Promise<StubReply>) {
  const requests: StubRequest[] = [];
  let hanging = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      const request = JSON.parse(raw) as StubRequest;
      requests.push(request);
      const answer = await reply(request);
      if (typeof answer === 'object' && 'hang' in answer) {
        hanging += 1;
        res.on('close', () => {
          hanging -= 1;
        });
        return;
      }
      if (typeof answer === 'object' && 'status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
        return;
      }
      if (typeof answer === 'object' && 'delayMs' in answer)
        await new Promise((r) => setTimeout(r, answer.delayMs));
      const content = typeof answer === 'string' ? answer : answer.content;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-stub',
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage:
            typeof answer === 'object' && 'usage' in answer
              ? { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens }
              : { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Requests held open by a `{hang: true}` reply whose client is still waiting */
    hanging: () => hanging,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
