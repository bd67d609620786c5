import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the deployment files
import { docBlockIsCurrent, renderHaproxy } from '../../deploy/render.mjs';

describe('deploy/haproxy.cfg.template', () => {
  it('is what docs/many-servers.md shows (node deploy/render.mjs --doc after a change)', async () => {
    expect(await docBlockIsCurrent()).toBe(true);
  });

  it('repeats the server line for each server and leaves nothing unfilled', async () => {
    const config = (await renderHaproxy({
      bind: '127.0.0.1:1',
      host: '127.0.0.1:1',
      source: '127.0.0.2',
      socket: '/tmp/x.sock',
      servers: [
        { name: 'a', address: '127.0.0.1:2' },
        { name: 'b', address: '127.0.0.1:3' },
      ],
    })) as string;
    expect(config.match(/^ {4}server \w+ 127\.0\.0\.1:\d+ check$/gm)).toEqual([
      '    server a 127.0.0.1:2 check',
      '    server b 127.0.0.1:3 check',
    ]);
    await expect(renderHaproxy({ servers: [] })).rejects.toThrow(/was not filled in/);
  });
});
