import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal Hugging Face Hub on 127.0.0.1: serves `files` (model id → path → content) at
 * `/<model id>/resolve/main/<path>`, answers the first-byte Range request Transformers.js makes
 * to learn a file's size, and 404 for anything else. Records every path asked for.
 */
export async function startHubStub(files: Record<string, Record<string, Uint8Array | string>>) {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    requests.push(url);
    const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(url);
    const content = match ? files[match[1] as string]?.[match[2] as string] : undefined;
    if (content === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    const body = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content);
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const from = Number(range[1]);
      const to = Math.min(Number(range[2]), body.length - 1);
      res
        .writeHead(206, {
          'content-range': `bytes ${from}-${to}/${body.length}`,
          'content-length': String(to - from + 1),
        })
        .end(body.subarray(from, to + 1));
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback address nothing listens on: a port the system gave, then closed. */
export async function closedEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
