// One rule for a moment and a day, whichever edge they come in by: the CLI's flags, an HTTP body,
// an MCP tool's arguments. The property tests hold every edge's check to the one function over
// generated text; the last tests send a few of each kind through the real edges.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { checkInput } from '../../src/api/inputs/check-input.js';
import { recallInput } from '../../src/api/inputs/recall.js';
import { toRecallOptions } from '../../src/cli/commands/recall.js';
import { parseNow } from '../../src/cli/parse-options.js';
import { openVault, type Vault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import {
  compileArgs,
  compileBody,
  memoryAddBody,
  memorySearchBody,
  recallArgs,
  recallBody,
  rememberBody,
} from '../../src/serve/request-bodies.js';
import { parseIsoDay } from '../../src/time/calendar-day.js';
import { clockExists, isDayText, isMomentText } from '../../src/time/parse-input-time.js';
import { parseInstant } from '../../src/time/parse-instant.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { mem } from '../helpers/run-cli.js';

const ZONES = ['UTC', 'Asia/Shanghai', 'America/Los_Angeles', 'Pacific/Kiritimati', 'America/Santiago'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Text near the shape of a day: fields out of range, one digit short, other separators. */
const dayLike = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.constantFrom('-', '/', '.', ''),
    fc.boolean(),
  )
  .map(([y, m, d, sep, short]) => `${pad(y, 4)}${sep}${short ? m : pad(m)}${sep}${pad(d)}`);

/** Text near the shape of a moment: a day-like date, a clock with fields out of range, an offset. */
const momentLike = fc
  .tuple(
    dayLike,
    fc.constantFrom('T', ' ', ''),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }),
    fc.option(fc.integer({ min: 0, max: 61 })),
    fc.option(fc.constantFrom('.5', ',123', '.123456789')),
    fc.constantFrom('', 'Z', 'z', '+08:00', '+0800', '+08', '-05:30', ' +08:00', 'GMT+0800', ' PST', 'x'),
  )
  .map(
    ([day, sep, h, m, s, fraction, offset]) =>
      `${day}${sep}${pad(h)}:${pad(m)}${s === null ? '' : `:${pad(s)}${fraction ?? ''}`}${offset}`,
  );

/** Any text an edge may be handed: noise, the shapes above, and the forms Date.parse prints. */
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom(...'0123456789-:T Z+./,'.split('')) }),
  dayLike,
  momentLike,
  fc
    .date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .chain((d) => fc.constantFrom(d.toString(), d.toUTCString(), d.toISOString(), d.toDateString())),
);

const accepts = (check: () => unknown) => {
  try {
    check();
    return true;
  } catch {
    return false;
  }
};

describe('the one rule for a moment', () => {
  it('a clock reading exists exactly when Temporal builds it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        (year, month, day, hour, minute, second) => {
          const clock = { year, month, day, hour, minute, second, millisecond: 0 };
          expect(clockExists(clock)).toBe(
            accepts(() => Temporal.PlainDateTime.from(clock, { overflow: 'reject' })),
          );
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('is what parseInstant reads, in every zone', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...ZONES), (text, zone) => {
        expect(isMomentText(text)).toBe(parseInstant(text, zone) !== undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it('the CLI flags, the HTTP bodies and the MCP tools accept and refuse the same text', () => {
    const schemas = {
      'POST /recall now': (now: string) => recallBody.safeParse({ query: 'q', now }).success,
      'POST /compile now': (now: string) => compileBody.safeParse({ message: 'm', now }).success,
      'POST /remember at': (at: string) => rememberBody.safeParse({ text: 't', at }).success,
      'POST /memory/search now': (now: string) => memorySearchBody.safeParse({ query: 'q', now }).success,
      'POST /memory/add at': (at: string) => memoryAddBody.safeParse({ user_text: 'u', at }).success,
      'memory_recall now': (now: string) => recallArgs.safeParse({ query: 'q', now }).success,
      'memory_compile now': (now: string) => compileArgs.safeParse({ message: 'm', now }).success,
      '--now': (now: string) => accepts(() => parseNow(now)),
      '--at': (at: string) => accepts(() => parseNow(at, '--at')),
    };
    fc.assert(
      fc.property(anyText, (text) => {
        const expected = isMomentText(text);
        for (const [edge, check] of Object.entries(schemas))
          expect([edge, text, check(text)]).toEqual([edge, text, expected]);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the flag or the field and what was expected', () => {
    expect(() => parseNow('soon')).toThrow('--now must be an ISO 8601 date or time, got "soon"');
    expect(recallBody.safeParse({ query: 'q', now: 'soon' }).error?.issues[0]?.message).toBe(
      '"now" must be an ISO 8601 date or time',
    );
  });
});

describe('the one rule for a day', () => {
  it('is what calendar-day reads', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, dayLike), (text) => {
        expect(isDayText(text)).toBe(parseIsoDay(text) !== undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it('--from, --to and every range field accept and refuse the same text', () => {
    const range = (from: string) => ({ from, to: '9999-12-31' });
    const schemas = {
      'POST /recall range': (day: string) => recallBody.safeParse({ query: 'q', range: range(day) }).success,
      'POST /compile range': (day: string) =>
        compileBody.safeParse({ message: 'm', range: range(day) }).success,
      'POST /memory/search time_range': (day: string) =>
        memorySearchBody.safeParse({ query: 'q', time_range: range(day) }).success,
      'memory_recall range': (day: string) => recallArgs.safeParse({ query: 'q', range: range(day) }).success,
      'memory_compile range': (day: string) =>
        compileArgs.safeParse({ message: 'm', range: range(day) }).success,
      '--from': (day: string) =>
        recallInput.safeParse({ query: 'q', ...toRecallOptions({ from: day }) }).success,
      '--to': (day: string) => recallInput.safeParse({ query: 'q', ...toRecallOptions({ to: day }) }).success,
    };
    fc.assert(
      fc.property(fc.oneof(anyText, dayLike), (text) => {
        const expected = isDayText(text);
        for (const [edge, check] of Object.entries(schemas))
          expect([edge, text, check(text)]).toEqual([edge, text, expected]);
      }),
      { numRuns: 2000 },
    );
  });

  it('shows a model the shape of a day in the MCP tools’ JSON Schema', () => {
    const schema = z.toJSONSchema(recallArgs, { io: 'input' }) as unknown as {
      properties: { range: { properties: { from: { pattern: string } } } };
    };
    expect(schema.properties.range.properties.from.pattern).toBe('^\\d{4}-\\d{2}-\\d{2}$');
  });

  it('refuses a day that does not exist, which HTTP once let through', () => {
    expect(isDayText('2026-02-30')).toBe(false);
    expect(isDayText('2028-02-29')).toBe(true);
    expect(
      recallBody.safeParse({ query: 'q', range: { from: '2026-02-30', to: '2026-03-01' } }).error?.issues[0]
        ?.message,
    ).toBe('"range.from" must be a date YYYY-MM-DD');
    // The command line checks its flags with the same schema, so it says the same.
    expect(() => checkInput(recallInput, { query: 'q', ...toRecallOptions({ from: '2026-02-30' }) })).toThrow(
      '"range.from" must be a date YYYY-MM-DD',
    );
  });
});

describe('at each edge', () => {
  // A short offset and a comma fraction Date.parse cannot read, a day and a clock that do not
  // exist, text that is no time, and plain good ones.
  const MOMENTS = [
    '2026-11-30T10:00:00+08:00',
    '2026-11-30',
    '2026-11-30T00:10:00+08',
    '2026-11-30 09:00:00,5',
    '2026-02-30T10:00',
    '2026-11-30T24:00',
    'soon',
  ];
  const DAYS = ['2026-11-30', '2026-02-30', '2026-11-3', 'yesterday'];

  let root: string;
  let vault: Vault;
  let server: HttpServer;
  let mcp: Client;

  beforeAll(async () => {
    root = await makeVault({ 'insights/tea.md': '# Tea\n\nThe green teapot.\n' });
    vault = await openVault({ path: root, cache: false });
    server = await serveHttp({ source: singleVault(vault), port: 0 });
    mcp = await connectMcp(root);
  });

  afterAll(async () => {
    await mcp.close();
    await server.close();
    await cleanupVaults();
  });

  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).status;
  const tool = async (args: Record<string, unknown>) =>
    ((await mcp.callTool({ name: 'memory_recall', arguments: args })) as { isError?: boolean }).isError ===
    true;
  const cli = async (args: string[]) =>
    (await mem(['--vault', root, '--no-server', 'recall', 'teapot', ...args])).code;

  it.each(MOMENTS)('now = %s', async (now) => {
    const good = isMomentText(now);
    expect(await cli(['--now', now])).toBe(good ? 0 : 2);
    expect(await post('/recall', { query: 'teapot', now })).toBe(good ? 200 : 400);
    expect(await tool({ query: 'teapot', now })).toBe(!good);
  });

  it.each(DAYS)('range from %s', async (from) => {
    const good = isDayText(from);
    expect(await cli(['--from', from])).toBe(good ? 0 : 2);
    expect(await post('/recall', { query: 'teapot', range: { from, to: '2026-12-31' } })).toBe(
      good ? 200 : 400,
    );
    expect(await tool({ query: 'teapot', range: { from, to: '2026-12-31' } })).toBe(!good);
  });
});
