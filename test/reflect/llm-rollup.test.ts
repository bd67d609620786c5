import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { type StubReply, startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-12-01T09:00:00+08:00');

const day = (date: string, text: string) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n- 09:00 **Rain:** ${text} ^e1\n`;

const FILES: Record<string, string> = {
  'episodes/daily/2026-11-03.md': day('2026-11-03', 'Signed the lease in [[Shanghai]].'),
  'episodes/daily/2026-11-10.md': day('2026-11-10', 'Dinner with [[林雪]]; she was quiet.'),
  'episodes/daily/2026-11-21.md': day('2026-11-21', 'Moving day. 阿哲 waited downstairs.'),
};

async function withStub<T>(reply: (prompt: string) => StubReply, run: (baseURL: string) => Promise<T>) {
  const prompts: string[] = [];
  const stub = await startLlmStub((request) => {
    const prompt = request.messages[0]?.content ?? '';
    prompts.push(prompt);
    return reply(prompt);
  });
  try {
    return { result: await run(stub.baseURL), prompts };
  } finally {
    await stub.close();
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('rollups written by a model', () => {
  it('asks for events, people, a timeline, reflections and a capsule, reading the weeks capsules first', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    // The weeks offline first; then the month from them, by the model.
    await vault.rollup({ level: 'week', missing: true, offline: true, now: NOW });
    const answer = {
      title: 'November 2026: the move to Shanghai',
      events: ['Rain signed a lease and moved to [[Shanghai]] [[2026-11-03#^e1]] [[2026-11-21#^e1]]'],
      people: [
        '[[林雪]] was quiet at dinner [[2026-11-10#^e1]]',
        'A line citing a day never shown [[2026-12-25#^e1]]',
      ],
      timeline: ['2026-11-21: moving day [[2026-W47]]'],
      reflections: ['The move went smoothly; family is the open thread [[2026-W46]]'],
      capsule: 'Rain moved from Hangzhou to Shanghai; 林雪 stayed quiet.',
    };
    const { result, prompts } = await withStub(
      () => JSON.stringify(answer),
      (baseURL) =>
        vault.rollup({ level: 'month', now: NOW, env: {}, llmOptions: { baseURL, model: 'stub-model' } }),
    );
    expect(result.written.map((w) => [w.path, w.generator, w.capsule])).toEqual([
      ['episodes/monthly/2026-11.md', 'llm:stub-model', answer.capsule],
    ]);
    expect(result.written[0]?.dropped).toEqual(['A line citing a day never shown [[2026-12-25#^e1]]']);
    const prompt = prompts[0] ?? '';
    expect(prompt).toContain('monthly rollup');
    expect(prompt).toMatch(
      /# Capsules of the parts\n\n- \[\[2026-W45\]\]: 2026-W45 \(2026-11-02 to 2026-11-08\): 1 entry/,
    );
    expect(prompt.indexOf('# Capsules of the parts')).toBeLessThan(
      prompt.indexOf('[[2026-11-03#^e1]] 2026-11-03'),
    );
    const note = await readFile(join(root, 'episodes/monthly/2026-11.md'), 'utf8');
    expect(note).toContain('# November 2026: the move to Shanghai\n');
    expect(note).toContain(
      '## People and relationships\n\n- [[林雪]] was quiet at dinner [[2026-11-10#^e1]]\n\n## Timeline',
    );
    expect(note).not.toContain('2026-12-25');
    expect(note.trimEnd().endsWith(`## Capsule\n\n${answer.capsule}`)).toBe(true);
    expect(note).toContain('generator: llm:stub-model\n');
  });

  it.each<[string, StubReply, string]>([
    ['fails', { status: 500, body: '{"error":{"message":"boom"}}' }, 'the model call failed'],
    [
      'answers outside the schema',
      JSON.stringify({ title: 'November' }),
      "the model's rollup of 2026-W45 does not fit the schema (capsule",
    ],
  ])('writes nothing when the model %s', async (_name, reply, message) => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    await expect(
      withStub(
        () => reply,
        (baseURL) =>
          vault.rollup({ level: 'week', missing: true, now: NOW, env: {}, llmOptions: { baseURL } }),
      ),
    ).rejects.toThrow(message);
    expect(await exists(join(root, 'episodes/weekly'))).toBe(false);
  });
});
