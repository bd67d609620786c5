import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { WAIT } from '../helpers/wait.js';

const NOW = new Date('2026-11-30T10:00:00Z');
const KNEE = 'How is your knee?';
const EVIDENCE = 'The physio says the ligament is healing well.';

function day(date: string, lines: string[]): string {
  return `---\ndate: ${date}\n---\n# ${date}\n\n${lines.map((text, i) => `- 1${i}:00 **Rain:** ${text} ^e${i + 1}`).join('\n')}\n`;
}

/** The evidence on an old day, then days of chatter: the newest entries never hold it. */
const FILES: Record<string, string> = {
  'episodes/daily/2026-11-10.md': day('2026-11-10', ['Bought green tea at the market.', EVIDENCE]),
  'profile/food.md': '# Food\nRain loves spicy noodles and green tea.\n',
};
for (let d = 20; d <= 29; d++)
  FILES[`episodes/daily/2026-11-${d}.md`] = day(`2026-11-${d}`, [
    `Walked to the bakery on day ${d} and talked about the weather.`,
    `Watched a film about pelicans, number ${d}.`,
  ]);

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
const opened: Vault[] = [];
/** Lets a held embedding request go (a failed test must not leave a fill waiting for ever) */
let release: () => void = () => undefined;

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterEach(async () => {
  release();
  stub.state.hold = undefined;
  stub.state.failWith = undefined;
  await Promise.all(opened.splice(0).map((vault) => vault.close()));
  stub.requests.length = 0;
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

async function open(
  embeddings: object,
  extra: { embedSections?: 'read' | 'background' } = {},
): Promise<Vault> {
  const root = await makeVault(FILES, {
    config: {
      timezone: 'UTC',
      git: { autoCommit: false },
      embeddings: { baseURL: stub.baseURL, model: 'stub-1', ...embeddings },
    },
  });
  const vault = await openVault({ path: root, ...extra });
  opened.push(vault);
  return vault;
}

const inDocument = (markdown: string) => markdown.includes('ligament is healing');

describe('compileAsync (library) with embeddings', () => {
  it('off: exactly compile(), byte for byte, and nothing is sent', async () => {
    const vault = await open({});
    const words = ['knee', 'green tea', 'pelicans', 'bakery', '昨天', 'weather', 'noodles', 'How is your'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(300, 600, 2000),
        async (parts, budget) => {
          const message = parts.join(' ');
          const lexical = vault.compile({ message, budget, now: NOW });
          const viaAsync = await vault.compileAsync({ message, budget, now: NOW });
          expect(JSON.stringify(viaAsync)).toBe(JSON.stringify(lexical));
          expect('embeddings' in viaAsync).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
    expect(stub.requests).toHaveLength(0);
  });

  it('on: evidence sharing no word with the message reaches the document, with one request per turn', async () => {
    const vault = await open({ enabled: true });
    expect(inDocument(vault.compile({ message: KNEE, budget: 600, now: NOW }).markdown)).toBe(false);
    await vault.embed();
    const before = stub.requests.length;
    for (const budget of [600, 2000]) {
      const result = await vault.compileAsync({ message: KNEE, budget, now: NOW });
      expect(inDocument(result.markdown)).toBe(true);
      expect(result.used).toBeLessThanOrEqual(budget);
      expect(result.embeddings).toEqual({
        model: 'stub-1',
        ranking: 'fused',
        fusion: 'rrf k=60',
        unembedded: 0,
      });
      const item = result.sections.flatMap((s) => s.items).find((i) => i.text.includes('ligament'));
      expect(item?.reason).toMatch(
        /close in meaning \(cosine 0\.\d\d\).*rank fusion: words -, meaning #1 \(RRF k=60\)/,
      );
    }
    // Only the message, once per turn: the sections were embedded before.
    expect(stub.requests.slice(before)).toEqual([[KNEE], [KNEE]]);
  });

  it('embeds the history and the message together, as compile recalls them', async () => {
    const vault = await open({ enabled: true });
    await vault.embed();
    const before = stub.requests.length;
    await vault.compileAsync({ message: KNEE, history: ['one', 'two', 'three'], budget: 600, now: NOW });
    expect(stub.requests.slice(before)).toEqual([[`two\nthree\n${KNEE}`]]);
  });

  it('an endpoint that is down: the lexical document, and the result says why', async () => {
    const vault = await open({ enabled: true });
    stub.state.failWith = 503;
    const result = await vault.compileAsync({ message: KNEE, budget: 600, now: NOW });
    const { embeddings, ...rest } = result;
    expect(JSON.stringify(rest)).toBe(
      JSON.stringify(vault.compile({ message: KNEE, budget: 600, now: NOW })),
    );
    expect(embeddings).toMatchObject({ model: 'stub-1', ranking: 'lexical' });
    expect(embeddings?.reason).toMatch(/the embeddings endpoint failed/);
    expect(vault.embeddingsHealth()).toMatchObject({ state: 'down', error: expect.stringMatching(/503/) });
    // Not asked again on the next turn: the turn does not wait on a dead endpoint.
    const sent = stub.requests.length;
    expect((await vault.compileAsync({ message: KNEE, budget: 600, now: NOW })).embeddings?.reason).toMatch(
      /asked again after/,
    );
    expect(stub.requests.length).toBe(sent);
  });

  it('an endpoint that takes the query and never answers: the turn ranks by words after 5 s', async () => {
    const vault = await open({ enabled: true });
    await vault.embed();
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    stub.state.hold = { when: (input) => input.length === 1 && input[0] === KNEE, until };
    const started = Date.now();
    const result = await vault.compileAsync({ message: KNEE, budget: 600, now: NOW });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(result.embeddings).toMatchObject({ ranking: 'lexical' });
    expect(result.embeddings?.reason).toMatch(/failed \(no answer within 5 s\)/);
    expect(inDocument(result.markdown)).toBe(false);
  });
});

describe('background embedding (a server)', () => {
  it('never blocks an add; a new entry ranks by its words until its vector comes, then by meaning too', async () => {
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const vault = await open({ enabled: true }, { embedSections: 'background' });
    // The fill at open embeds the vault; wait until it is done.
    await expect.poll(() => vault.embeddingsHealth()?.unembedded, WAIT).toBe(0);
    const added = 'Rain booked a ferry to the island of Hydra.';
    stub.state.hold = { when: (input) => input.includes(added), until };
    const remembered = await vault.remember({ text: added, speaker: 'Rain', at: NOW });
    expect(remembered).toBeTruthy();

    // Its vector is held back: found by its words, counted as not embedded yet, never an error.
    await expect.poll(() => stub.requests.some((input) => input.includes(added)), WAIT).toBe(true);
    const before = stub.requests.length;
    const lexical = await vault.compileAsync({ message: 'ferry to Hydra', budget: 600, now: NOW });
    expect(lexical.markdown).toContain('ferry to the island');
    expect(lexical.embeddings).toMatchObject({ ranking: 'fused', unembedded: 1 });
    const reasons = async () =>
      (await vault.recallAsync('ferry to Hydra', { now: NOW })).hits
        .find((h) => h.text === added)
        ?.reasons.join('; ');
    expect(await reasons()).toContain('rank fusion: words #1, meaning -');
    // The reads sent only their queries.
    expect(stub.requests.slice(before)).toEqual([['ferry to Hydra'], ['ferry to Hydra']]);

    release();
    await expect.poll(() => vault.embeddingsHealth()?.unembedded, WAIT).toBe(0);
    await expect.poll(reasons, WAIT).toMatch(/rank fusion: words #1, meaning #\d+/);
  });
});
